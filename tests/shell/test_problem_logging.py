"""What Claude Code could not do that no update carries is said in the agent's log, in process
(`adapter.session.claude_side`, `fsm.ProblemReports`): a plugin that did not load, once per
list, and transcript lines lost to a full disk; the client is told nothing of either, as with
the reference (docs/reference-adapter.md#unsaved-history)."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.steps import RawFrame, Reply, Result, Scenario
from tests.support.shell_harness import agent_in_process

_INIT = RawFrame(
    frame={
        "type": "system",
        "subtype": "init",
        "session_id": "scripted",
        "uuid": "00000000-0000-4000-8000-0000000c0de1",
        "plugin_errors": [
            {"plugin": "lint", "type": "manifest", "path": "/p/lint", "message": "bad manifest"}
        ],
    }
)
_LOST = RawFrame(
    frame={
        "type": "system",
        "subtype": "session_writes_lost",
        "session_id": "scripted",
        "uuid": "00000000-0000-4000-8000-0000000c0de2",
        "lost": ["transcript lines"],
        "error_code": "ENOSPC",
    }
)
_TURN = (_INIT, Reply(), Result(), _LOST)
SCENARIOS = [Scenario(name="unsaved_history", description="", turns=(_TURN, _TURN))]


@pytest.mark.asyncio
async def test_plugin_failures_and_lost_writes_are_logged_not_shown(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "unsaved_history", scenarios=SCENARIOS) as agent:
        session = await agent.new_session()
        first = await agent.prompt(session, "hello")
        second = await agent.prompt(session, "again")
        warnings = [line for line in agent.log if " WARNING " in line]
        updates = agent.updates()
    assert isinstance(first, PromptResponse) and isinstance(second, PromptResponse)
    plugin = [w for w in warnings if "Plugin lint failed to load (manifest) from /p/lint" in w]
    assert len(plugin) == 1, warnings  # the same list again says nothing new
    lost = [w for w in warnings if "could not save transcript lines (ENOSPC)" in w]
    assert lost and all(f"session {session}:" in w for w in plugin + lost)
    shown = repr(updates)
    assert "ENOSPC" not in shown and "Plugin lint" not in shown
