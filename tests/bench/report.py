"""The results as Markdown (results/BENCHMARKS.md); the chart is drawn by `chart.py`."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.bench.agents import REFERENCE_PACKAGE, Reference
from tests.bench.concurrency import ConcurrentSample, ScalingSample
from tests.bench.core import CoreResult
from tests.bench.huge_result import HugeResult, huge_result_section
from tests.bench.listing import ListingSample, listing_section
from tests.bench.profile import Profile
from tests.bench.replay import LoadSample, PartSample
from tests.bench.report_phases import (
    PhaseLoad,
    Target,
    concurrency_section,
    loads_section,
    scaling_section,
    sessions_section,
    streaming_section,
)
from tests.bench.sessions import SessionSample
from tests.bench.startup import EXPECTED, SCENARIOS, RunSample
from tests.bench.stats import Summary, paired_ratios, summarize
from tests.bench.streaming import FirstChunk, LongStream

__all__ = [
    "AGENTS",
    "Results",
    "load_series",
    "median_of",
    "metrics",
    "series",
    "write_markdown",
]

AGENTS = ("floor", "ours", "reference")
# The start-up targets (the others are in report_phases.py): `initialize` this close to the
# floor agent's, and a fresh process's first session this fraction of the reference's time.
INITIALIZE_OVER_FLOOR_S = 0.040
SESSION_READY = 0.80


@dataclass(slots=True)
class Results:
    command: str
    facts: list[tuple[str, str]]
    revision: str
    runs: int
    reference: Reference | None = None
    reference_error: str | None = None
    samples: list[RunSample] = field(default_factory=list)
    core: CoreResult | None = None
    core_error: str | None = None
    loads: list[LoadSample] = field(default_factory=list)
    parts: list[PartSample] = field(default_factory=list)
    profiles: list[Profile] = field(default_factory=list)
    concurrent: list[ConcurrentSample] = field(default_factory=list)
    scaling: list[ScalingSample] = field(default_factory=list)
    first_chunks: list[FirstChunk] = field(default_factory=list)
    long_streams: list[LongStream] = field(default_factory=list)
    session_ops: list[SessionSample] = field(default_factory=list)
    listings: list[ListingSample] = field(default_factory=list)
    huge_results: list[HugeResult] = field(default_factory=list)
    phase_loads: list[PhaseLoad] = field(default_factory=list)
    elapsed_s: float = 0.0

    def facts_value(self, key: str) -> str:
        return dict(self.facts).get(key, "?")


Getter = Callable[[RunSample], float | None]


def _ok(sample: RunSample) -> bool:
    return sample.error is None


def series(results: Results, agent: str, get: Getter) -> list[float | None]:
    """One value per run (None when the run failed), in run order."""
    by_run = {s.run: s for s in results.samples if s.agent == agent}
    out: list[float | None] = []
    for run in range(results.runs):
        sample = by_run.get(run)
        out.append(get(sample) if sample is not None and _ok(sample) else None)
    return out


def _summary(values: list[float | None]) -> Summary:
    return summarize([v for v in values if v is not None])


def metrics() -> list[tuple[str, Getter, float, int, str]]:
    """(label, getter, scale, digits, unit)."""

    def new(name: str) -> Getter:
        return lambda s: s.new_session_s.get(name)

    def prompt(name: str) -> Getter:
        return lambda s: s.prompt_s.get(name)

    def mem(get: Callable[[Any], int]) -> Getter:
        return lambda s: get(s.memory) / 1024 if s.memory is not None else None

    rows: list[tuple[str, Getter, float, int, str]] = [
        ("spawn -> `initialize` answered", lambda s: s.initialize_s, 1000, 0, "ms"),
        ("  CPU time used by then", lambda s: s.initialize_cpu_s, 1000, 0, "ms"),
        ("spawn -> first `session/new` answered", lambda s: s.first_session_s, 1000, 0, "ms"),
    ]
    for i, name in enumerate(SCENARIOS):
        rows.append((f"`session/new` #{i + 1} ({name})", new(name), 1000, 1, "ms"))
    for name in SCENARIOS:
        rows.append((f"prompt round trip: `{name}`", prompt(name), 1000, 1, "ms"))
    rows += [
        ("agent CPU time, whole run", lambda s: s.total_cpu_s, 1000, 0, "ms"),
        ("peak RSS, agent process (VmHWM)", mem(lambda m: m.agent_hwm_kib), 1, 1, "MiB"),
        ("peak RSS, its scripted Claude children", mem(lambda m: m.children_hwm_kib), 1, 1, "MiB"),
        ("  live children at the end", lambda s: s.memory.children if s.memory else None, 1, 0, ""),
    ]
    return rows


def _ratio_cell(results: Results, get: Getter) -> tuple[str, Summary]:
    ratios = paired_ratios(series(results, "ours", get), series(results, "reference", get))
    summary = summarize(ratios)
    return (summary.fmt(1, 2) if ratios else "-"), summary


def _verdict(ok: bool | str | None) -> str:
    if isinstance(ok, str):
        return ok
    if ok is None:
        return "n/a"
    return "**met**" if ok else "**missed**"


def _startup_section(results: Results) -> tuple[list[str], list[Target]]:
    lines = [
        f"## Fresh processes ({results.runs} runs per agent, interleaved)",
        "",
        "Median [interquartile range] over the runs; the last column is the median of the "
        "run-by-run ratios ours/reference (runs were interleaved floor, ours, reference, so "
        "each pair shared the machine's state).",
        "",
        "| metric | floor | ours | reference | ours/reference (paired) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    ratios: dict[str, Summary] = {}
    for label, get, scale, digits, unit in metrics():
        cells = [_summary(series(results, agent, get)).fmt(scale, digits) for agent in AGENTS]
        ratio_text, ratio = _ratio_cell(results, get)
        ratios[label] = ratio
        suffix = f" ({unit})" if unit else ""
        lines.append(f"| {label}{suffix} | " + " | ".join(cells) + f" | {ratio_text} |")
    lines.append("")
    failures = [s for s in results.samples if s.error is not None]
    wrong = [
        (s, name, got)
        for s in results.samples
        if s.agent != "floor" and s.error is None
        for name, got in s.outcome.items()
        if got != EXPECTED[name]
    ]
    loads = [s.load for s in results.samples]
    if loads:
        lines.append(
            f"One-minute load average at the start of a run: {min(loads):.1f} to "
            f"{max(loads):.1f} (the machine has {results.facts_value('cores (os.cpu_count)')} "
            "cores)."
        )
    lines.append(
        "Answers checked: every `success` prompt ended `end_turn` with no record, every "
        "`rate_limit` one with a `limit/error` record at revision 1 and every "
        "`retry_then_rate_limit` one at revision 3 (two warnings first)."
        if not wrong
        else "Unexpected answers: "
        + "; ".join(f"{s.agent} run {s.run} {n}: {g}" for s, n, g in wrong[:10])
    )
    if failures:
        lines.append("")
        lines.append("Failed runs (left out of the figures):")
        lines.extend(f"- {s.agent} run {s.run}: {s.error}" for s in failures[:10])
    lines.append("")

    targets: list[Target] = []

    def target(name: str, label: str, bound: float | None) -> None:
        """The paired ratio of `label` against `bound` (None: reported, no bound)."""
        summary = ratios.get(label)
        if summary is None or summary.n == 0:
            targets.append((name, "no paired runs", None))
            return
        targets.append(
            (
                name,
                f"ratio {summary.median:.2f} (IQR {summary.q1:.2f}-{summary.q3:.2f})",
                "reported" if bound is None else summary.median <= bound,
            )
        )

    initialize = "spawn -> `initialize` answered"
    targets.append(_near_floor(results, initialize, INITIALIZE_OVER_FLOOR_S))
    target("spawn -> `initialize` answered, ours/reference (reported)", initialize, None)
    first = "spawn -> first `session/new` answered"
    target(
        f"session ready (spawn -> first `session/new` answered) <= {SESSION_READY:.2f}x reference",
        first,
        SESSION_READY,
    )
    targets.append(_floor_distance(results, first))
    for name in SCENARIOS:
        target(f"prompt round trip `{name}` <= reference", f"prompt round trip: `{name}`", 1.0)
    target(
        "peak RSS (agent) after 3 sessions and prompts <= 0.5x reference",
        "peak RSS, agent process (VmHWM)",
        0.5,
    )
    return lines, targets


def _core_section(results: Results) -> list[str]:
    core = results.core
    lines = ["## The core alone (`fsm.session.SessionCore.handle`)", ""]
    if core is None:
        if results.core_error is None:
            return []  # not chosen
        lines += [f"Not run: {results.core_error}", ""]
        return lines
    lines += [
        "| measure | value |",
        "| --- | ---: |",
        f"| events fed (failing and good turns alternating, confirmations included) | "
        f"{core.events:,} |",
        f"| events per second | {core.events_per_second:,.0f} |",
        f"| microseconds per event | {core.microseconds_per_event:.1f} |",
        f"| incidents (failing turns: 2 retry warnings, then the error) | {core.incidents:,} |",
        f"| memory per turn incident, later turns resolving it (bytes, amortized) | "
        f"{core.turn_incident_bytes:,.0f} |",
        f"| traced peak while feeding those incidents (KiB) | {core.turn_incident_peak_kib:,.0f} |",
        *[
            f"| total growth after {n:,} failing turns (KiB; flat = bounded) | {kib:,.0f} |"
            for n, kib in core.turn_growth_kib
        ],
        f"| memory per session-scoped incident left active (bytes) | "
        f"{core.active_incident_bytes:,.0f} |",
        "",
    ]
    return lines


def load_series(results: Results, agent: str) -> dict[int, list[LoadSample]]:
    out: dict[int, list[LoadSample]] = {}
    for sample in results.loads:
        if sample.agent == agent:
            out.setdefault(sample.lines, []).append(sample)
    return out


def median_of(samples: list[LoadSample], get: Callable[[LoadSample], float | None]) -> float | None:
    values = [v for s in samples if s.error is None and (v := get(s)) is not None]
    return summarize(values).median if values else None


def _near_floor(results: Results, label: str, bound_s: float) -> Target:
    """Ours within `bound_s` of the floor agent (the acp SDK answering at once, no Claude)."""
    get = next(m[1] for m in metrics() if m[0] == label)
    ours = _summary(series(results, "ours", get))
    floor = _summary(series(results, "floor", get))
    name = f"{label} within {bound_s * 1000:.0f} ms of the floor"
    if ours.n == 0 or floor.n == 0:
        return (name, "not measured", None)
    over = ours.median - floor.median
    return (
        name,
        f"ours {ours.median * 1000:,.0f} ms, floor {floor.median * 1000:,.0f} ms "
        f"(+{over * 1000:,.0f} ms)",
        over <= bound_s,
    )


def _floor_distance(results: Results, label: str) -> Target:
    """How far ours is from the floor agent (the acp SDK answering at once, no Claude)."""
    get = next(m[1] for m in metrics() if m[0] == label)
    ours = _summary(series(results, "ours", get))
    floor = _summary(series(results, "floor", get))
    if ours.n == 0 or floor.n == 0:
        return (f"{label}: distance to the floor", "not measured", None)
    return (
        f"{label}: distance to the floor (its imports alone, no Claude started; reported)",
        f"ours {ours.median * 1000:,.0f} ms, floor {floor.median * 1000:,.0f} ms "
        f"(+{(ours.median - floor.median) * 1000:,.0f} ms, x{ours.median / floor.median:.2f})",
        "reported",
    )


def _replay_section(results: Results) -> tuple[list[str], list[Target]]:
    lines = ["## Replay (`session/load`)", ""]
    targets: list[Target] = []
    if not results.loads:
        return [], targets  # not chosen
    parts = {p.lines: p for p in results.parts}
    lines += [
        "Median of the repeats (range in brackets when there are several). Time: request to "
        "response at the client, which has read every replayed update by then. Memory: the "
        "agent's own VmHWM right after `initialize` -> after the load.",
        "",
        "| lines | file | agent | load time (s) | agent CPU (s) | updates | records "
        "| peak RSS (MiB) |",
        "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    growth: dict[str, dict[int, float]] = {}
    for agent in ("ours", "reference"):
        for n, samples in sorted(load_series(results, agent).items()):
            good = [s for s in samples if s.error is None]
            part = parts.get(n)
            size = f"{part.size_bytes / 1e6:.1f} MB" if part else "?"
            if not good:
                error = samples[0].error or "failed"
                lines.append(f"| {n:,} | {size} | {agent} | failed: {error[:120]} | | | | |")
                continue
            times = summarize([s.seconds for s in good if s.seconds is not None])
            cpu = median_of(good, lambda s: s.cpu_s)
            before = median_of(good, lambda s: s.hwm_before_kib)
            after = median_of(good, lambda s: s.hwm_after_kib)
            growth.setdefault(agent, {})[n] = times.median
            time_text = f"{times.median:.2f}"
            if times.n > 1:
                time_text += f" ({times.low:.2f}-{times.high:.2f})"
            mem = f"{(before or 0) / 1024:.0f} -> {(after or 0) / 1024:.0f}"
            lines.append(
                f"| {n:,} | {size} | {agent} | {time_text} | {(cpu or 0):.2f} | "
                f"{good[0].notifications:,} | {good[0].records:,} | {mem} |"
            )
    lines.append("")
    if parts:
        lines += [
            "Parts of ours, timed in this process: `pure, both passes` is the pure part as "
            "the replay used to run it, kept as a yardstick (two passes of `fsm.claude.replay`: "
            "json.loads + parse_entry + ActiveScan/ReplayPlanner, no update built or sent; the "
            "replay now reads the file once, after a look at its tail); `fake resume scan` is "
            "the scripted Claude reading the transcript on `--resume` (inside both agents' "
            "load time, since both start Claude before they answer).",
            "",
            "`single-pass floor` is a yardstick, not ours (`replay.replay_floor`): one pass, "
            "updates as plain dicts serialized once, written to a pipe in 64 KiB batches.",
            "",
            "| lines | pure, both passes (s) | fake resume scan (s) | single-pass floor (s) |",
            "| ---: | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {p.lines:,} | {p.pure_s:.3f} | {p.fake_scan_s:.3f} | {p.floor_s:.3f} |"
            for p in sorted(parts.values(), key=lambda p: p.lines)
        ]
        lines.append("")
    for agent, series in growth.items():
        sizes = sorted(series)
        steps = [
            f"{b:,}/{a:,} lines: x{series[b] / series[a]:.1f}"
            for a, b in itertools.pairwise(sizes)
            if series[a] > 0
        ]
        if steps:
            lines.append(
                f"Growth of the load time, {agent}: " + ", ".join(steps) + " (x10 is linear)."
            )
    lines.append("")
    ours = growth.get("ours", {})
    if len(ours) >= 2:
        sizes = sorted(ours)
        a, b = sizes[-2], sizes[-1]
        per_line_ratio = (ours[b] / b) / (ours[a] / a) if ours[a] > 0 else float("nan")
        targets.append(
            (
                "replay linear (time per line at the largest size <= 1.25x the next size's)",
                f"per-line ratio {per_line_ratio:.2f}",
                per_line_ratio <= 1.25,
            )
        )
    if 100_000 in ours:
        targets.append(
            ("replay of 100,000 lines < 2 s", f"{ours[100_000]:.2f} s", ours[100_000] < 2.0)
        )
    peaks = {
        n: peak
        for n, samples in load_series(results, "ours").items()
        if (peak := median_of(samples, lambda s: s.hwm_after_kib))
    }
    if len(peaks) >= 2:
        small, large = min(peaks), max(peaks)
        targets.append(
            (
                f"replay flat in memory (peak RSS after {large:,} lines <= 1.25x after {small:,})",
                f"{peaks[small] / 1024:.0f} -> {peaks[large] / 1024:.0f} MiB",
                peaks[large] <= 1.25 * peaks[small],
            )
        )
    return lines, targets


def _profiles_section(results: Results) -> list[str]:
    if not results.profiles:
        return []
    lines = ["## Profiles (py-spy, ours)", ""]
    for profile in results.profiles:
        name = f"profile-{profile.name}.txt"
        lines.append(f"- `{name}`: {profile.samples:,} samples. Top of it:")
        lines.append("")
        lines.append("```")
        lines.extend(profile.text.splitlines()[:16])
        lines.append("```")
        lines.append("")
    return lines


_NOTES = [
    "## Notes",
    "",
    "- The reference is installed with `npm install --omit=optional --ignore-scripts` into "
    "`~/.cache/claude-acp-bench/`: the native Claude CLI (an optional dependency of the "
    "TypeScript SDK) is left out, since `CLAUDE_CODE_EXECUTABLE` points it at the scripted "
    "Claude. Its `package.json` asks for node >= 22; it ran on the node listed above (npm "
    "warns, nothing failed).",
    "- The reference probes `claude auth status --json` in the background (5 s timeout). The "
    "scripted Claude has no such subcommand, so the benchmark's launcher answers it at once "
    "with a logged-in API-key status, as the real CLI would. A finished probe can still be "
    "an unreaped child when memory is read, hence 4 children for 3 sessions.",
    "- Peak RSS is the kernel's VmHWM of the agent process alone; the scripted Claude "
    "children (one per session, the same program for both adapters) are summed apart.",
    "- Wall-clock figures stretch when the machine is shared; the paired ratios and the CPU "
    "figures are the steadier ones.",
    "",
]


def write_markdown(results: Results, path: Path, chart_name: str | None = None) -> None:
    startup, startup_targets = _startup_section(results) if results.samples else ([], [])
    many, many_targets = concurrency_section(results.concurrent)
    scaling, scaling_targets = scaling_section(results.scaling)
    stream, stream_targets = streaming_section(results.first_chunks, results.long_streams)
    ops, ops_targets = sessions_section(results.session_ops)
    replay, replay_targets = _replay_section(results)
    huge, huge_targets = huge_result_section(results.huge_results)
    ref = results.reference
    lines = [
        "# Benchmarks",
        "",
        f"Made by `{results.command}` in {results.elapsed_s:.0f} s, at revision "
        f"`{results.revision}`. See `tests/bench/__init__.py` for what each figure means.",
        "",
        "## Machine and software",
        "",
        "| fact | value |",
        "| --- | --- |",
        *[f"| {k} | {v} |" for k, v in results.facts],
    ]
    if ref is not None:
        lines += [
            f"| reference | `{REFERENCE_PACKAGE}@{ref.version}` "
            f"(claude-agent-sdk {ref.sdk_version}, ACP SDK {ref.acp_sdk_version}) |",
        ]
    elif results.reference_error:
        lines.append(f"| reference | not run: {results.reference_error} |")
    lines.append("")
    targets = (
        startup_targets
        + many_targets
        + scaling_targets
        + stream_targets
        + ops_targets
        + replay_targets
        + huge_targets
    )
    if targets:
        lines += [
            "## Targets",
            "",
            "Ratios are ours/reference, the median of pairs of runs that shared the machine's "
            "state; `n/a`: not measured in this run.",
            "",
            "| target | measured | verdict |",
            "| --- | --- | --- |",
        ]
        lines += [f"| {name} | {measured} | {_verdict(ok)} |" for name, measured, ok in targets]
        lines.append("")
    if chart_name:
        lines += [f"![benchmarks]({chart_name})", ""]
    lines += loads_section(results.phase_loads, results.facts_value("cores (os.cpu_count)"))
    lines += startup + many + scaling + stream + ops + listing_section(results.listings)
    lines += _core_section(results) + replay + huge
    lines += _profiles_section(results) + _NOTES
    path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
