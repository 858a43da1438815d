"""The turn with the real Claude Code CLI where the scripted Claude cannot show it is real: a
subagent that Claude sends to the background (`Agent` with `run_in_background`), whose end wakes
Claude up inside the same turn (docs/decisions.md#turns-that-wait), a prompt sent while a turn
runs, which Claude Code takes up at the turn's next tool boundary (prompt queueing's hand-off),
and a hook that blocks the prompt, whose reason the user reads instead of a turn that just stops.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tests.real_claude.api_double import Answer, MessagesApiDouble, ToolUse
from tests.real_claude.support import real_adapter, run_turn, wait_until
from tests.support.harness import TIMEOUT, Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

REPORT = "Subagent report: the parser has three callers."
STARTED = "I started a background agent to look."
FOLLOW_UP = "The background agent is done: the parser has three callers."
BLOCKED = "No deploys on Fridays"
BOTH = "Built, and the lint is clean."


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


async def test_a_prompt_sent_mid_turn_is_taken_up_at_the_next_tool_boundary(
    adapter: Adapter, double: MessagesApiDouble
) -> None:
    # The first turn runs a command that waits for a file; the second prompt goes to Claude
    # Code meanwhile (its `command_lifecycle` "queued", seen raw); then the command ends, and
    # Claude Code takes the prompt up after the command's result: the first prompt is answered
    # there, and Claude's one answer after it is the second's.
    project = adapter.workdir.parent / "queueing"
    project.mkdir(exist_ok=True)
    go = project / "go"
    wait = ToolUse(
        "Bash",
        {"command": f"while [ ! -e {go} ]; do sleep 0.05; done; echo built", "description": "w"},
    )
    double.script(wait, Answer(BOTH))
    params: dict[str, Any] = {
        "cwd": str(project),
        "mcpServers": [],
        "_meta": {"claudeCode": {"emitRawSDKMessages": [{"type": "command_lifecycle"}]}},
    }
    opened = await asyncio.wait_for(adapter.conn._conn.send_request("session/new", params), TIMEOUT)
    session = opened["sessionId"]
    start = len(adapter.frames)

    def ours() -> list[dict[str, Any]]:
        return [f.message for f in adapter.frames[start:] if f.direction == "incoming"]

    def queued() -> int:
        return sum(
            1
            for m in ours()
            if m.get("method") == "_claude/sdkMessage"
            and m["params"]["sessionId"] == session
            and m["params"]["message"].get("state") == "queued"
        )

    first = asyncio.ensure_future(adapter.prompt(session, "build it"))
    await wait_until(lambda: queued() >= 1 and wait.id in json.dumps(ours()))
    second = asyncio.ensure_future(adapter.prompt(session, "then lint it"))
    await wait_until(lambda: queued() >= 2)  # Claude Code holds the second prompt
    assert not first.done()
    go.touch()
    answers = await asyncio.gather(first, second)
    assert [getattr(a, "stop_reason", a) for a in answers] == ["end_turn", "end_turn"]
    frames = ours()
    responses = [
        i
        for i, m in enumerate(frames)
        if isinstance(m.get("result"), dict) and "stopReason" in m["result"]
    ]
    updates = [
        (i, m["params"]["update"])
        for i, m in enumerate(frames)
        if m.get("method") == "session/update"
    ]

    def said(after: int, before: int) -> str:
        return "".join(
            str(u.get("content", {}).get("text", ""))
            for i, u in updates
            if after < i < before and u.get("sessionUpdate") == "agent_message_chunk"
        )

    assert BOTH not in said(-1, responses[0])
    assert said(responses[0], responses[1]) == BOTH
    # The command's result came before the hand-off: its card ended in the first turn.
    ended = [
        i for i, u in updates if u.get("toolCallId") == wait.id and u.get("status") == "completed"
    ]
    assert ended and ended[0] < responses[0]


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
