"""The real Claude Code CLI switches its model when `/model` is typed in the chat, and the
session's model picker follows; loaded again, the session shows none of the command.

The bundled CLI (2.1.332) runs `/model haiku` itself (a local command: no model turn), fires its
`PostModelSwitch` hook (source `command`), and the adapter pushes a `config_option_update`
naming the model the session now runs; the next turn goes to the API on that model. (The
double's default model is Opus: `/model opus` would be no switch, and the CLI fires no hook.)
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble
from tests.real_claude.support import load, real_adapter, run_turn, transcript_entries
from tests.support.harness import Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio]


def _picked_models(adapter: Adapter) -> list[str]:
    """The model each `config_option_update` shows, in order."""
    return [
        option["currentValue"]
        for update in adapter.updates("config_option_update")
        for option in update["configOptions"]
        if option["id"] == "model"
    ]


async def test_model_typed_in_the_chat_moves_the_picker_and_the_next_turn(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    double.script(otherwise=Answer("Noted."))
    async with real_adapter(tmp_path, double, capable=True) as adapter:
        first = await run_turn(adapter, "hello")
        assert first.response.stop_reason == "end_turn"
        assert double.messages()[-1].body["model"].startswith("claude-opus")
        assert _picked_models(adapter) == []
        before = len(double.messages())
        typed = await run_turn(adapter, "/model haiku", first.session_id)
        assert typed.response.stop_reason == "end_turn"
        for _ in range(400):  # the update comes beside the turn: a bound, not a speed check
            if "haiku" in _picked_models(adapter):
                break
            await asyncio.sleep(0.05)
        picked = _picked_models(adapter)
        switched = double.messages()[before:]
        after = await run_turn(adapter, "and now?", first.session_id)
    assert picked and picked[-1] == "haiku", picked
    assert switched == [], "`/model` ran as a local command, without a model turn"
    assert after.response.stop_reason == "end_turn"
    assert double.messages()[-1].body["model"].startswith("claude-haiku"), double.messages()[-1]


CLIENTS: dict[str, dict[str, Any]] = {
    "capable": {"capable": True},
    "legacy": {"capable": False},
    "agent_error": {"capable": False, "client_meta": {"agentError": {"version": 1}}},
}


async def test_a_session_that_ran_model_replays_without_its_markers(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    """What the real CLI stores for a typed `/model` (its command markers, then its output in
    `<local-command-stdout>`) is left out when the session is loaded in a fresh adapter, for a
    capable, a legacy and an `agent_error` client: the user's own prompts replay, nothing of
    the command."""
    double.script(otherwise=Answer("Noted."))
    async with real_adapter(tmp_path, double, capable=True) as adapter:
        first = await run_turn(adapter, "hello")
        typed = await run_turn(adapter, "/model haiku", first.session_id)
        assert typed.response.stop_reason == "end_turn"
        after = await run_turn(adapter, "and now?", first.session_id)
        assert after.response.stop_reason == "end_turn"
        stored = json.dumps(transcript_entries(adapter, first.session_id))
    # The real CLI's transcript holds the plumbing the replay must leave out.
    assert "<command-name>/model</command-name>" in stored
    assert "<local-command-stdout>" in stored
    assert first.cwd is not None
    for client, options in CLIENTS.items():
        async with real_adapter(tmp_path, double, **options) as fresh:
            replay = await load(fresh, first.session_id, first.cwd)
        said = [str(u["content"].get("text", "")) for u in replay.updates("user_message_chunk")]
        assert said == ["hello", "and now?"], (client, said)
        # What the history shows (the command list and the pickers name `/model` of course).
        history = [
            u
            for u in replay.updates()
            if u["sessionUpdate"] not in ("available_commands_update", "config_option_update")
        ]
        shown = json.dumps(history)
        for leak in ("<command-", "<local-command-", "/model", "Set model to"):
            assert leak not in shown, (client, leak, shown)
