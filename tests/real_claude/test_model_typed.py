"""The real Claude Code CLI switches its model when `/model` is typed in the chat, and the
session's model picker follows.

The bundled CLI (2.1.332) runs `/model haiku` itself (a local command: no model turn), fires its
`PostModelSwitch` hook (source `command`), and the adapter pushes a `config_option_update`
naming the model the session now runs; the next turn goes to the API on that model. (The
double's default model is Opus: `/model opus` would be no switch, and the CLI fires no hook.)
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble
from tests.real_claude.support import real_adapter, run_turn
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
