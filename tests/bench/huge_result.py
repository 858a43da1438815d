"""One tool result of 100 MiB: the agent's peak resident set over its baseline (within
6x the result's size).

`python -m tests.bench.huge_result [--no-reference]` prints the figures and writes its section
into `tests/bench/results/BENCHMARKS.md` in place (between its markers), leaving the other
phases' figures as they are; `python -m tests.bench` runs it as its `huge_result` phase.

A fresh agent, `initialize`, `session/new` in a folder named `huge_tool_result` (the scripted
Claude answers the first prompt with one Bash call whose output is 100 MiB), the agent's VmHWM
read before the prompt and after its answer. Memory is a fair measure on a shared machine; the
load average is recorded anyway.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path

from adapter.scripted_claude.heavy_scenarios import HUGE_RESULT_BYTES
from tests.bench.agents import (
    DEFAULT_REFERENCE_VERSION,
    ROOT,
    AgentSpec,
    install_reference,
    our_agent,
    reference_agent,
    write_scenario_launcher,
)
from tests.bench.procfs import load_average, status_kib
from tests.bench.rpc import spawn
from tests.bench.startup import OPT_IN

__all__ = ["HugeResult", "huge_result", "huge_result_section", "main"]

PROMPT = [{"type": "text", "text": "Build everything."}]
MIB = 1024 * 1024
BOUND = 6  # times the result's size, over the baseline
BEGIN, END = "<!-- huge_result: begin -->", "<!-- huge_result: end -->"


@dataclass(frozen=True, slots=True)
class HugeResult:
    agent: str
    load: float  # one-minute load average when the run started
    baseline_kib: int | None  # VmHWM after session/new
    peak_kib: int | None  # VmHWM after the huge turn's answer
    stop_reason: str | None
    error: str | None = None

    @property
    def grown_mib(self) -> float | None:
        if self.baseline_kib is None or self.peak_kib is None:
            return None
        return (self.peak_kib - self.baseline_kib) / 1024


async def huge_result(spec: AgentSpec, launcher: Path, *, timeout: float = 600.0) -> HugeResult:
    load = load_average()
    with tempfile.TemporaryDirectory(prefix=f"claude-acp-bench-{spec.name}-") as scratch:
        tmp = Path(scratch)
        config, folder = tmp / "claude-config", tmp / "huge_tool_result"
        config.mkdir()
        folder.mkdir()
        env = {"CLAUDE_CODE_EXECUTABLE": str(launcher), "CLAUDE_CONFIG_DIR": str(config)}
        agent = await spawn(spec.argv, env=env, cwd=ROOT, stderr_path=tmp / "err")
        try:
            init = {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}}
            await agent.request("initialize", init, timeout=timeout)
            new = await agent.request(
                "session/new", {"cwd": str(folder), "mcpServers": []}, timeout=timeout
            )
            baseline = status_kib(agent.pid, "VmHWM")
            reply = await agent.request(
                "session/prompt",
                {"sessionId": new.result["sessionId"], "prompt": PROMPT},
                timeout=timeout,
            )
            peak = status_kib(agent.pid, "VmHWM")
            stop = reply.result.get("stopReason")
            return HugeResult(spec.name, load, baseline, peak, stop)
        except Exception as exc:  # reported, never fatal to the benchmark
            return HugeResult(spec.name, load, None, None, None, f"{type(exc).__name__}: {exc}")
        finally:
            await agent.close()


def huge_result_section(
    samples: list[HugeResult],
) -> tuple[list[str], list[tuple[str, str, bool | str | None]]]:
    if not samples:
        return [], []
    size = HUGE_RESULT_BYTES / MIB
    lines = [
        BEGIN,
        "## One 100 MiB tool result",
        "",
        "A fresh agent, one session whose first turn is one Bash call printing "
        f"{size:.0f} MiB (`huge_tool_result`); the agent's VmHWM after `session/new` and "
        "after the turn's answer. Issue 26's bound: within 6x the result's size. "
        "`python -m tests.bench.huge_result` (`--no-reference`: ours alone) rewrites this "
        "section.",
        "",
        "| agent | baseline (MiB) | peak (MiB) | grown (MiB) | x result size | stop | load |",
        "| --- | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    targets: list[tuple[str, str, bool | str | None]] = []
    for s in samples:
        grown = s.grown_mib
        if grown is None or s.baseline_kib is None or s.peak_kib is None:
            lines.append(f"| {s.agent} | - | - | - | - | {s.error} | {s.load:.1f} |")
            continue
        lines.append(
            f"| {s.agent} | {s.baseline_kib / 1024:.0f} | {s.peak_kib / 1024:.0f} | "
            f"{grown:.0f} | {grown / size:.1f} | {s.stop_reason} | {s.load:.1f} |"
        )
        if s.agent == "ours":
            targets.append(
                (
                    f"a {size:.0f} MiB tool result: peak grows <= {BOUND}x its size",
                    f"+{grown:.0f} MiB (x{grown / size:.1f})",
                    grown <= BOUND * size and s.stop_reason == "end_turn",
                )
            )
    return [*lines, "", END, ""], targets


def _write_in_place(path: Path, section: list[str]) -> None:
    """The section replaces its earlier copy in the report, or goes before its Notes."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    block = "\n".join(section)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block.rstrip("\n") + rest.split(END, 1)[1]
    elif "\n## Notes" in text:
        head, rest = text.split("\n## Notes", 1)
        text = head + "\n" + block + "\n## Notes" + rest
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text, encoding="utf-8")


async def _main(args: argparse.Namespace) -> list[HugeResult]:
    specs = [our_agent()]
    if not args.no_reference:
        specs.append(reference_agent(install_reference(DEFAULT_REFERENCE_VERSION)))
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-launcher-") as scratch:
        launcher = write_scenario_launcher(Path(scratch))
        return [await huge_result(spec, launcher) for spec in specs]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.huge_result", description=__doc__)
    parser.add_argument("--no-reference", action="store_true", help="skip the reference adapter")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = parser.parse_args(argv)
    samples = asyncio.run(_main(args))
    section, targets = huge_result_section(samples)
    print("\n".join(section))
    _write_in_place(args.out / "BENCHMARKS.md", section)
    return 0 if all(ok is not False for _, _, ok in targets) else 1


if __name__ == "__main__":
    raise SystemExit(main())
