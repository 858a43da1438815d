"""Fresh processes, interleaved: spawn → initialize, session/new, prompt round trips, peak RSS.

One run of one agent: spawn it (its own temporary CLAUDE_CONFIG_DIR), `initialize` opted in to
sessionFailure, then for each scenario in `SCENARIOS` a `session/new` in a folder named after
the scenario (the launcher plays that scenario there) and one `session/prompt`. Then the
memory of the process tree is read from /proc while everything is still alive, and stdin is
closed. Agents take turns run by run (A B C A B C ...), after one discarded warm-up run each.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.bench.agents import ROOT, AgentSpec
from tests.bench.procfs import TreeMemory, cpu_seconds, descendants, load_average, tree_memory
from tests.bench.rpc import spawn

__all__ = ["OPT_IN", "SCENARIOS", "RunSample", "reap", "run_interleaved", "run_once"]

SCENARIOS = ("success", "rate_limit", "retry_then_rate_limit")
OPT_IN: dict[str, Any] = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}
# What a correct answer looks like (a wrong one is reported, not timed as if it were right).
EXPECTED = {
    "success": "end_turn",
    "rate_limit": "end_turn limit/error r1",
    "retry_then_rate_limit": "end_turn limit/error r3",
}


@dataclass(slots=True)
class RunSample:
    agent: str
    run: int
    initialize_s: float | None = None
    initialize_cpu_s: float | None = None  # the agent's CPU time when initialize was answered
    total_cpu_s: float | None = None  # its CPU time after the three prompts
    load: float = 0.0  # one-minute load average when the run started
    first_session_s: float | None = None  # spawn -> the first session/new answered
    new_session_s: dict[str, float] = field(default_factory=dict)
    prompt_s: dict[str, float] = field(default_factory=dict)
    outcome: dict[str, str] = field(default_factory=dict)
    memory: TreeMemory | None = None
    notifications: int = 0
    error: str | None = None


def outcome_of(result: dict[str, Any]) -> str:
    """`stopReason` plus the sessionFailure record's category/severity/revision, if any."""
    text = str(result.get("stopReason"))
    meta = result.get("_meta")
    air = meta.get("jetbrains", {}).get("air") if isinstance(meta, dict) else None
    record = air.get("sessionFailure") if isinstance(air, dict) else None
    if isinstance(record, dict):
        text += f" {record.get('category')}/{record.get('severity')} r{record.get('revision')}"
    return text


def reap(pids: list[int]) -> int:
    """SIGKILL the given processes (ours, started by this run) that outlived their agent."""
    left = 0
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, 0)
            left += 1
            os.kill(pid, signal.SIGKILL)
    return left


async def run_once(
    spec: AgentSpec, run: int, launcher: Path, *, timeout: float = 60.0
) -> RunSample:
    sample = RunSample(agent=spec.name, run=run, load=load_average())
    with tempfile.TemporaryDirectory(prefix=f"claude-acp-bench-{spec.name}-") as scratch:
        tmp = Path(scratch)
        config = tmp / "claude-config"
        config.mkdir()
        for name in SCENARIOS:
            (tmp / "sessions" / name).mkdir(parents=True)
        env = {
            "CLAUDE_CODE_EXECUTABLE": str(launcher),
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_ACP_SCENARIO": "success",
        }
        agent = await spawn(spec.argv, env=env, cwd=ROOT, stderr_path=tmp / "stderr.log")
        children: list[int] = []
        try:
            init = await agent.request(
                "initialize",
                {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}},
                timeout=timeout,
            )
            sample.initialize_s = init.received - agent.spawned_at
            sample.initialize_cpu_s = cpu_seconds(agent.pid)
            for name in SCENARIOS:
                cwd = str(tmp / "sessions" / name)
                new = await agent.request(
                    "session/new", {"cwd": cwd, "mcpServers": []}, timeout=timeout
                )
                sample.new_session_s[name] = new.seconds
                if sample.first_session_s is None:
                    sample.first_session_s = new.received - agent.spawned_at
                session_id = new.result["sessionId"]
                prompt = [{"type": "text", "text": "What is in this folder?"}]
                answer = await agent.request(
                    "session/prompt", {"sessionId": session_id, "prompt": prompt}, timeout=timeout
                )
                sample.prompt_s[name] = answer.seconds
                sample.outcome[name] = outcome_of(answer.result)
            sample.memory = tree_memory(agent.pid)
            sample.total_cpu_s = cpu_seconds(agent.pid)
            children = descendants(agent.pid)
        except Exception as exc:  # reported in the results, never fatal to the benchmark
            tail = (tmp / "stderr.log").read_text(encoding="utf-8", errors="replace")[-400:]
            sample.error = f"{type(exc).__name__}: {exc} | stderr: {tail}"
            children = descendants(agent.pid)
        finally:
            sample.notifications = agent.notifications
            await agent.close()
            await asyncio.sleep(0.05)
            reap(children)
    return sample


async def run_interleaved(
    specs: list[AgentSpec],
    launcher: Path,
    runs: int,
    *,
    progress: bool = True,
    before_round: Callable[[], Awaitable[None]] | None = None,
) -> list[RunSample]:
    samples: list[RunSample] = []
    for spec in specs:  # warm-up: page cache, bytecode caches, npm's module graph
        await run_once(spec, -1, launcher)
    started = time.perf_counter()
    for run in range(runs):
        if before_round is not None:
            await before_round()
        for spec in specs:
            samples.append(await run_once(spec, run, launcher))
        if progress:
            elapsed = time.perf_counter() - started
            print(f"  startup run {run + 1}/{runs} ({elapsed:.0f} s)", flush=True)
    return samples
