"""Reopening a session with the real Claude Code CLI: where Claude Code records the permission
mode and the model in its transcript (a prompt entry's `permissionMode`, an answer's
`message.model`, the shape `adapter/claude/transcript_tail.py` reads and the scripted Claude
copies),
and that a fresh adapter resuming the session shows them and runs the next turn on that model.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.real_claude.api_double import Answer, MessagesApiDouble
from tests.real_claude.support import real_adapter, transcript_entries
from tests.support.harness import TIMEOUT

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]


async def test_a_resumed_session_keeps_the_mode_and_model_claude_code_recorded(
    double: MessagesApiDouble, tmp_path: Path
) -> None:
    double.script(otherwise=Answer("Noted."))
    async with real_adapter(tmp_path, double, capable=True) as first:
        session = await first.new_session()
        conn = first.conn
        await asyncio.wait_for(
            conn.set_session_mode(session_id=session, mode_id="acceptEdits"), TIMEOUT
        )
        await asyncio.wait_for(
            conn.set_config_option(config_id="model", session_id=session, value="haiku"), TIMEOUT
        )
        answered = await first.prompt(session, "remember this")
        entries = transcript_entries(first, session)
    assert isinstance(answered, PromptResponse) and answered.stop_reason == "end_turn"
    haiku = double.messages()[-1].body["model"]  # the full id Claude Code resolved "haiku" to
    assert haiku.startswith("claude-haiku")
    [prompt] = [e for e in entries if e.get("type") == "user" and "permissionMode" in e]
    assert prompt["permissionMode"] == "acceptEdits"
    answers = [e for e in entries if e.get("type") == "assistant"]
    assert answers and answers[-1]["message"]["model"] == haiku
    before = len(double.messages())
    async with real_adapter(tmp_path, double, capable=True) as second:
        resumed = await asyncio.wait_for(
            second.conn.resume_session(cwd=str(second.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        again = await second.prompt(session, "and now?")
    assert resumed.modes is not None and resumed.modes.current_mode_id == "acceptEdits"
    current = {o.id: o.current_value for o in resumed.config_options or []}
    assert (current["mode"], current["model"]) == ("acceptEdits", "haiku")
    assert isinstance(again, PromptResponse) and again.stop_reason == "end_turn"
    assert [r.body["model"] for r in double.messages()[before:]] == [haiku]
