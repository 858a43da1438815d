"""Concurrent `session/new`: sessions are created side by side, each with its own
Claude process, none waiting for another's Claude to be ready.

The Claude launcher here is a barrier: each Claude process it starts registers itself and waits
until all `SESSIONS` of them are running before it answers anything. An adapter that created
sessions one after the other (waiting for one Claude's handshake before starting the next)
would leave the first Claude waiting forever: the barrier then breaks after `BARRIER_SECONDS`,
every waiting Claude gives up, and the test fails. No timing is asserted.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude import write_launcher
from tests.support.harness import TIMEOUT, spawn_adapter

SESSIONS = 8
BARRIER_SECONDS = 30


def _barrier_launcher(directory: Path, real: Path, arrivals: Path) -> Path:
    """A `claude` that waits for `SESSIONS` Claude processes to be running, then runs `real`."""
    arrived, broken = shlex.quote(str(arrivals)), shlex.quote(str(arrivals / "broken"))
    lines = [
        "#!/bin/sh",
        "# Test double launcher: a barrier in front of the scripted Claude.",
        # The agent's own sign-in reads (`claude auth status`, adapter.agent.auth_push) are
        # not a session's Claude: they pass at once.
        f'if [ "$1" = auth ]; then exec {shlex.quote(str(real))} "$@"; fi',
        f"touch {arrived}/claude-$$",
        "tries=0",
        f'while [ "$(ls {arrived} | grep -c ^claude-)" -lt {SESSIONS} ]; do',
        f"  if [ -e {broken} ]; then exit 1; fi",
        "  tries=$((tries + 1))",
        f"  if [ $tries -ge {BARRIER_SECONDS * 20} ]; then touch {broken}; exit 1; fi",
        "  sleep 0.05",
        "done",
        f'exec {shlex.quote(str(real))} "$@"',
    ]
    path = directory / "claude"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.mark.asyncio
async def test_concurrent_new_sessions_each_start_their_own_claude_together(
    tmp_path: Path,
) -> None:
    arrivals = tmp_path / "arrivals"
    arrivals.mkdir()
    real = write_launcher(tmp_path / "real-bin")
    launcher = _barrier_launcher(tmp_path, real, arrivals)
    folders = [tmp_path / f"project-{i}" for i in range(SESSIONS)]
    for folder in folders:
        folder.mkdir()
    env = {"CLAUDE_CODE_EXECUTABLE": str(launcher)}
    async with spawn_adapter(tmp_path, "success", env=env) as adapter:
        created = await asyncio.wait_for(
            asyncio.gather(
                *(adapter.new_session(folder) for folder in folders), return_exceptions=True
            ),
            TIMEOUT + BARRIER_SECONDS,
        )
        assert not (arrivals / "broken").exists(), "a session's Claude waited for another's"
        sessions = [s for s in created if isinstance(s, str)]
        assert len(set(sessions)) == SESSIONS, created
        # One Claude process per session, all of them running at once.
        assert len(list(arrivals.glob("claude-*"))) == SESSIONS
        answers = await asyncio.gather(*(adapter.prompt(s, "hello") for s in sessions))
        for answer in answers:
            assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
        assert adapter.answers() == {k: 1 for k in adapter.answers()}


def _threads(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    return int(next(line for line in status.splitlines() if line.startswith("Threads:")).split()[1])


@pytest.mark.asyncio
@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"),
    reason="pidfd child watching is Linux 5.3+ only (elsewhere asyncio keeps its own watcher)",
)
async def test_claude_processes_cost_the_agent_no_thread_each(tmp_path: Path) -> None:
    """Python 3.11's asyncio would wait for each Claude process with a thread of its own
    (adapter/app/child_watch.py); with pidfds the agent's thread count does not grow per session,
    and sessions still close and answer as before."""
    folders = [tmp_path / f"project-{i}" for i in range(SESSIONS)]
    for folder in folders:
        folder.mkdir()
    async with spawn_adapter(tmp_path, "success") as adapter:
        first = await adapter.new_session(folders[0])
        before = _threads(adapter.process.pid)
        sessions = await asyncio.gather(*(adapter.new_session(f) for f in folders[1:]))
        assert _threads(adapter.process.pid) < before + len(sessions)
        closed = await asyncio.wait_for(adapter.conn.close_session(session_id=first), TIMEOUT)
        assert closed is not None
        answer = await adapter.prompt(sessions[0], "hello")
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
