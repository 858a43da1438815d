"""The turn with the real Claude Code CLI where the scripted Claude cannot show it is real: a
subagent that Claude sends to the background (`Agent` with `run_in_background`), whose end wakes
Claude up inside the same turn (docs/decisions.md#turns-that-wait), and a hook that blocks the
prompt, whose reason the user reads instead of a turn that just stops.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.real_claude.api_double import Answer, MessagesApiDouble, ToolUse
from tests.real_claude.support import real_adapter, run_turn
from tests.support.harness import Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

REPORT = "Subagent report: the parser has three callers."
STARTED = "I started a background agent to look."
FOLLOW_UP = "The background agent is done: the parser has three callers."
BLOCKED = "No deploys on Fridays"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def hooked_adapter(
    double: MessagesApiDouble, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Adapter]:
    """A user whose settings hold a UserPromptSubmit hook that blocks prompts about deploying
    (exit status 2, its reason on stderr, as Claude Code's hooks say no)."""
    root = tmp_path_factory.mktemp("real-hooks")
    async with real_adapter(root, double, capable=False) as running:
        hook = "grep -qi deploy && { echo '" + BLOCKED + "' >&2; exit 2; }; exit 0"
        settings = {
            "permissions": {"defaultMode": "default"},
            "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]},
        }
        config = root / "claude-config" / "settings.json"
        config.write_text(json.dumps(settings), encoding="utf-8")
        yield running


async def test_a_background_subagents_follow_up_reaches_the_client_once(
    adapter: Adapter, double: MessagesApiDouble
) -> None:
    agent = ToolUse(
        "Agent",
        {
            "description": "Find the parser's callers",
            "prompt": "List the callers of parse().",
            "subagent_type": "general-purpose",
            "run_in_background": True,
        },
    )
    # The main thread's launch; then, in whichever order the two ask, the subagent's one reply
    # and the main thread's answer to the launch; then Claude's follow-up when the subagent's
    # end wakes it. Which of the two asks first is the CLI's race: the subagent ends after the
    # turn's result (the turn is held for it) or before (Claude Code runs the follow-up right
    # after the result). Either way the follow-up is inside the turn, before its answer
    # (docs/decisions.md#turns-that-wait).
    double.script(agent, Answer(REPORT), Answer(STARTED), Answer(FOLLOW_UP))
    turn = await run_turn(adapter, "Find who calls the parser, in the background")
    assert turn.response.stop_reason == "end_turn"
    assert agent.id in turn.tool_calls()
    assert "".join(turn.texts()).count(FOLLOW_UP) == 1
    assert double.pending == 0


async def test_a_blocking_hook_says_why_the_prompt_was_stopped(
    hooked_adapter: Adapter, double: MessagesApiDouble
) -> None:
    # Nothing reaches the model: the hook stopped the prompt first.
    turn = await run_turn(hooked_adapter, "deploy the site now")
    answer = turn.answer
    shown = "\n".join(turn.texts())
    assert BLOCKED in shown, (answer, turn.updates())
    assert double.requests == [] or all(not r.is_messages for r in double.requests)
    # The session goes on: a prompt the hook lets through reaches Claude.
    double.script(Answer("Fine."))
    later = await run_turn(hooked_adapter, "what time is it?", turn.session_id)
    assert later.response.stop_reason == "end_turn"
    assert "Fine." in "".join(later.texts())
