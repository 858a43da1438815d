"""The real Claude Code CLI predicts the next prompt, and a JetBrains AIR client is shown it.

The adapter starts an AIR client's Claude Code with `--prompt-suggestions` (the Python SDK has no
option for it). This pins what the reference adapter's notes left open: the bundled CLI (2.1.332)
accepts the flag from the SDK, which passes no `--print`, and after a turn that is not the
session's first it asks its model for the user's likely next prompt (here the Messages API
double, which answers from the script) and writes a `prompt_suggestion` frame after the
turn's result; the adapter shows it as `session_info_update._meta.promptSuggestions`, and the
next prompt clears it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble
from tests.real_claude.support import real_adapter, run_turn

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio]


def _suggestions(frames: list[dict[str, Any]]) -> list[Any]:
    return [
        f["params"]["update"]["_meta"]["promptSuggestions"]["suggestions"]
        for f in frames
        if f.get("method") == "session/update"
        and "promptSuggestions" in f["params"]["update"].get("_meta", {})
    ]


async def test_claude_codes_predicted_prompt_reaches_an_air_client(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    double.script(
        Answer("The tests live in tests/."),
        Answer("I added a test for the parser."),
        Answer("Run the tests"),  # the prediction Claude Code asks for after the second turn
        Answer("All green."),
    )
    async with real_adapter(
        tmp_path, double, capable=True, CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION="true"
    ) as adapter:
        first = await run_turn(adapter, "where are the tests?")
        second = await run_turn(adapter, "add a test for the parser", first.session_id)
        for _ in range(400):  # it comes after the answer: a bound, not a speed check
            if _suggestions(adapter.incoming()):
                break
            await asyncio.sleep(0.05)
        shown = _suggestions(adapter.incoming())
        third = await run_turn(adapter, "run them", first.session_id)
        after = _suggestions(adapter.incoming())
    assert [t.response.stop_reason for t in (first, second, third)] == ["end_turn"] * 3
    # No prediction after the first turn: the second request of the double answered turn 2.
    assert len(double.messages()) >= 4
    assert shown == [[{"text": "Run the tests"}]]
    assert after[:2] == [[{"text": "Run the tests"}], []]  # the next prompt spent it
