"""BENCHMARKS.md sections for the many-session, streaming and resume/fork phases.

Each section function returns its Markdown lines and its rows of the targets table
(target, what was measured, met: True / False / None when it could not be judged / a string
for a figure that has no bound and is only reported).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tests.bench.concurrency import ConcurrentSample, ScalingSample
from tests.bench.sessions import SessionSample
from tests.bench.stats import Summary, paired_ratios, summarize
from tests.bench.streaming import FirstChunk, LongStream

__all__ = [
    "PhaseLoad",
    "Target",
    "concurrency_section",
    "loads_section",
    "paired",
    "scaling_section",
    "sessions_section",
    "streaming_section",
]

Target = tuple[str, str, bool | str | None]
# Bounds, ours/reference: resume and fork this fraction of the reference's time, a load no
# slower than it, and the agent's CPU per streamed delta no more than it.
RESUME_AND_FORK = 0.90
LOAD = 1.00
CPU_PER_DELTA = 1.00
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PhaseLoad:
    phase: str
    load_at_start: float  # one-minute load average when the phase started
    runs: Sequence[float]  # the same at the start of each of its runs
    seconds: float  # how long the phase took


def paired(
    samples: Sequence[T], key: Callable[[T], int], get: Callable[[T], float | None], agent: str
) -> list[float | None]:
    """One value per run index for `agent` (None where missing), in run order."""
    by_run = {key(s): get(s) for s in samples if getattr(s, "agent", None) == agent}
    last = max((key(s) for s in samples), default=-1)
    return [by_run.get(i) for i in range(last + 1)]


def _ratio_target(name: str, ratios: list[float], bound: float) -> Target:
    if not ratios:
        return (name, "no paired runs", None)
    s = summarize(ratios)
    return (name, f"ratio {s.median:.2f} (IQR {s.q1:.2f}-{s.q3:.2f}, n={s.n})", s.median <= bound)


def _ms(summary: Summary) -> str:
    return summary.fmt(1000, 0)


def loads_section(loads: Sequence[PhaseLoad], cores: str) -> list[str]:
    if not loads:
        return []
    lines = [
        "## Load average",
        "",
        f"One-minute load average (the machine has {cores} cores) when each phase started, and "
        "its range at the start of the phase's runs. Above about 1 per core, wall-clock "
        "figures stretch; paired ratios and CPU times stretch far less.",
        "",
        "| phase | at start | runs: min-max | phase took (s) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for load in loads:
        runs = f"{min(load.runs):.1f}-{max(load.runs):.1f}" if load.runs else "-"
        lines.append(f"| {load.phase} | {load.load_at_start:.1f} | {runs} | {load.seconds:.0f} |")
    return [*lines, ""]


def concurrency_section(samples: list[ConcurrentSample]) -> tuple[list[str], list[Target]]:
    if not samples:
        return [], []
    n = samples[0].sessions
    lines = [
        f"## {n} concurrent `session/new` on one agent process",
        "",
        f"A fresh agent, `initialize`, then {n} `session/new` written back to back, each in "
        "its own folder (so each starts its own scripted Claude). Median [IQR] over the "
        "repeats; CPU times are the agent's own for the requests and its Claude children's "
        "(the same program for both agents) by the last answer.",
        "",
        "| agent | all answered (ms) | first answered (ms) | agent CPU (ms) "
        "| children CPU (ms) | load at start |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for agent in ("ours", "reference"):
        good = [s for s in samples if s.agent == agent and s.error is None]
        if not good:
            continue
        wall = summarize([s.wall_s for s in good if s.wall_s is not None])
        first = summarize([s.first_s for s in good if s.first_s is not None])
        cpu = summarize([s.agent_cpu_s for s in good if s.agent_cpu_s is not None])
        kids = summarize([s.children_cpu_s for s in good if s.children_cpu_s is not None])
        load = ", ".join(f"{s.load:.1f}" for s in good)
        lines.append(
            f"| {agent} | {_ms(wall)} | {_ms(first)} | {_ms(cpu)} | {_ms(kids)} | {load} |"
        )
    lines += [f"- {s.agent} repeat {s.repeat}: {s.error}" for s in samples if s.error][:6]
    lines.append("")

    def ok(s: ConcurrentSample) -> float | None:
        return s.wall_s if s.error is None else None

    def key(s: ConcurrentSample) -> int:
        return s.repeat

    ratios = paired_ratios(paired(samples, key, ok, "ours"), paired(samples, key, ok, "reference"))
    return lines, [_ratio_target(f"{n} concurrent `session/new` <= reference", ratios, 1.0)]


def scaling_section(samples: list[ScalingSample]) -> tuple[list[str], list[Target]]:
    good = [s for s in samples if s.error is None and s.rss_kib]
    if not samples:
        return [], []
    steps = sorted({n for s in good for n in s.rss_kib})
    lines = [
        "## Memory per session",
        "",
        "A fresh agent creates sessions one by one; its resident set (VmRSS, MiB) after each "
        "step, median over the repeats, and the slope from the first step to the last: what "
        "each further session costs the agent (its Claude process is counted apart).",
        "",
        "| agent | "
        + " | ".join(f"{n} session{'s' if n > 1 else ''}" for n in steps)
        + " | per further session (KiB) | Claude children at the last step (MiB) |",
        "| --- |" + " ---: |" * (len(steps) + 2),
    ]
    targets: list[Target] = []
    for agent in ("ours", "reference"):
        own = [s for s in good if s.agent == agent]
        if not own:
            continue
        cells = [
            f"{summarize([s.rss_kib[n] / 1024 for s in own if n in s.rss_kib]).median:.1f}"
            for n in steps
        ]
        slope = summarize([x for s in own if (x := s.slope_kib()) is not None])
        kids = summarize([s.children_rss_kib[steps[-1]] / 1024 for s in own])
        lines.append(
            f"| {agent} | " + " | ".join(cells) + f" | {slope.median:,.0f} | {kids.median:,.0f} |"
        )
        targets.append(
            (
                f"cost of each further session, {agent} (reported, no bound)",
                f"{slope.median:,.0f} KiB per session ({steps[0]} -> {steps[-1]} sessions)",
                "reported",
            )
        )
    lines += [f"- {s.agent} repeat {s.repeat}: {s.error}" for s in samples if s.error][:6]
    lines.append("")
    peak, said = _one_session_peak(samples)
    return [*lines, *said, ""], [peak, *targets]


def _one_session_peak(samples: list[ScalingSample]) -> tuple[Target, list[str]]:
    """The target "agent peak RSS with one session", paired repeat by repeat."""

    def hwm(s: ScalingSample) -> float | None:
        return float(s.one_session_hwm_kib) if s.one_session_hwm_kib and not s.error else None

    def key(s: ScalingSample) -> int:
        return s.repeat

    ours, ref = paired(samples, key, hwm, "ours"), paired(samples, key, hwm, "reference")
    name, measured, ok = _ratio_target(
        "agent peak RSS with one session <= 0.5x reference", paired_ratios(ours, ref), 0.5
    )
    mine = summarize([x for x in ours if x is not None])
    theirs = summarize([x for x in ref if x is not None])
    if not mine.n:
        return (name, measured, ok), []
    other = f", reference {theirs.median / 1024:.1f} MiB" if theirs.n else ""
    if theirs.n:
        measured = f"{mine.median / 1024:.1f} vs {theirs.median / 1024:.1f} MiB, {measured}"
    said = (
        f"Peak RSS (VmHWM) with one session, median of the repeats: ours "
        f"{mine.median / 1024:.1f} MiB{other}."
    )
    return (name, measured, ok), [said]


def streaming_section(
    firsts: list[FirstChunk], longs: list[LongStream]
) -> tuple[list[str], list[Target]]:
    if not firsts and not longs:
        return [], []
    lines = ["## Streaming", ""]
    targets: list[Target] = []
    if firsts:
        lines += [
            "Prompt written -> first `agent_message_chunk` read, a fresh agent per run (the "
            "scripted Claude's `streamed_answer`: it pauses about 10 ms before its first "
            "delta, as a model does). Median [IQR] in ms.",
            "",
            "| agent | first chunk (ms) | runs |",
            "| --- | ---: | ---: |",
        ]
        for agent in ("ours", "reference"):
            values = [s.seconds for s in firsts if s.agent == agent and s.seconds is not None]
            if values:
                lines.append(f"| {agent} | {summarize(values).fmt(1000, 1)} | {len(values)} |")
        lines += [f"- {s.agent} run {s.run}: {s.error}" for s in firsts if s.error][:6]
        lines.append("")

        def get(s: FirstChunk) -> float | None:
            return s.seconds

        def key(s: FirstChunk) -> int:
            return s.run

        ratios = paired_ratios(
            paired(firsts, key, get, "ours"), paired(firsts, key, get, "reference")
        )
        targets.append(_ratio_target("prompt -> first streamed chunk <= reference", ratios, 1.0))
    if longs:
        lines += [
            "One answer of 100,000 text deltas (`long_stream`): the agent's CPU per delta, and "
            "its peak RSS (VmHWM) after a short streamed turn and after the long one.",
            "",
            "| agent | deltas -> chunks | turn (s) | agent CPU per delta (us) | peak RSS "
            "after short -> long turn (MiB) | load at start |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for long in longs:
            short_mib = (long.rss_after_short_kib or 0) / 1024
            long_mib = (long.rss_after_long_kib or 0) / 1024
            lines.append(
                f"| {long.agent} | {long.deltas:,} -> {long.chunks:,} | {long.wall_s:.1f} | "
                f"{long.cpu_us_per_delta:.1f} | {short_mib:.1f} -> {long_mib:.1f} | "
                f"{long.load:.1f} |"
            )
        lines.append("")
        by_agent = {x.agent: x for x in longs}
        if "ours" in by_agent and "reference" in by_agent:
            mine, theirs = by_agent["ours"].cpu_us_per_delta, by_agent["reference"].cpu_us_per_delta
            targets.append(
                (
                    f"100,000-delta answer: agent CPU per delta <= {CPU_PER_DELTA:.2f}x reference",
                    f"ours {mine:.1f} us, reference {theirs:.1f} us (x{mine / theirs:.2f})",
                    mine <= CPU_PER_DELTA * theirs,
                )
            )
        ours = [x for x in longs if x.agent == "ours"]
        if ours and ours[0].rss_after_short_kib and ours[0].rss_after_long_kib:
            x = ours[0]
            grew = ((x.rss_after_long_kib or 0) - (x.rss_after_short_kib or 0)) / 1024
            targets.append(
                (
                    "100,000-delta answer: memory flat (peak grows < 10 MiB), every delta a chunk",
                    f"+{grew:.1f} MiB, {x.chunks:,} chunks for {x.deltas:,} deltas, "
                    f"{x.cpu_us_per_delta:.1f} us CPU per delta",
                    grew < 10 and x.chunks == x.deltas,
                )
            )
    return lines, targets


def sessions_section(samples: list[SessionSample]) -> tuple[list[str], list[Target]]:
    if not samples:
        return [], []
    lines = [
        "## `session/resume` and `session/fork`",
        "",
        "A first agent process creates a session and prompts it once, and exits; a fresh "
        "process then resumes it (no replay; a Claude process is started on it) and forks it "
        "(the transcript copied under a new id, a Claude resumed on the copy), and prompts "
        "the fork once to check it works; a third fresh process loads the session (its short "
        "history replayed). Median [IQR] in ms, request written to response read.",
        "",
        "| agent | `session/resume` (ms) | `session/fork` (ms) | `session/load` (ms) "
        "| failed runs |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for agent in ("ours", "reference"):
        own = [s for s in samples if s.agent == agent]
        if not own:
            continue
        good = [s for s in own if not s.errors]
        resume = summarize([s.resume_s for s in good if s.resume_s is not None])
        fork = summarize([s.fork_s for s in good if s.fork_s is not None])
        load = summarize([s.load_s for s in good if s.load_s is not None])
        lines.append(
            f"| {agent} | {resume.fmt(1000, 0)} | {fork.fmt(1000, 0)} | {load.fmt(1000, 0)} "
            f"| {len(own) - len(good)} |"
        )
    lines += [f"- {s.agent}: {' '.join(s.errors)[:200]}" for s in samples if s.errors][:6]
    lines.append("")
    ours = [s if not s.errors else None for s in samples if s.agent == "ours"]
    ref = [s if not s.errors else None for s in samples if s.agent == "reference"]
    targets: list[Target] = []
    for what, label, bound in (
        ("resume_s", "session/resume", RESUME_AND_FORK),
        ("fork_s", "session/fork", RESUME_AND_FORK),
        ("load_s", "session/load", LOAD),
    ):
        ratios = paired_ratios(
            [getattr(s, what) if s else None for s in ours],
            [getattr(s, what) if s else None for s in ref],
        )
        targets.append(_ratio_target(f"`{label}` latency <= {bound:.2f}x reference", ratios, bound))
    return lines, targets
