"""`/remote-control` through the agent, the real SDK and the scripted Claude in process (scenario
`remote_control`: Claude Code's `remote_control` request answered with the session's claude.ai
address, then a person's message on their phone echoed as Claude Code echoes it): offered as a
command, answered without a turn, and what is typed elsewhere shown live as the user's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import until
from tests.support.scripted_log import claude_log
from tests.support.shell_harness import agent_in_process

PHONE = "What did the last test run say?"


def _user_texts(adapter: Any) -> list[str]:
    return [u["content"]["text"] for u in adapter.updates("user_message_chunk")]


@pytest.mark.asyncio
async def test_remote_control_on_and_off(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "remote_control") as adapter:
        session = await adapter.new_session()
        await until(lambda: adapter.updates("available_commands_update"), "the command list")
        on = await adapter.prompt(session, "/remote-control my laptop")
        await until(lambda: _user_texts(adapter), "the message typed on the phone")
        off = await adapter.prompt(session, "/remote-control off")
        texts = adapter.agent_texts()
        commands = adapter.updates("available_commands_update")[-1]["availableCommands"]
    assert getattr(on, "stop_reason", None) == "end_turn"
    assert getattr(off, "stop_reason", None) == "end_turn"
    assert "remote-control" in [c["name"] for c in commands]
    requests = [
        e["request"]
        for e in claude_log(tmp_path)
        if e["kind"] == "control" and e["request"].get("subtype") == "remote_control"
    ]
    assert requests == [
        {"subtype": "remote_control", "enabled": True, "name": "my laptop"},
        {"subtype": "remote_control", "enabled": False},
    ]
    (active,) = [t for t in texts if t.startswith("Remote Control is active.")]
    assert "https://claude.ai/code/session_" in active
    assert "Remote Control is off. Run /remote-control to reconnect." in texts
    assert _user_texts(adapter) == [PHONE]
    # No model turn for either: Claude Code got no user message.
    assert [e for e in claude_log(tmp_path) if e["kind"] == "user"] == []
    titles = [str(u.get("title")) for u in adapter.updates("session_info_update")]
    assert not [t for t in titles if "claude.ai" in t or "remote-control" in t]
    # The address is for the user: in the message, and in no log line above DEBUG.
    logged = [line for line in adapter.stderr().splitlines() if "claude.ai/code/session_" in line]
    assert [line for line in logged if " DEBUG " not in line] == []
    assert "Remote Control on: done" in adapter.stderr()
