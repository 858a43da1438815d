"""A resumed, loaded or forked session whose Claude cannot start (it exits before its handshake,
or its executable is not there), end to end: the failure is reported with its cause and nothing
is left waiting. The mode and model a reopened session starts in are tested in process:
tests/shell/test_resume_mode_and_model.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import acp
import pytest

from tests.support.harness import TIMEOUT, spawn_adapter
from tests.support.reopened_sessions import switched_and_prompted


async def _session_a(tmp_path: Path, *, mode: str, model: str, env: dict[str, str]) -> str:
    """A session switched to `mode` and `model`, then prompted once (so its transcript says so)."""
    async with spawn_adapter(tmp_path, "success", env=env) as first:
        session = await switched_and_prompted(first, mode=mode, model=model)
    return session


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("claude", "reason"),
    [
        ("exit_before_handshake", "Claude Code did not start: it exited before answering"),
        ("missing", "Claude Code was not found at "),
    ],
)
async def test_a_claude_that_cannot_start_is_reported_and_nothing_is_left_waiting(
    tmp_path: Path, claude: str, reason: str
) -> None:
    session = await _session_a(tmp_path, mode="plan", model="haiku", env={})
    scenario = claude if claude != "missing" else "success"
    env = (
        {"CLAUDE_CODE_EXECUTABLE": str(tmp_path / "no-such-claude")} if claude == "missing" else {}
    )
    async with spawn_adapter(tmp_path, scenario, env=env) as second:
        conn = second.conn
        cwd = str(second.workdir)
        failures = []
        for call in (
            conn.resume_session(cwd=cwd, session_id=session, mcp_servers=[]),
            conn.fork_session(cwd=cwd, session_id=session, mcp_servers=[]),
            conn.load_session(cwd=cwd, session_id=session, mcp_servers=[]),
        ):
            with pytest.raises(acp.RequestError) as failed:
                await asyncio.wait_for(call, TIMEOUT)
            failures.append(failed.value)
        later = await second.prompt(session, "are you there?")
    for failure in failures:
        # The cause is in the message, which is all most editors show.
        assert failure.code == -32603 and str(failure).startswith(reason), failure
    # The session did not open: a later prompt is refused at once, not left waiting.
    assert isinstance(later, acp.RequestError) and later.code == -32602
    for method in ("session/resume", "session/fork", "session/load", "session/prompt"):
        assert list(second.answers(method).values()) == [1], method
