"""One PNG chart of a benchmark run (needs matplotlib, the `bench` extra): six panels.

Fresh-process latency and memory, memory against the number of sessions, 50 concurrent
`session/new`, the other single-request latencies (first streamed chunk, resume, fork), replay.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.bench.report import AGENTS, Results, load_series, median_of, metrics, series
from tests.bench.stats import Summary, summarize

__all__ = ["CHART_NAME", "write_chart"]

CHART_NAME = "benchmarks.png"
COLORS = {"floor": "#9e9e9e", "ours": "#1f77b4", "reference": "#ff7f0e"}
WIDTH = 0.27


def _bars(
    ax: Any, labels: Sequence[str], summaries: Callable[[str, int], Summary], agents: Sequence[str]
) -> None:
    """Grouped bars (median, IQR whiskers) per label and agent; empty groups are left out."""
    for i, agent in enumerate(agents):
        xs, ys, lo, hi = [], [], [], []
        for j in range(len(labels)):
            s = summaries(agent, j)
            if s.n == 0:
                continue
            xs.append(j + (i - (len(agents) - 1) / 2) * WIDTH)
            ys.append(s.median)
            lo.append(s.median - s.q1)
            hi.append(s.q3 - s.median)
        if xs:
            ax.bar(xs, ys, WIDTH, yerr=[lo, hi], label=agent, color=COLORS[agent], capsize=2)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.legend(fontsize=8)


def _fresh_latency(ax: Any, results: Results) -> None:
    rows = [m for m in metrics() if m[4] == "ms" and "CPU" not in m[0]]
    labels = ["initialize", "first\nsession", "new #1", "new #2", "new #3"]
    labels += ["prompt:\nsuccess", "prompt:\nrate\nlimit", "prompt:\nretry +\nlimit"]

    def summary(agent: str, j: int) -> Summary:
        s = summarize([v for v in series(results, agent, rows[j][1]) if v is not None])
        return Summary(s.n, s.median * 1000, s.q1 * 1000, s.q3 * 1000, s.low, s.high)

    _bars(ax, labels[: len(rows)], summary, AGENTS)
    ax.set_yscale("log")
    ax.set_ylabel("ms (median, IQR; log scale)")
    ax.set_title("Fresh process: latency")


def _fresh_memory(ax: Any, results: Results) -> None:
    mems = [m for m in metrics() if m[4] == "MiB"]

    def summary(agent: str, j: int) -> Summary:
        return summarize([v for v in series(results, agent, mems[j][1]) if v is not None])

    _bars(ax, ["agent process", "scripted Claude\nchildren"], summary, AGENTS)
    ax.set_ylabel("peak RSS, MiB (median)")
    ax.set_title("Fresh process (3 sessions): memory")


def _scaling(ax: Any, results: Results) -> None:
    for agent in ("ours", "reference"):
        own = [s for s in results.scaling if s.agent == agent and s.error is None]
        steps = sorted({n for s in own for n in s.rss_kib})
        ys = [summarize([s.rss_kib[n] / 1024 for s in own if n in s.rss_kib]).median for n in steps]
        if steps:
            ax.plot(steps, ys, marker="o", label=agent, color=COLORS[agent])
    ax.set_xlabel("sessions in one agent process")
    ax.set_ylabel("agent VmRSS, MiB (median)")
    ax.set_ylim(bottom=0)
    ax.set_title("Memory per session")
    ax.legend(fontsize=8)


def _concurrent(ax: Any, results: Results) -> None:
    samples = results.concurrent
    n = samples[0].sessions if samples else 50

    def summary(agent: str, j: int) -> Summary:
        own = [s for s in samples if s.agent == agent and s.error is None]
        what = ("wall_s", "agent_cpu_s", "children_cpu_s")[j]
        return summarize([v for s in own if (v := getattr(s, what)) is not None])

    _bars(ax, ["wall: all\nanswered", "agent\nCPU", "Claude\nchildren CPU"], summary, AGENTS[1:])
    ax.set_ylabel("s (median, IQR)")
    ax.set_title(f"{n} concurrent session/new")


def _requests(ax: Any, results: Results) -> None:
    def summary(agent: str, j: int) -> Summary:
        if j == 0:
            got = [s.seconds for s in results.first_chunks if s.agent == agent]
        else:
            what = "resume_s" if j == 1 else "fork_s"
            got = [getattr(s, what) for s in results.session_ops if s.agent == agent]
        s = summarize([v for v in got if v is not None])
        return Summary(s.n, s.median * 1000, s.q1 * 1000, s.q3 * 1000, s.low, s.high)

    _bars(ax, ["prompt -> first\nchunk", "session/\nresume", "session/\nfork"], summary, AGENTS[1:])
    ax.set_ylabel("ms (median, IQR)")
    ax.set_title("Streaming, resume, fork")


def _replay(ax: Any, results: Results) -> None:
    for agent in ("ours", "reference"):
        by_size = load_series(results, agent)
        xs = sorted(n for n, s in by_size.items() if any(x.error is None for x in s))
        ys = [median_of(by_size[n], lambda s: s.seconds) or 0.0 for n in xs]
        if xs:
            ax.plot(xs, ys, marker="o", label=agent, color=COLORS[agent])
    ax.axhline(2.0, color="red", linestyle="--", linewidth=1, label="target: 2 s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ticker: Any = importlib.import_module("matplotlib.ticker")
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlabel("transcript lines")
    ax.set_ylabel("session/load, s")
    ax.set_title("Replay")
    ax.legend(fontsize=8)


def write_chart(results: Results, path: Path) -> bool:
    """Draw the panels that have data; False when matplotlib is not installed or none has."""
    try:
        matplotlib: Any = importlib.import_module("matplotlib")
    except ImportError:
        return False
    matplotlib.use("Agg")
    plt: Any = importlib.import_module("matplotlib.pyplot")
    panels: list[Callable[[Any, Results], None]] = []
    if results.samples:
        panels += [_fresh_latency, _fresh_memory]
    if results.scaling:
        panels.append(_scaling)
    if results.concurrent:
        panels.append(_concurrent)
    if results.first_chunks or results.session_ops:
        panels.append(_requests)
    if results.loads:
        panels.append(_replay)
    if not panels:
        return False
    columns = min(3, len(panels))
    rows = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 4.6 * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, panel in zip(flat, panels, strict=False):
        panel(ax, results)
    for ax in flat[len(panels) :]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
