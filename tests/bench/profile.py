"""py-spy profiles of our adapter (optional: `--profile`; needs `py-spy` in the venv).

The adapter is started under `py-spy record --format raw` (collapsed stacks) and driven by the
same client as the benchmark; once its stdin closes it exits and py-spy writes the stacks. The
stacks are summarized here as self time by function, inclusive time by function, and self time
by top-level package, and written to `results/profile-<name>.txt`.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tests.bench.agents import ROOT
from tests.bench.rpc import spawn
from tests.bench.startup import OPT_IN, SCENARIOS
from tests.bench.transcripts import TranscriptFacts

__all__ = ["Profile", "profile_load", "profile_startup", "py_spy", "summarize_stacks"]

_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    samples: int
    text: str  # the summary


def py_spy() -> str | None:
    found = Path(sys.executable).with_name("py-spy")
    return str(found) if found.exists() else shutil.which("py-spy")


def _frame_parts(frame: str) -> tuple[str, str]:
    match = _FRAME.match(frame.strip())
    if match is None:
        return frame.strip(), "?"
    return match["func"], match["file"]


def _package(file: str) -> str:
    if file.startswith("<frozen importlib"):
        return "importlib (import machinery)"
    if file.startswith("<"):
        return file
    path = file.split("site-packages/")[-1]
    parts = [p for p in path.split("/") if p]
    if not parts:
        return "?"
    head = parts[0]
    return head[:-3] if head.endswith(".py") else head


def summarize_stacks(raw: str, *, top: int = 25) -> tuple[int, str]:
    self_fn: Counter[str] = Counter()
    incl_fn: Counter[str] = Counter()
    self_pkg: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = [f for f in stack.split(";") if f]
        if not frames:
            continue
        func, file = _frame_parts(frames[-1])
        self_fn[f"{func} ({file})"] += count
        self_pkg[_package(file)] += count
        seen: set[str] = set()
        for frame in frames:
            f_func, f_file = _frame_parts(frame)
            key = f"{f_func} ({f_file})"
            if key not in seen:
                seen.add(key)
                incl_fn[key] += count
    if total == 0:
        return 0, "no samples\n"

    def table(title: str, counter: Counter[str]) -> list[str]:
        rows = [title, "-" * len(title)]
        for key, count in counter.most_common(top):
            rows.append(f"{100 * count / total:6.1f}%  {key}")
        rows.append("")
        return rows

    out = [f"{total} samples", ""]
    out += table("self time by top-level package", self_pkg)
    out += table("self time by function", self_fn)
    out += table("inclusive time by function", incl_fn)
    return total, "\n".join(out)


def _env(launcher: Path, config: Path) -> dict[str, str]:
    return {
        "CLAUDE_CODE_EXECUTABLE": str(launcher),
        "CLAUDE_CONFIG_DIR": str(config),
        "CLAUDE_ACP_SCENARIO": "success",
    }


# Samples per second for the start-up profile. py-spy pauses the process for each sample; at
# 1,000 Hz on this 2-core machine it fell seconds behind and the agent barely ran.
PROFILE_RATE = 100


def _record(tool: str, out: Path, rate: int) -> list[str]:
    return [tool, "record", "--rate", str(rate), "--format", "raw", "--output", str(out)]


def _summary(name: str, out: Path, stderr: Path, keep: Path | None) -> Profile:
    if not out.exists():
        return Profile(name, 0, stderr.read_text(errors="replace")[-2000:])
    raw = out.read_text(encoding="utf-8", errors="replace")
    if keep is not None:
        keep.write_text(raw, encoding="utf-8")
    samples, text = summarize_stacks(raw)
    return Profile(name, samples, text)


async def profile_startup(launcher: Path, keep: Path | None = None) -> Profile | None:
    """One fresh adapter under py-spy from its first instruction: initialize, then
    3 x (session/new + prompt). `keep` saves the raw stacks."""
    tool = py_spy()
    if tool is None:
        return None
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-prof-") as scratch:
        tmp = Path(scratch)
        out, stderr = tmp / "stacks.txt", tmp / "stderr.log"
        (tmp / "claude-config").mkdir()
        argv = [*_record(tool, out, PROFILE_RATE), "--", sys.executable, "-m", "adapter"]
        agent = await spawn(
            argv, env=_env(launcher, tmp / "claude-config"), cwd=ROOT, stderr_path=stderr
        )
        try:
            await agent.request(
                "initialize",
                {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}},
                timeout=60,
            )
            for scenario in SCENARIOS:
                folder = tmp / "sessions" / scenario
                folder.mkdir(parents=True)
                new = await agent.request(
                    "session/new", {"cwd": str(folder), "mcpServers": []}, timeout=60
                )
                prompt = [{"type": "text", "text": "What is in this folder?"}]
                await agent.request(
                    "session/prompt",
                    {"sessionId": new.result["sessionId"], "prompt": prompt},
                    timeout=60,
                )
        finally:
            await agent.close(timeout=60)
        return _summary("startup", out, stderr, keep)


async def profile_load(
    facts: TranscriptFacts, config: Path, cwd: Path, launcher: Path, keep: Path | None = None
) -> Profile | None:
    """An initialized adapter; py-spy attaches to it, then `session/load` of `facts`. Only
    busy (on-CPU) samples count, so the figures are the adapter's own work."""
    tool = py_spy()
    if tool is None:
        return None
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-prof-") as scratch:
        tmp = Path(scratch)
        out, stderr = tmp / "stacks.txt", tmp / "stderr.log"
        agent = await spawn(
            [sys.executable, "-m", "adapter"],
            env=_env(launcher, config),
            cwd=ROOT,
            stderr_path=stderr,
        )
        spy: asyncio.subprocess.Process | None = None
        try:
            await agent.request(
                "initialize",
                {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}},
                timeout=60,
            )
            spy = await asyncio.create_subprocess_exec(
                *_record(tool, out, 250),
                "--pid",
                str(agent.pid),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            await asyncio.sleep(1.0)  # let py-spy attach
            params = {"sessionId": facts.session_id, "cwd": str(cwd), "mcpServers": []}
            await agent.request("session/load", params, timeout=600)
        finally:
            await agent.close(timeout=60)
            if spy is not None:
                await asyncio.wait_for(spy.wait(), 60)
        return _summary(f"load-{facts.lines}", out, stderr, keep)
