"""Many sessions in one agent process: 50 `session/new` at once, and the memory each costs.

- Concurrent: a fresh agent, `initialize`, then `CONCURRENT` `session/new` requests written
  back to back, each in its own folder (so each gets its own scripted Claude). Timed from the
  first request written to the last response read; also the first response, the agent's CPU
  time spent on them and its Claude children's (every session starts one Claude process, the
  same program for every agent: on 2 cores their start-up is most of the wall time).
- Scaling: a fresh agent, sessions created one by one; the agent's resident set (VmRSS, not the
  high-water mark: what it holds now) is read after 1, 10 and 50 of them. The slope from the
  first to the last step is the cost of each further session. The agent's peak (VmHWM) with
  its first session is read too: the target "peak RSS with one session".

Agents take turns repeat by repeat (ours, reference, ours, ...) so each pair shares the
machine's state; the report takes the ratio ours/reference pair by pair.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.agents import ROOT, AgentSpec
from tests.bench.procfs import cpu_seconds, descendants, load_average, status_kib
from tests.bench.rpc import Agent, spawn
from tests.bench.startup import OPT_IN, reap

__all__ = [
    "CONCURRENT",
    "SCALING_STEPS",
    "ConcurrentSample",
    "ScalingSample",
    "run_concurrent",
    "run_scaling",
]

CONCURRENT = 50
SCALING_STEPS = (1, 10, 50)


@dataclass(slots=True)
class ConcurrentSample:
    agent: str
    repeat: int
    sessions: int
    load: float  # one-minute load average when the repeat started
    wall_s: float | None = None  # first request written -> last response read
    first_s: float | None = None  # first request written -> first response read
    agent_cpu_s: float | None = None  # the agent's CPU time spent on the requests
    children_cpu_s: float | None = None  # its live children's CPU time by the last answer
    children: int = 0
    error: str | None = None


@dataclass(slots=True)
class ScalingSample:
    agent: str
    repeat: int
    load: float
    rss_kib: dict[int, int] = field(default_factory=dict)  # sessions -> agent VmRSS
    children_rss_kib: dict[int, int] = field(default_factory=dict)  # sessions -> children's
    one_session_hwm_kib: int | None = None  # the agent's peak RSS (VmHWM) with one session
    error: str | None = None

    def slope_kib(self) -> float | None:
        """KiB per session from the first step to the last."""
        steps = sorted(self.rss_kib)
        if len(steps) < 2 or self.error is not None:
            return None
        a, b = steps[0], steps[-1]
        return (self.rss_kib[b] - self.rss_kib[a]) / (b - a)


def _folders(tmp: Path, count: int) -> list[Path]:
    # The launcher plays the scenario its cwd's last part names: `success` for all of them.
    folders = [tmp / "sessions" / f"s{i:03d}" / "success" for i in range(count)]
    for folder in folders:
        folder.mkdir(parents=True)
    return folders


async def _started(spec: AgentSpec, launcher: Path, tmp: Path) -> Agent:
    config = tmp / "claude-config"
    config.mkdir()
    env = {"CLAUDE_CODE_EXECUTABLE": str(launcher), "CLAUDE_CONFIG_DIR": str(config)}
    agent = await spawn(spec.argv, env=env, cwd=ROOT, stderr_path=tmp / "stderr.log")
    await agent.request(
        "initialize", {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}}, timeout=60
    )
    return agent


async def _close(agent: Agent | None) -> None:
    if agent is None:
        return
    children = descendants(agent.pid)
    await agent.close(timeout=30)
    await asyncio.sleep(0.05)
    reap(children)  # a Claude that outlived its agent (none should)


def _failure(exc: Exception, tmp: Path) -> str:
    tail = (tmp / "stderr.log").read_text(encoding="utf-8", errors="replace")[-300:]
    return f"{type(exc).__name__}: {exc} | stderr: {tail}"


async def run_concurrent(
    spec: AgentSpec, launcher: Path, repeat: int, *, sessions: int = CONCURRENT
) -> ConcurrentSample:
    sample = ConcurrentSample(spec.name, repeat, sessions, load=load_average())
    with tempfile.TemporaryDirectory(prefix=f"claude-acp-bench-many-{spec.name}-") as scratch:
        tmp = Path(scratch)
        folders = _folders(tmp, sessions)
        agent: Agent | None = None
        try:
            agent = await _started(spec, launcher, tmp)
            cpu_before = cpu_seconds(agent.pid) or 0.0
            started = time.perf_counter()
            replies = await asyncio.gather(
                *(
                    agent.request("session/new", {"cwd": str(f), "mcpServers": []}, timeout=300)
                    for f in folders
                )
            )
            received = sorted(r.received for r in replies)
            sample.wall_s = received[-1] - started
            sample.first_s = received[0] - started
            sample.agent_cpu_s = (cpu_seconds(agent.pid) or 0.0) - cpu_before
            kids = descendants(agent.pid)
            sample.children = len(kids)
            sample.children_cpu_s = sum(cpu_seconds(k) or 0.0 for k in kids)
            if len({r.result.get("sessionId") for r in replies}) != sessions:
                sample.error = "session ids were not all distinct"
        except Exception as exc:  # reported in the results, never fatal to the benchmark
            sample.error = _failure(exc, tmp)
        finally:
            await _close(agent)
    return sample


async def run_scaling(
    spec: AgentSpec, launcher: Path, repeat: int, *, steps: tuple[int, ...] = SCALING_STEPS
) -> ScalingSample:
    sample = ScalingSample(spec.name, repeat, load=load_average())
    with tempfile.TemporaryDirectory(prefix=f"claude-acp-bench-rss-{spec.name}-") as scratch:
        tmp = Path(scratch)
        folders = _folders(tmp, max(steps))
        agent: Agent | None = None
        try:
            agent = await _started(spec, launcher, tmp)
            for count, folder in enumerate(folders, start=1):
                await agent.request(
                    "session/new", {"cwd": str(folder), "mcpServers": []}, timeout=120
                )
                if count in steps:
                    await asyncio.sleep(0.2)  # let the setup's trailing updates go out
                    sample.rss_kib[count] = status_kib(agent.pid, "VmRSS") or 0
                    if count == 1:
                        sample.one_session_hwm_kib = status_kib(agent.pid, "VmHWM")
                    sample.children_rss_kib[count] = sum(
                        status_kib(k, "VmRSS") or 0 for k in descendants(agent.pid)
                    )
        except Exception as exc:
            sample.error = _failure(exc, tmp)
        finally:
            await _close(agent)
    return sample
