"""The benchmark's phases, run by `python -m tests.bench` in this order (`--only` picks some).

Each phase fills its part of `Results` and records the load average when it started and at
the start of each of its runs (`PhaseLoad`). A failed run is reported in the results, never
fatal to the benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.bench.agents import AgentSpec
from tests.bench.concurrency import run_concurrent, run_scaling
from tests.bench.core import run_core
from tests.bench.huge_result import huge_result
from tests.bench.listing import run_listing
from tests.bench.procfs import load_average
from tests.bench.profile import profile_load, profile_startup, py_spy
from tests.bench.replay import make_transcripts, measure_parts, run_load
from tests.bench.report import Results
from tests.bench.report_phases import PhaseLoad
from tests.bench.sessions import run_sessions
from tests.bench.startup import run_interleaved
from tests.bench.streaming import long_stream, run_first_chunks

__all__ = ["PHASES", "Context", "run_phases"]


@dataclass(slots=True)
class Context:
    args: argparse.Namespace
    specs: list[AgentSpec]  # floor, ours, and the reference when it is available
    launcher: Path
    tmp: Path

    @property
    def adapters(self) -> list[AgentSpec]:
        """Ours and the reference: the floor has no Claude to start sessions with."""
        return [s for s in self.specs if s.name != "floor"]

    async def quiet(self) -> None:
        """With `--max-load`, wait (20 s at most) until the 1-min load average is below it."""
        limit: float | None = self.args.max_load
        if limit is None:
            return
        deadline = time.monotonic() + 20
        while load_average() > limit and time.monotonic() < deadline:
            await asyncio.sleep(2)


async def _core(ctx: Context, results: Results) -> Sequence[float]:
    try:
        results.core = run_core(turns=6_000 if ctx.args.quick else 20_000)
    except Exception as exc:  # the core's API may move under us; say so
        results.core_error = f"{type(exc).__name__}: {exc}"
    return []


async def _startup(ctx: Context, results: Results) -> Sequence[float]:
    print(f"  {ctx.args.runs} runs x {len(ctx.specs)} agents, interleaved", flush=True)
    results.samples = await run_interleaved(
        ctx.specs, ctx.launcher, ctx.args.runs, before_round=ctx.quiet
    )
    return [s.load for s in results.samples]


async def _concurrent(ctx: Context, results: Results) -> Sequence[float]:
    n = ctx.args.concurrent
    for spec in ctx.adapters:  # warm-up: page cache, bytecode caches
        await run_concurrent(spec, ctx.launcher, -1, sessions=min(n, 5))
    for repeat in range(ctx.args.repeats):
        for spec in ctx.adapters:
            await ctx.quiet()
            sample = await run_concurrent(spec, ctx.launcher, repeat, sessions=n)
            results.concurrent.append(sample)
            took = f"{sample.wall_s:.2f} s" if sample.wall_s is not None else sample.error
            print(f"  {n} at once, {spec.name} #{repeat + 1}: {took}", flush=True)
    return [s.load for s in results.concurrent]


async def _scaling(ctx: Context, results: Results) -> Sequence[float]:
    for repeat in range(ctx.args.scaling_repeats):
        for spec in ctx.adapters:
            await ctx.quiet()
            sample = await run_scaling(spec, ctx.launcher, repeat)
            results.scaling.append(sample)
            slope = sample.slope_kib()
            took = f"{slope:,.0f} KiB per session" if slope is not None else sample.error
            print(f"  sessions one by one, {spec.name} #{repeat + 1}: {took}", flush=True)
    return [s.load for s in results.scaling]


async def _streaming(ctx: Context, results: Results) -> Sequence[float]:
    results.first_chunks = await run_first_chunks(ctx.adapters, ctx.launcher, ctx.args.stream_runs)
    if ctx.args.long_stream:
        for spec in ctx.adapters:
            print(f"  100,000-delta answer, {spec.name}", flush=True)
            try:
                results.long_streams.append(await long_stream(spec, ctx.launcher))
            except Exception as exc:
                print(f"  failed: {type(exc).__name__}: {exc}", flush=True)
    loads = [s.load for s in results.first_chunks] + [s.load for s in results.long_streams]
    return loads


async def _sessions(ctx: Context, results: Results) -> Sequence[float]:
    results.session_ops = await run_sessions(
        ctx.adapters, ctx.args.session_runs, ctx.launcher, progress=False
    )
    return [s.load for s in results.session_ops]


async def _replay(ctx: Context, results: Results) -> Sequence[float]:
    sizes = [int(n) for n in ctx.args.replay_sizes.split(",") if n.strip()]
    print(f"  writing transcripts of {sizes} lines", flush=True)
    config, cwd, transcripts = make_transcripts(ctx.tmp / "replay", sizes)
    for facts in transcripts:
        results.parts.append(measure_parts(facts, cwd))
        for repeat in range(ctx.args.load_repeats):
            for spec in ctx.adapters:
                await ctx.quiet()
                sample = await run_load(spec, facts, config, cwd, ctx.launcher)
                results.loads.append(sample)
                took = f"{sample.seconds:.2f} s" if sample.seconds else sample.error
                print(f"  load {facts.lines:,} lines, {spec.name} #{repeat + 1}: {took}")
    if ctx.args.profile and py_spy() is not None and transcripts:
        load = await profile_load(transcripts[-1], config, cwd, ctx.launcher)
        if load is not None:
            results.profiles.append(load)
    return [s.load for s in results.loads]


async def _listing(ctx: Context, results: Results) -> Sequence[float]:
    await ctx.quiet()
    ours = next(s for s in ctx.specs if s.name == "ours")  # the reference is not run here
    sample = await run_listing(ours, ctx.launcher, sessions=10 if ctx.args.quick else 30)
    results.listings.append(sample)
    print(f"  session/list after deleting, ours: {sample.errors or 'done'}", flush=True)
    return [sample.load]


async def _huge_result(ctx: Context, results: Results) -> Sequence[float]:
    for spec in ctx.adapters:
        await ctx.quiet()
        sample = await huge_result(spec, ctx.launcher)
        results.huge_results.append(sample)
        grown = sample.grown_mib
        took = f"+{grown:.0f} MiB at peak" if grown is not None else sample.error
        print(f"  100 MiB tool result, {spec.name}: {took}", flush=True)
    return [s.load for s in results.huge_results]


async def _profile_startup(ctx: Context, results: Results) -> None:
    if py_spy() is None:
        print("--profile: py-spy is not installed in this venv (the bench extra)", flush=True)
        return
    print("profiling ours with py-spy", flush=True)
    startup = await profile_startup(ctx.launcher)
    if startup is not None:
        results.profiles.append(startup)


Phase = Callable[[Context, Results], Awaitable[Sequence[float]]]
PHASES: dict[str, Phase] = {
    "core": _core,
    "startup": _startup,
    "concurrent": _concurrent,
    "scaling": _scaling,
    "streaming": _streaming,
    "sessions": _sessions,
    "listing": _listing,
    "replay": _replay,
    "huge_result": _huge_result,
}


async def run_phases(ctx: Context, results: Results, chosen: set[str]) -> None:
    for name, phase in PHASES.items():
        if name not in chosen:
            continue
        load = load_average()
        print(f"{name} (load average {load:.1f})", flush=True)
        started = time.perf_counter()
        runs = await phase(ctx, results)
        results.phase_loads.append(PhaseLoad(name, load, list(runs), time.perf_counter() - started))
    if ctx.args.profile:
        await _profile_startup(ctx, results)
