"""`python -m tests.bench [--runs N] [--quick] [--profile] ...`: run the benchmark, write
`tests/bench/results/BENCHMARKS.md` (and `benchmarks.png` when matplotlib is installed)."""

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
from tests.bench.core import run_core
from tests.bench.machine import machine_facts
from tests.bench.procfs import load_average
from tests.bench.profile import profile_load, profile_startup, py_spy
from tests.bench.replay import make_transcripts, measure_parts, run_load
from tests.bench.report import CHART_NAME, Results, write_chart, write_markdown
from tests.bench.startup import run_interleaved

PHASES = ("core", "startup", "replay")


def _revision() -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "adapter", "fsm")
    return f"{head}+uncommitted changes in adapter/ or fsm/" if dirty else head


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__)
    parser.add_argument("--runs", type=int, default=20, help="fresh processes per agent (20)")
    parser.add_argument(
        "--quick", action="store_true", help="5 runs, replay up to 10,000 lines, one repeat"
    )
    parser.add_argument("--only", choices=PHASES, action="append", help="run only this phase")
    parser.add_argument("--reference-version", default=DEFAULT_REFERENCE_VERSION)
    parser.add_argument("--no-reference", action="store_true", help="skip the reference adapter")
    parser.add_argument(
        "--replay-sizes", default="1000,10000,100000", help="transcript lengths, comma-separated"
    )
    parser.add_argument("--load-repeats", type=int, default=2, help="session/loads per size (2)")
    parser.add_argument(
        "--profile", action="store_true", help="also profile ours with py-spy (startup, load)"
    )
    parser.add_argument(
        "--max-load",
        type=float,
        default=None,
        help="before each round, wait (20 s at most) until the 1-min load average is below this",
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs = min(args.runs, 5)
        args.replay_sizes = "1000,10000"
        args.load_repeats = 1
    return args


async def _wait_quiet(limit: float | None) -> None:
    if limit is None:
        return
    deadline = time.monotonic() + 20
    while load_average() > limit and time.monotonic() < deadline:
        await asyncio.sleep(2)


async def _main(args: argparse.Namespace, results: Results) -> None:
    phases = set(args.only or PHASES)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    specs: list[AgentSpec] = [floor_agent(), our_agent()]
    if not args.no_reference and phases & {"startup", "replay"}:
        try:
            results.reference = install_reference(args.reference_version)
            specs.append(reference_agent(results.reference))
        except RuntimeError as exc:
            results.reference_error = str(exc)
            print(f"reference adapter unavailable: {exc}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-") as scratch:
        tmp = Path(scratch)
        launcher = write_scenario_launcher(tmp / "bin")
        if "core" in phases:
            print("core: SessionCore.handle", flush=True)
            try:
                results.core = run_core(turns=6_000 if args.quick else 20_000)
            except Exception as exc:  # the core's API may move under us; say so
                results.core_error = f"{type(exc).__name__}: {exc}"
        if "startup" in phases:
            print(f"startup: {args.runs} runs x {len(specs)} agents, interleaved", flush=True)
            results.samples = await run_interleaved(
                specs, launcher, args.runs, before_round=lambda: _wait_quiet(args.max_load)
            )
        if "replay" in phases:
            sizes = [int(n) for n in args.replay_sizes.split(",") if n.strip()]
            print(f"replay: writing transcripts of {sizes} lines", flush=True)
            config, cwd, transcripts = make_transcripts(tmp / "replay", sizes)
            loaders = [s for s in specs if s.name in ("ours", "reference")]
            for facts in transcripts:
                results.parts.append(measure_parts(facts, cwd))
                for repeat in range(args.load_repeats):
                    for spec in loaders:
                        await _wait_quiet(args.max_load)
                        sample = await run_load(spec, facts, config, cwd, launcher)
                        results.loads.append(sample)
                        took = f"{sample.seconds:.2f} s" if sample.seconds else sample.error
                        print(f"  load {facts.lines:,} lines, {spec.name} #{repeat + 1}: {took}")
        if args.profile:
            if py_spy() is None:
                print("--profile: py-spy is not installed in this venv", file=sys.stderr)
            else:
                print("profiling ours with py-spy", flush=True)
                startup = await profile_startup(launcher)
                if startup is not None:
                    results.profiles.append(startup)
                if "replay" in phases and transcripts:
                    largest = transcripts[-1]
                    load = await profile_load(largest, config, cwd, launcher)
                    if load is not None:
                        results.profiles.append(load)
                for profile in results.profiles:
                    (out / f"profile-{profile.name}.txt").write_text(profile.text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    args = _parse(list(sys.argv[1:] if argv is None else argv))
    command = "python -m tests.bench " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    results = Results(
        command=command.strip(), facts=machine_facts(), revision=_revision(), runs=args.runs
    )
    started = time.perf_counter()
    asyncio.run(_main(args, results))
    results.elapsed_s = time.perf_counter() - started
    out: Path = args.out
    results.chart = write_chart(results, out / CHART_NAME)
    write_markdown(results, out / "BENCHMARKS.md")
    print(f"wrote {out / 'BENCHMARKS.md'}" + (f" and {CHART_NAME}" if results.chart else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
