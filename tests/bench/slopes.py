"""`python -m tests.bench.slopes [--rounds N] [--count|--trace]`: what each round of opening leaves
behind in our agent (below 2 KiB per round over 300 rounds).

Three kinds of round, each in a fresh agent process after `--warmup` rounds (imports, caches,
the SDKs' buffers, the allocator's arenas; the resident set settles over ~100 rounds):

- `closed`: `session/new`, one prompt, `session/close`: one opened-and-closed session.
- `load_fork`: a session made and prompted once at the start; each round `session/load`s it
  (its transcript replayed), `session/fork`s it, and closes the fork and the loaded session.
- `reload`: the same session, never closed: each round `session/load`s it while the previous
  round's load is still live (the live one is shut down and replaced, as an editor reopening
  a thread does).

After every round the agent's resident set (VmRSS of the agent process alone: its scripted
Claude children are counted apart, and every round closes its own) is read; the figure is the
least-squares slope of those readings over the measured rounds, in KiB per round. RSS moves in
pages and arenas, so a slope needs a few hundred rounds to mean anything; memory is a fair
measure on a shared machine, the load average is recorded anyway.

`--count` runs the agent under `tests.bench.traced_agent` with tracing off and prints the
interpreter's allocated blocks and the collector's tracked objects gained per round (exact
after a collection, the least of a few readings): what `tests/e2e/test_memory_slopes.py`
bounds.

`--trace` runs the agent under `tests.bench.traced_agent` and prints the allocation sites that
grew most between a snapshot after the warm-up and one after the last round: where to look
when a slope is not flat. Tracing slows the agent several times; its slope is not the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import tempfile
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.agents import ROOT, AgentSpec, our_agent, write_scenario_launcher
from tests.bench.procfs import descendants, load_average, status_kib
from tests.bench.rpc import Agent, spawn
from tests.bench.startup import OPT_IN

__all__ = ["KINDS", "SlopeSample", "least_squares_slope", "run_slope"]

KINDS = ("closed", "load_fork", "reload")
PROMPT = [{"type": "text", "text": "What is in this folder?"}]
BOUND_KIB = 2.0  # per round, the bound the suite keeps
TIMEOUT = 120.0  # a bound on a hang, never a speed figure


@dataclass(slots=True)
class SlopeSample:
    kind: str
    rounds: int
    load_start: float
    load_end: float = 0.0
    rss_kib: list[int] = field(default_factory=list)  # after each measured round
    children_left: int = 0  # live descendants after the last round (each round closes its own)
    traced_top: list[str] = field(default_factory=list)
    # With `count`: the agent's allocated blocks and tracked objects after the warm-up and
    # after the last round (tests.bench.traced_agent, SIGUSR2).
    counted: list[dict[str, int]] = field(default_factory=list)
    error: str | None = None

    @property
    def slope_kib(self) -> float | None:
        return least_squares_slope(self.rss_kib) if len(self.rss_kib) > 1 else None

    def per_round(self, what: str) -> float | None:
        """Growth of `blocks` or `objects` per measured round (None unless counted)."""
        if len(self.counted) != 2:
            return None
        return (self.counted[1][what] - self.counted[0][what]) / self.rounds


def least_squares_slope(values: list[int]) -> float:
    """The slope of the least-squares line through (0, v0), (1, v1), ...: growth per round."""
    n = len(values)
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    num = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values))
    den = sum((x - mean_x) ** 2 for x in range(n))
    return num / den


async def _closed_round(agent: Agent, cwd: Path) -> None:
    new = await agent.request("session/new", {"cwd": str(cwd), "mcpServers": []}, timeout=TIMEOUT)
    session_id = new.result["sessionId"]
    await agent.request(
        "session/prompt", {"sessionId": session_id, "prompt": PROMPT}, timeout=TIMEOUT
    )
    await agent.request("session/close", {"sessionId": session_id}, timeout=TIMEOUT)


async def _load_fork_round(agent: Agent, cwd: Path, session_id: str) -> None:
    params = {"sessionId": session_id, "cwd": str(cwd), "mcpServers": []}
    await agent.request("session/load", params, timeout=TIMEOUT)
    fork = await agent.request("session/fork", params, timeout=TIMEOUT)
    await agent.request("session/close", {"sessionId": fork.result["sessionId"]}, timeout=TIMEOUT)
    await agent.request("session/close", {"sessionId": session_id}, timeout=TIMEOUT)


async def _reload_round(agent: Agent, cwd: Path, session_id: str) -> None:
    params = {"sessionId": session_id, "cwd": str(cwd), "mcpServers": []}
    await agent.request("session/load", params, timeout=TIMEOUT)


async def _count(agent: Agent, folder: Path, index: int) -> dict[str, int]:
    agent.process.send_signal(signal.SIGUSR2)
    target = folder / f"{index}.count"
    for _ in range(3000):
        if target.exists():
            found: dict[str, int] = json.loads(target.read_text())
            return found
        await asyncio.sleep(0.1)
    raise TimeoutError("the agent wrote no counts")


# Readings per point, a moment apart, of which the least is kept: a closed session's last
# tasks (its reader's end, a pending announcement) may still hold it for a moment after the
# answer, and one such straggler at the end alone would read as growth over a few dozen rounds.
_READINGS = 3


async def _counts(agent: Agent, folder: Path, point: int) -> dict[str, int]:
    readings = []
    for n in range(_READINGS):
        await asyncio.sleep(0.5)
        readings.append(await _count(agent, folder, point * _READINGS + n))
    return {key: min(r[key] for r in readings) for key in readings[0]}


async def _snapshot(agent: Agent, folder: Path, index: int) -> tracemalloc.Snapshot:
    agent.process.send_signal(signal.SIGUSR1)
    target = folder / f"{index}.snap"
    for _ in range(3000):  # a traced snapshot of a busy agent can take a minute on a shared machine
        if target.exists():
            return tracemalloc.Snapshot.load(str(target))
        await asyncio.sleep(0.1)
    raise TimeoutError("the traced agent wrote no snapshot")


def _type_growth(folder: Path, rounds: int) -> list[str]:
    """The types whose live objects (those the collector tracks) grew most over the rounds."""
    before, after = (json.loads((folder / f"{i}.types").read_text()) for i in (0, 1))
    grown = sorted(((after[k] - before.get(k, 0), k) for k in after), reverse=True)
    return [f"{n / rounds:+.2f}/round {name}" for n, name in grown[:12] if n > 0]


def _top(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, rounds: int) -> list[str]:
    stats = after.compare_to(before, "traceback")
    grown = sum(stat.size_diff for stat in stats)
    lines = [f"{grown / rounds:,.0f} B/round traced in all ({len(stats):,} sites)"]
    for stat in stats[:12]:
        if stat.size_diff <= 0:
            break
        frames = [f"{f.filename.replace(str(ROOT) + '/', '')}:{f.lineno}" for f in stat.traceback]
        lines.append(
            f"{stat.size_diff / rounds:,.0f} B/round ({stat.count_diff:+,} blocks): "
            + " <- ".join(reversed(frames[-6:]))
        )
    return lines


async def run_slope(
    kind: str,
    launcher: Path,
    *,
    rounds: int = 300,
    warmup: int = 30,
    trace: bool = False,
    count: bool = False,
    spec: AgentSpec | None = None,
) -> SlopeSample:
    """`trace`: tracemalloc's top growth sites and types; `count`: allocated blocks and
    tracked objects (both run our agent under `tests.bench.traced_agent`)."""
    sample = SlopeSample(kind, rounds, load_average())
    traced = trace or count
    argv = (
        (sys.executable, "-m", "tests.bench.traced_agent") if traced else (spec or our_agent()).argv
    )
    with tempfile.TemporaryDirectory(prefix=f"claude-acp-bench-slope-{kind}-") as scratch:
        tmp = Path(scratch)
        cwd, config, snaps = tmp / "success", tmp / "config", tmp / "snapshots"
        for folder in (cwd, config, snaps):
            folder.mkdir()
        env = {
            "CLAUDE_CODE_EXECUTABLE": str(launcher),
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_ACP_LOG": "WARNING",
            "CLAUDE_ACP_BENCH_SNAPSHOTS": str(snaps),
            "CLAUDE_ACP_BENCH_TRACEMALLOC": "1" if trace else "0",
        }
        agent = await spawn(argv, env=env, cwd=ROOT, stderr_path=tmp / "stderr.log")
        try:
            init = {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}}
            await agent.request("initialize", init, timeout=TIMEOUT)
            if kind == "closed":

                async def one() -> None:
                    await _closed_round(agent, cwd)
            else:
                new = await agent.request(
                    "session/new", {"cwd": str(cwd), "mcpServers": []}, timeout=TIMEOUT
                )
                first = str(new.result["sessionId"])
                await agent.request(
                    "session/prompt", {"sessionId": first, "prompt": PROMPT}, timeout=TIMEOUT
                )
                await agent.request("session/close", {"sessionId": first}, timeout=TIMEOUT)

                round_of = _load_fork_round if kind == "load_fork" else _reload_round

                async def one() -> None:
                    await round_of(agent, cwd, first)

            for _ in range(warmup):
                await one()
            if count:
                sample.counted.append(await _counts(agent, snaps, 0))
            before = await _snapshot(agent, snaps, 0) if trace else None
            for _ in range(rounds):
                await one()
                sample.rss_kib.append(status_kib(agent.pid, "VmRSS") or 0)
            if count:
                sample.counted.append(await _counts(agent, snaps, 1))
            if before is not None:
                sample.traced_top = _top(before, await _snapshot(agent, snaps, 1), rounds)
                sample.traced_top += _type_growth(snaps, rounds)
            sample.children_left = len(descendants(agent.pid))
        except Exception as exc:  # reported, never fatal to the benchmark
            sample.error = f"{type(exc).__name__}: {exc}"
        finally:
            sample.load_end = load_average()
            await agent.close()
    return sample


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.slopes", description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--only", choices=KINDS, action="append")
    parser.add_argument("--trace", action="store_true", help="print the sites that grew")
    parser.add_argument(
        "--count", action="store_true", help="allocated blocks and objects per round"
    )
    return parser.parse_args(argv)


async def _main(args: argparse.Namespace) -> list[SlopeSample]:
    samples = []
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-launcher-") as scratch:
        launcher = write_scenario_launcher(Path(scratch))
        for kind in args.only or KINDS:
            sample = await run_slope(
                kind,
                launcher,
                rounds=args.rounds,
                warmup=args.warmup,
                trace=args.trace,
                count=args.count,
            )
            samples.append(sample)
            slope = sample.slope_kib
            print(
                f"{kind}: {f'{slope:.2f} KiB/round' if slope is not None else sample.error}, "
                f"RSS {sample.rss_kib[:1]} -> {sample.rss_kib[-1:]} KiB, "
                f"children left {sample.children_left}, "
                f"load {sample.load_start:.1f}-{sample.load_end:.1f}",
                flush=True,
            )
            if sample.counted:
                print(
                    f"  {sample.per_round('blocks'):+.1f} allocated blocks and "
                    f"{sample.per_round('objects'):+.1f} tracked objects per round",
                    flush=True,
                )
            for line in sample.traced_top:
                print("  " + line, flush=True)
    return samples


def main(argv: list[str] | None = None) -> int:
    samples = asyncio.run(_main(_parse(argv)))
    return 0 if all(s.error is None for s in samples) else 1


if __name__ == "__main__":
    raise SystemExit(main())
