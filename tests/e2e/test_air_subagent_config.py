"""A JetBrains AIR child session told its subagent's configuration, end to end through the real
stdio agent and the SDK's own subprocess transport: the subagent hooks the agent registers reach
the scripted Claude's process by name, their `hook_callback` requests come back answered
`{"continue": true}` (the SDK's spelling of the hook's `continue_`) over its control channel,
and the child session gets its options on the wire.

Only what crosses the SDK's hook path stays here; what the child is told, hook by hook, is
tests/shell/test_air_subagent_config.py, and the core's rules tests/core/test_subagent_config.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.air_scenarios import REVIEW_AGENT
from tests.support.harness import NATIVE, spawn_adapter
from tests.support.model_picks import claude_entries, log_env

pytestmark = pytest.mark.asyncio


async def test_subagent_hooks_cross_the_sdk_and_configure_the_child(tmp_path: Path) -> None:
    async with spawn_adapter(
        tmp_path, "air_subagent_config", client_meta=NATIVE, env=log_env(tmp_path)
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "Have the change reviewed.")
        on_child = [
            m["params"]["update"]
            for m in adapter.incoming()
            if m.get("method") == "session/update" and m["params"]["sessionId"] == REVIEW_AGENT
        ]
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    configs = [u for u in on_child if u["sessionUpdate"] == "config_option_update"]
    shown = [[(o["id"], o["currentValue"]) for o in u["configOptions"]] for u in configs]
    assert shown[0] == [("mode", "default"), ("agent", "reviewer")]
    assert shown[-1] == [
        ("mode", "default"),
        ("model", "opus"),
        ("effort", "high"),
        ("agent", "reviewer"),
    ]
    answers = claude_entries(tmp_path, "hook_answer")
    continued = [a["event"] for a in answers if a["answer"].get("response") == {"continue": True}]
    assert continued == [
        "SubagentStart",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PreToolUse",
        "PostModelSwitch",
        "SubagentStop",
    ]
