"""`python -m tests.bench [--quick] [--only PHASE] [--no-reference] ...`: run the benchmark,
write `tests/bench/results/BENCHMARKS.md` (and `benchmarks.png` when matplotlib is installed)."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.agents import (
    DEFAULT_REFERENCE_VERSION,
    ROOT,
    AgentSpec,
    floor_agent,
    install_reference,
    our_agent,
    reference_agent,
    write_scenario_launcher,
)
from tests.bench.chart import CHART_NAME, write_chart
from tests.bench.concurrency import CONCURRENT
from tests.bench.machine import machine_facts
from tests.bench.phases import PHASES, Context, run_phases
from tests.bench.report import Results, write_markdown


def _revision() -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "adapter", "fsm")
    return f"{head}+uncommitted changes in adapter/ or fsm/" if dirty else head


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__)
    add = parser.add_argument
    add("--runs", type=int, default=20, help="startup: fresh processes per agent (20)")
    add("--quick", action="store_true", help="fewer runs and repeats, replay up to 10,000 lines")
    add("--only", choices=tuple(PHASES), action="append", help="run only this phase (repeatable)")
    add("--reference-version", default=DEFAULT_REFERENCE_VERSION)
    add("--no-reference", action="store_true", help="skip the reference adapter")
    add("--concurrent", type=int, default=CONCURRENT, help="concurrent: sessions at once (50)")
    add("--repeats", type=int, default=5, help="concurrent: repeats per agent (5)")
    add("--scaling-repeats", type=int, default=3, help="scaling: repeats per agent (3)")
    add("--stream-runs", type=int, default=10, help="streaming: first-chunk runs per agent (10)")
    add(
        "--no-long-stream",
        dest="long_stream",
        action="store_false",
        help="streaming: skip the 100,000-delta answer",
    )
    add("--session-runs", type=int, default=8, help="sessions: resume/fork runs per agent (8)")
    add("--replay-sizes", default="1000,10000,100000", help="transcript lengths, comma-separated")
    add("--load-repeats", type=int, default=2, help="replay: session/loads per size (2)")
    add("--profile", action="store_true", help="also profile ours with py-spy (startup, load)")
    add(
        "--max-load",
        type=float,
        default=None,
        help="before each run, wait (20 s at most) until the 1-min load average is below this",
    )
    add("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs = min(args.runs, 5)
        args.repeats = min(args.repeats, 2)
        args.scaling_repeats = min(args.scaling_repeats, 1)
        args.stream_runs = min(args.stream_runs, 3)
        args.session_runs = min(args.session_runs, 2)
        args.replay_sizes = "1000,10000"
        args.load_repeats = 1
        args.long_stream = False
    return args


async def _main(args: argparse.Namespace, results: Results) -> None:
    chosen = set(args.only or PHASES)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    specs: list[AgentSpec] = [floor_agent(), our_agent()]
    if not args.no_reference and chosen - {"core"}:
        try:
            results.reference = install_reference(args.reference_version)
            specs.append(reference_agent(results.reference))
        except RuntimeError as exc:
            results.reference_error = str(exc)
            print(f"reference adapter unavailable: {exc}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-") as scratch:
        tmp = Path(scratch)
        launcher = write_scenario_launcher(tmp / "bin")
        await run_phases(Context(args, specs, launcher, tmp), results, chosen)
    for profile in results.profiles:
        (out / f"profile-{profile.name}.txt").write_text(profile.text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    args = _parse(given)
    command = "python -m tests.bench " + " ".join(shlex.quote(a) for a in given)
    results = Results(
        command=command.strip(), facts=machine_facts(), revision=_revision(), runs=args.runs
    )
    started = time.perf_counter()
    asyncio.run(_main(args, results))
    results.elapsed_s = time.perf_counter() - started
    out: Path = args.out
    chart = write_chart(results, out / CHART_NAME)
    write_markdown(results, out / "BENCHMARKS.md", CHART_NAME if chart else None)
    print(f"wrote {out / 'BENCHMARKS.md'}" + (f" and {CHART_NAME}" if chart else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
