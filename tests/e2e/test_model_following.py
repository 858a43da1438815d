"""The model picker follows Claude Code, end to end through the real stdio agent: `/model opus`
typed in the chat (Claude Code's `PostModelSwitch` hook, source `command`) and a fallback for
the rest of the session (`model_refusal_fallback`, `direction: retry`) each push a
`config_option_update` naming the model the session now runs; a fallback in a side question
only (`scope: local`) leaves the picker alone. A 1M-context alias (`sonnet[1m]`, whose API
model id names no `1m`) shows a 1,000,000-token window from the session's first update, not
200,000 until a result says otherwise.

Only what needs the real processes stays here: a model typed in the chat moving the picker. The rest
is played in process: tests/shell/test_model_following.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.harness import spawn_adapter
from tests.support.model_picks import claude_entries, log_env, picked_models

pytestmark = pytest.mark.asyncio


async def test_model_typed_in_the_chat_moves_the_picker(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "model_typed", env=log_env(tmp_path)) as adapter:
        session = await adapter.new_session()
        before = len(adapter.updates("config_option_update"))
        answer = await adapter.prompt(session, "/model opus")
        assert isinstance(answer, PromptResponse), answer
        # The update is sent beside the stream, after the hook is answered: wait for it.
        for _ in range(100):
            if "opus" in picked_models(adapter):
                break
            await asyncio.sleep(0.1)
        updates = adapter.updates("config_option_update")[before:]
    assert [m for m in picked_models(adapter)[-len(updates) :]] == ["opus"], updates
    option = next(o for o in updates[-1]["configOptions"] if o["id"] == "model")
    assert "opus" in [entry["value"] for entry in option["options"]]
    # The hook was answered (Claude Code waits for it), and nothing was sent back to Claude:
    # it made the switch.
    assert [a["event"] for a in claude_entries(tmp_path, "hook_answer")] == ["PostModelSwitch"]
    sent = [c["request"].get("subtype") for c in claude_entries(tmp_path, "control")]
    assert "set_model" not in sent, sent
