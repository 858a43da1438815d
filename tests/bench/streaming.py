"""Streaming: prompt -> first `agent_message_chunk`, and the cost of a 100,000-delta answer.

`python -m tests.bench.streaming [--runs N] [--no-reference] [--long-only | --first-only]
[--long-reference]` prints the figures (it is a benchmark, not a test: nothing here asserts a
speed). `python -m tests.bench` runs the same measurements as its `streaming` phase.

- First chunk: a fresh agent per run, `session/new` in a folder named `streamed_answer` (the
  scripted Claude streams a short answer there at a model's pace), then the time from writing
  `session/prompt` to reading the first `agent_message_chunk` line. Agents take turns run by run;
  the median per agent, and ours / reference.
- Long answer (ours; the reference too with `--long-reference`): one session in `long_stream`
  (one answer of 100,000 text deltas): wall time, the agent's CPU seconds per delta, its peak
  RSS after a short streamed turn and after the long one (flat memory: the long turn may not
  add memory in proportion to its deltas), and whether every delta arrived as one chunk.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from adapter.scripted_claude.coding import LONG_STREAM_DELTAS
from tests.bench.agents import (
    DEFAULT_REFERENCE_VERSION,
    ROOT,
    AgentSpec,
    install_reference,
    our_agent,
    reference_agent,
    write_scenario_launcher,
)
from tests.bench.procfs import cpu_seconds, load_average, status_kib
from tests.bench.rpc import Agent, spawn
from tests.bench.startup import OPT_IN

__all__ = ["FirstChunk", "LongStream", "first_chunk", "long_stream", "main", "run_first_chunks"]

PROMPT = [{"type": "text", "text": "Explain the change."}]


async def _session(agent: Agent, folder: Path, timeout: float) -> str:
    await agent.request(
        "initialize",
        {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}},
        timeout=timeout,
    )
    folder.mkdir(parents=True, exist_ok=True)
    new = await agent.request(
        "session/new", {"cwd": str(folder), "mcpServers": []}, timeout=timeout
    )
    return str(new.result["sessionId"])


def _env(launcher: Path, tmp: Path) -> dict[str, str]:
    config = tmp / "claude-config"
    config.mkdir(exist_ok=True)
    return {"CLAUDE_CODE_EXECUTABLE": str(launcher), "CLAUDE_CONFIG_DIR": str(config)}


async def first_chunk(spec: AgentSpec, launcher: Path, *, timeout: float = 120.0) -> float | None:
    """Seconds from writing the prompt to reading the first chunk (None: no chunk came)."""
    with tempfile.TemporaryDirectory(prefix=f"claude-acp-bench-{spec.name}-") as scratch:
        tmp = Path(scratch)
        agent = await spawn(spec.argv, env=_env(launcher, tmp), cwd=ROOT, stderr_path=tmp / "err")
        try:
            session = await _session(agent, tmp / "streamed_answer", timeout)
            reply = await agent.request(
                "session/prompt", {"sessionId": session, "prompt": PROMPT}, timeout=timeout
            )
            if agent.first_chunk_at is None:
                return None
            return agent.first_chunk_at - reply.sent
        finally:
            await agent.close()


@dataclass(frozen=True, slots=True)
class FirstChunk:
    agent: str
    run: int
    load: float  # one-minute load average when the run started
    seconds: float | None  # prompt written -> first chunk read; None when it failed
    error: str | None = None


async def run_first_chunks(
    specs: list[AgentSpec], launcher: Path, runs: int, *, progress: bool = True
) -> list[FirstChunk]:
    """`first_chunk` for each agent in turn, run by run, after one discarded warm-up each."""
    for spec in specs:
        with contextlib.suppress(Exception):
            await first_chunk(spec, launcher)
    samples: list[FirstChunk] = []
    for run in range(runs):
        for spec in specs:
            load = load_average()
            try:
                seconds = await first_chunk(spec, launcher)
                error = None if seconds is not None else "no agent_message_chunk came"
            except Exception as exc:  # reported, never fatal to the benchmark
                seconds, error = None, f"{type(exc).__name__}: {exc}"
            samples.append(FirstChunk(spec.name, run, load, seconds, error))
        if progress:
            print(f"  first chunk run {run + 1}/{runs}", flush=True)
    return samples


@dataclass(frozen=True, slots=True)
class LongStream:
    agent: str
    load: float  # one-minute load average when the run started
    deltas: int
    chunks: int
    wall_s: float
    cpu_s: float
    rss_after_short_kib: int | None
    rss_after_long_kib: int | None

    @property
    def cpu_us_per_delta(self) -> float:
        return self.cpu_s / self.deltas * 1e6


async def long_stream(spec: AgentSpec, launcher: Path, *, timeout: float = 900.0) -> LongStream:
    load = load_average()
    with tempfile.TemporaryDirectory(prefix=f"claude-acp-bench-{spec.name}-") as scratch:
        tmp = Path(scratch)
        agent = await spawn(spec.argv, env=_env(launcher, tmp), cwd=ROOT, stderr_path=tmp / "err")
        try:
            short = await _session(agent, tmp / "streamed_answer", timeout)
            await agent.request(
                "session/prompt", {"sessionId": short, "prompt": PROMPT}, timeout=timeout
            )
            rss_short = status_kib(agent.pid, "VmHWM")
            folder = tmp / "long_stream"
            folder.mkdir()
            new = await agent.request(
                "session/new", {"cwd": str(folder), "mcpServers": []}, timeout=timeout
            )
            before_cpu, before_chunks = cpu_seconds(agent.pid) or 0.0, agent.chunks
            started = time.perf_counter()
            await agent.request(
                "session/prompt",
                {"sessionId": new.result["sessionId"], "prompt": PROMPT},
                timeout=timeout,
            )
            wall = time.perf_counter() - started
            cpu = (cpu_seconds(agent.pid) or 0.0) - before_cpu
            return LongStream(
                agent=spec.name,
                load=load,
                deltas=LONG_STREAM_DELTAS,
                chunks=agent.chunks - before_chunks,
                wall_s=wall,
                cpu_s=cpu,
                rss_after_short_kib=rss_short,
                rss_after_long_kib=status_kib(agent.pid, "VmHWM"),
            )
        finally:
            await agent.close()


def _print_long(result: LongStream) -> None:
    print(
        f"long answer, {result.agent}: {result.deltas:,} deltas -> {result.chunks:,} chunks in "
        f"{result.wall_s:.1f} s; agent CPU {result.cpu_us_per_delta:.1f} us per delta; "
        f"peak RSS {result.rss_after_short_kib} KiB after a short turn, "
        f"{result.rss_after_long_kib} KiB after the long one"
    )


async def _main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-launcher-") as scratch:
        launcher = write_scenario_launcher(Path(scratch), default="streamed_answer")
        print(f"load average at start: {load_average():.2f}")
        specs = [our_agent()]
        if not args.no_reference and (not args.long_only or args.long_reference):
            specs.append(reference_agent(install_reference(DEFAULT_REFERENCE_VERSION)))
        if not args.long_only:
            samples = await run_first_chunks(specs, launcher, args.runs, progress=False)
            times: dict[str, list[float]] = {spec.name: [] for spec in specs}
            for sample in samples:
                if sample.seconds is not None:
                    times[sample.agent].append(sample.seconds)
            for name, values in times.items():
                if values:
                    print(
                        f"first chunk, {name}: median {statistics.median(values) * 1000:.1f} ms "
                        f"over {len(values)} runs"
                    )
            if all(times.values()) and len(times) == 2:
                ratio = statistics.median(times["ours"]) / statistics.median(times["reference"])
                print(f"first chunk, ours / reference: {ratio:.2f}")
        if args.first_only:
            return
        for spec in specs if args.long_reference else specs[:1]:
            _print_long(await long_stream(spec, launcher))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.streaming", description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--long-only", action="store_true")
    parser.add_argument("--first-only", action="store_true")
    parser.add_argument(
        "--long-reference", action="store_true", help="the long answer through the reference too"
    )
    asyncio.run(_main(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
