"""The session's state as the editor shows it, in process (`agent_in_process`): the agent, a real
ACP client and the scripted Claude in this process.

Tool input as it streams (cards opened at the call's start, refined field by field); tool
progress (the card in_progress, with the elapsed time); the tool's `name` on every card and a
Read's image as image content, live and on replay.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.coding import TINY_PNG
from adapter.view.compaction_ids import compaction_id
from tests.support.harness import TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process


def _cards(adapter: Adapter) -> dict[str, list[dict[str, Any]]]:
    """Every tool call's updates, by id, in order."""
    cards: dict[str, list[dict[str, Any]]] = {}
    for update in adapter.updates():
        if update["sessionUpdate"] in ("tool_call", "tool_call_update"):
            cards.setdefault(update["toolCallId"], []).append(update)
    return cards


def _meta(name: str) -> dict[str, Any]:
    return {"claudeCode": {"toolName": name}}


@pytest.mark.asyncio
async def test_tool_input_streams_into_the_card_field_by_field(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "tool_stream") as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "Run the tests")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    bash, write, read, unfinished = _cards(adapter).values()
    bash_id = bash[0]["toolCallId"]
    opened = {
        "sessionUpdate": "tool_call",
        "toolCallId": bash_id,
        "name": "Bash",
        "title": "Bash",
        "kind": "execute",
        "status": "pending",
        "content": [],
        "locations": [],
        "_meta": _meta("Bash"),
    }
    command = {"command": "python -m pytest -q"}
    described = {**command, "description": "Run the tests"}
    # An AIR client (this one) is told the description as the command's title once it came;
    # a `_meta` key it was sent with the same value before is not sent again
    # (`fsm.ChangedMetaFilter`): the tool's name goes on the opening only. It gets no `rawInput`
    # until the input is whole (`AirClient.partial_input`): the refinements carry none.
    titled = {"jetbrains": {"air": {"version": 1, "commandTitle": "Run the tests"}}}
    assert bash[:4] == [
        opened,
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": bash_id,
            "title": "python -m pytest -q",
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": bash_id,
            "_meta": titled,
        },
        {
            # The finished message: the whole input, and the card's content.
            "sessionUpdate": "tool_call_update",
            "toolCallId": bash_id,
            "title": "python -m pytest -q",
            "kind": "execute",
            "rawInput": {**described, "timeout": 60},
            "content": [{"type": "content", "content": {"type": "text", "text": "Run the tests"}}],
        },
    ]
    assert [u.get("status") for u in bash[4:]] == ["in_progress", "completed"]
    # A Write shows where it writes before its content has streamed, never half a diff.
    path = str(adapter.workdir / "src" / "new.py")
    assert [sorted(u) for u in write[:2]] == [
        [
            "_meta",
            "content",
            "kind",
            "locations",
            "name",
            "sessionUpdate",
            "status",
            "title",
            "toolCallId",
        ],
        ["locations", "sessionUpdate", "title", "toolCallId"],
    ]
    assert (write[1]["title"], write[1]["locations"]) == ("Write src/new.py", [{"path": path}])
    assert write[2]["content"] == [{"type": "diff", "path": path, "newText": "x = 1\ny = 2\n"}]
    # Input that is not JSON: no refinement; the finished message fills the card in.
    assert [u["sessionUpdate"] for u in read[:2]] == ["tool_call", "tool_call_update"]
    assert read[0]["title"] == "Read" and read[1]["title"] == "Read src/app.py"
    assert [u.get("status") for u in read] == ["pending", None, "in_progress", "completed"]
    # A call whose stream stopped mid-input shows what completed, then fails with the turn.
    assert unfinished[1:] == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": unfinished[0]["toolCallId"],
            "title": "sleep 100",
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": unfinished[0]["toolCallId"],
            "status": "failed",
        },
    ]
    assert adapter.agent_texts()[-1].endswith("Streamed.")


@pytest.mark.asyncio
@pytest.mark.parametrize("air", [True, False])
async def test_tool_progress_turns_the_card_in_progress_with_the_elapsed_time(
    tmp_path: Path, air: bool
) -> None:
    async with agent_in_process(tmp_path, "tool_progress", capable=air) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "Build it")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    build, agent = _cards(adapter).values()
    build_id, agent_id = build[0]["toolCallId"], agent[0]["toolCallId"]

    def beat(tool_id: str, name: str, seconds: float, status: bool) -> dict[str, Any]:
        update: dict[str, Any] = {"sessionUpdate": "tool_call_update", "toolCallId": tool_id}
        if status:
            update["status"] = "in_progress"
        response: dict[str, Any] = {"toolResponse": {"elapsedTimeSeconds": seconds}}
        if not air:
            # An AIR client holds the tool's name from the card's opening: it is not sent
            # again (`fsm.ChangedMetaFilter`); any other client gets it on every update.
            response = {"toolName": name, **response}
        update["_meta"] = {"claudeCode": response}
        return update

    beats = [u for u in build if "toolResponse" in u.get("_meta", {}).get("claudeCode", {})]
    # The first beat turns it in_progress; later ones bring only the time; a repeated beat,
    # one for an unknown call and one after the result are not sent.
    assert beats == [beat(build_id, "Bash", 1, True), beat(build_id, "Bash", 2.5, False)]
    assert [u.get("status") for u in build if "status" in u] == [
        "pending",
        "in_progress",
        "completed",
    ]
    assert build[-1]["status"] == "completed"
    # A subagent's tool beats on its Agent call (running already: only the time).
    assert [u for u in agent if "toolResponse" in str(u)] == [beat(agent_id, "Agent", 4, False)]
    assert [u["status"] for u in agent if "status" in u] == ["pending", "in_progress", "completed"]


def _names_and_image(updates: list[dict[str, Any]]) -> tuple[list[str], list[Any]]:
    cards = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    # `name` opens a card (the tool as Claude calls it); no update repeats it.
    assert all(u["name"] == u["_meta"]["claudeCode"]["toolName"] for u in cards)
    assert not [u for u in updates if u["sessionUpdate"] == "tool_call_update" and "name" in u]
    images = [
        c["content"]
        for u in updates
        if u["sessionUpdate"] == "tool_call_update"
        for c in u.get("content", [])
        if c.get("type") == "content" and c["content"].get("type") == "image"
    ]
    return [u["name"] for u in cards], images


@pytest.mark.asyncio
async def test_every_card_names_its_tool_and_a_read_image_shows_live_and_on_replay(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "every_tool") as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "Use every tool")
    names, images = _names_and_image(adapter.updates())
    assert names[:3] == ["Read", "Write", "Edit"] and "mcp__github__create_issue" in names
    assert len(names) == 20 and "TodoWrite" not in names
    image = {"type": "image", "data": TINY_PNG, "mimeType": "image/png"}
    assert images == [image]
    shared = {"CLAUDE_CONFIG_DIR": str(adapter.config_dir)}
    async with agent_in_process(tmp_path / "again", "every_tool", env=shared) as again:
        await asyncio.wait_for(
            again.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        assert _names_and_image(again.updates()) == (names, [image])


@pytest.mark.asyncio
async def test_usage_moves_during_the_turn_as_each_request_streams(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "coding_turn") as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "Tidy the greeting")
    assert isinstance(answer, PromptResponse)
    updates = adapter.updates()
    usage = [u for u in updates if u["sessionUpdate"] == "usage_update"]
    model = {"_claude/model": "claude-sonnet-4-5"}
    # The first request's start (24 in, 1 out) moves the meter; the requests that write only
    # a call (1 out each) leave it where it is; the answer's end (27 out) moves it; then the
    # turn's own update, with the cost.
    assert usage[:-1] == [
        {"sessionUpdate": "usage_update", "used": 25, "size": 200000, "_meta": model},
        {"sessionUpdate": "usage_update", "used": 24 + 27, "size": 200000, "_meta": model},
    ]
    assert (usage[-1]["used"], sorted(usage[-1])) == (51, ["cost", "sessionUpdate", "size", "used"])
    # The meter moves as the requests stream, not only at the turn's end.
    first_card = next(i for i, u in enumerate(updates) if u["sessionUpdate"] == "tool_call")
    assert updates.index(usage[0]) < first_card
    answer_chunk = next(
        i for i, u in enumerate(updates) if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert answer_chunk < updates.index(usage[1]) < updates.index(usage[2])


@pytest.mark.asyncio
@pytest.mark.parametrize("air", [True, False])
async def test_compaction_is_a_compact_conversation_card_and_the_meter_drops(
    tmp_path: Path, air: bool
) -> None:
    """`air`: a JetBrains AIR client (the harness's opt-in), which finds the facts in
    `_meta.jetbrains.air.contextCompaction` instead of `rawOutput`; else a plain client."""
    async with agent_in_process(tmp_path, "compaction", capable=air) as adapter:
        session = await adapter.new_session()
        answers = [
            await adapter.prompt(session, text) for text in ("Go on", "/compact", "/compact")
        ]
    assert all(isinstance(a, PromptResponse) and a.stop_reason == "end_turn" for a in answers)
    meta = {"claudeCode": {"toolName": "compact"}}

    def told(**known: Any) -> dict[str, Any]:
        if not air:
            return meta
        return {
            **meta,
            "jetbrains": {"air": {"version": 1, "contextCompaction": {"version": 1, **known}}},
        }

    def changed(**known: Any) -> dict[str, Any]:
        """An update's `_meta`: an AIR client gets only the keys that changed since the card
        opened (`fsm.ChangedMetaFilter`), any other client all of them."""
        if not air:
            return meta
        return {"jetbrains": {"air": {"contextCompaction": {"version": 1, **known}}}}

    # Each card is named by its place in the session (as its load names it), the failed one
    # coming third.
    auto, manual, failed_id = (compaction_id(session, n) for n in range(3))

    def opened(card_id: str) -> dict[str, Any]:
        return {
            "sessionUpdate": "tool_call",
            "toolCallId": card_id,
            "name": "compact",
            "title": "Compact conversation",
            "kind": "think",
            "status": "in_progress",
            "_meta": told(),
        }

    def done(card_id: str, trigger: str, pre: int, post: int) -> dict[str, Any]:
        known = {"trigger": trigger, "preTokens": pre, "postTokens": post, "durationMs": 4100}
        update = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": card_id,
            "status": "completed",
            "_meta": changed(**known),
        }
        return update if air else {**update, "rawOutput": known}

    def retained(used: int) -> dict[str, Any]:
        return {
            "sessionUpdate": "usage_update",
            "used": used,
            "size": 200000,
            "_meta": {"_claude/model": "claude-sonnet-4-5"},
        }

    # (The streamed requests move the meter by a few dozen tokens: not what this is about.)
    shown = [
        u
        for u in adapter.updates()
        if u["sessionUpdate"] in ("tool_call", "tool_call_update")
        or (u["sessionUpdate"] == "usage_update" and "cost" not in u and u["used"] > 100)
    ]
    failed = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": failed_id,
        "status": "failed",
        "_meta": changed(error="Conversation too short to compact"),
        "content": [
            {
                "type": "content",
                "content": {
                    "type": "text",
                    "text": "Compaction failed: Conversation too short to compact",
                },
            }
        ],
    }
    # Each compaction: its card, its end with the counts, then the context it retained.
    assert shown == [
        opened(auto),
        done(auto, "automatic", 180000, 12000),
        retained(12000),
        opened(manual),
        done(manual, "manual", 40000, 3000),
        retained(3000),
        opened(failed_id),
        failed,
    ]
    # The turn's own usage afterwards starts from what compaction retained; the two `/compact`
    # turns used no tokens of their own, so they end without a usage update of their own (the
    # meter's drop is the `retained` update above).
    turn_ends = [u for u in adapter.updates("usage_update") if "cost" in u]
    assert [u["used"] for u in turn_ends] == [12000]
