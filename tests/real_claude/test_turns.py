"""Successful turns with the real Claude Code CLI: a streamed answer, real tools on a temporary
project, and `session/load` of the transcript the CLI itself wrote. Both client modes; the
facts asserted are structural (ids, inputs, statuses, the real output text), so richer tool
cards or token streaming can be added without touching them.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.real_claude.api_double import (
    Answer,
    MessagesApiDouble,
    StreamError,
    ToolUse,
    tool_result_text,
)
from tests.real_claude.support import (
    API_KEY,
    CLI_VERSION,
    Turn,
    assert_broken_then,
    prompt_uuids,
    run_turn,
    transcript_entries,
)
from tests.support.harness import Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

ANSWER = "The answer is 42, streamed by a Messages API double through the real CLI."
NOTES = "alpha line\nbeta TODO line\ngamma\n"


def _project(adapter: Adapter, name: str) -> Path:
    folder = adapter.workdir.parent / name
    folder.mkdir()
    (folder / "notes.txt").write_text(NOTES, encoding="utf-8")
    return folder


def _text_of(updates: list[dict[str, Any]]) -> str:
    """Every text a tool call's updates show: content blocks (text, or a terminal's output)
    and raw output."""
    parts = []
    for update in updates:
        parts.append(str(update.get("rawOutput", "")))
        for item in update.get("content") or []:
            inner = item.get("content") if isinstance(item, dict) else None
            if isinstance(inner, dict):
                parts.append(str(inner.get("text", "")))
    return "\n".join(parts)


async def test_streamed_answer_arrives_once_and_the_request_is_the_bundled_cli(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    double.script(Answer(ANSWER, pieces=5))
    turn = await run_turn(adapter, "What is the answer?")

    assert turn.response.stop_reason == "end_turn"
    assert "".join(turn.texts()) == ANSWER  # every delta, once, in order
    assert turn.records() == []
    (request,) = double.messages()
    # The bundled CLI (not a scripted one, not one from PATH) made the call, with our dummy key.
    assert request.headers.get("User-Agent", "").startswith(f"claude-cli/{CLI_VERSION} ")
    assert request.headers.get("x-api-key") == API_KEY
    assert request.body["stream"] is True
    # The prompt went out as a user message's text block (the CLI 2.1.332 adds "system" role
    # messages after it, so it is not necessarily the last message).
    prompts = [
        block
        for message in request.body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("text") == "What is the answer?"
    ]
    assert len(prompts) == 1


def _tool_script(project: Path) -> tuple[ToolUse, ToolUse, ToolUse, ToolUse]:
    notes = str(project / "notes.txt")
    return (
        ToolUse("Read", {"file_path": notes}),
        ToolUse("Edit", {"file_path": notes, "old_string": "gamma", "new_string": "delta"}),
        ToolUse("Bash", {"command": "cat notes.txt && echo bash-ran", "description": "Show"}),
        ToolUse("Grep", {"pattern": "TODO", "path": str(project)}),
    )


async def _tool_turn(
    adapter: Adapter, double: MessagesApiDouble
) -> tuple[Turn, Path, tuple[ToolUse, ...]]:
    project = _project(adapter, f"tools-{uuid.uuid4().hex[:8]}")
    script = _tool_script(project)
    double.script(*script, Answer("Edited gamma to delta."))
    session_id = await adapter.new_session(cwd=project)
    turn = await run_turn(adapter, "Read, fix and check notes.txt", session_id)
    return turn, project, script


async def test_real_tools_run_and_their_cards_carry_the_real_inputs_and_outputs(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    turn, project, (read, edit, bash, grep) = await _tool_turn(adapter, double)

    assert turn.response.stop_reason == "end_turn"
    assert "".join(turn.texts()) == "Edited gamma to delta."
    # The tools ran for real on the temporary project.
    assert (project / "notes.txt").read_text(encoding="utf-8") == NOTES.replace("gamma", "delta")
    # What the CLI sent back to the API: the real file content, the real command output.
    results = {
        b["tool_use_id"]: b for request in double.messages()[1:] for b in request.tool_results()
    }
    assert set(results) == {read.id, edit.id, bash.id, grep.id}
    assert "beta TODO line" in tool_result_text(results[read.id])
    assert tool_result_text(results[bash.id]).splitlines()[-2:] == ["delta", "bash-ran"]
    # The CLI 2.1.332 default toolset has no Grep: the call fails with the CLI's own words.
    assert results[grep.id].get("is_error") is True
    assert "No such tool available: Grep" in tool_result_text(results[grep.id])

    calls = turn.tool_calls()
    assert list(calls) == [read.id, edit.id, bash.id, grep.id]  # in the order Claude called
    for script in (read, edit, bash, grep):
        updates = calls[script.id]
        assert updates[0]["sessionUpdate"] == "tool_call"
        # The latest input the card shows holds every field Claude sent (cards may show it
        # first empty, while the input streams, and add fields of their own).
        raw_input = [u["rawInput"] for u in updates if u.get("rawInput")][-1]
        assert {k: raw_input.get(k) for k in script.input} == script.input
        statuses = [u["status"] for u in updates if u.get("status")]
        expected = "failed" if script is grep else "completed"
        assert statuses[-1] == expected, (script.name, updates)
    assert "beta TODO line" in _text_of(calls[read.id])
    assert "bash-ran" in _text_of(calls[bash.id])
    assert "No such tool available: Grep" in _text_of(calls[grep.id])
    # Edit needed the user's permission, asked for the very tool call the card shows.
    asked = [r.tool_call_id for r in adapter.client.permission_requests]
    assert edit.id in asked
    assert read.id not in asked


async def test_session_load_replays_the_real_transcript(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    turn, project, (read, edit, bash, grep) = await _tool_turn(adapter, double)
    assert turn.response.stop_reason == "end_turn"
    session_id = turn.session_id
    # The real CLI's transcript has entry types the scripted Claude never writes.
    kinds = {str(e.get("type")) for e in transcript_entries(adapter, session_id)}
    assert {"user", "assistant", "attachment"} <= kinds, kinds
    assert len(prompt_uuids(adapter, session_id)) == 1

    start = len(adapter.frames)
    await adapter.conn.load_session(cwd=str(project), session_id=session_id, mcp_servers=[])
    replay = Turn(
        session_id,
        turn.answer,
        [
            f.message
            for f in adapter.frames[start:]
            if f.direction == "incoming"
            and f.message.get("method") == "session/update"
            and f.message["params"].get("sessionId") == session_id
        ],
    )
    users = [str(u["content"].get("text", "")) for u in replay.updates("user_message_chunk")]
    assert "".join(users).count("Read, fix and check notes.txt") == 1
    assert "".join(replay.texts()) == "Edited gamma to delta."
    assert [r for _, r in replay.records()] == []  # a successful history restores no failure
    # The replayed tool calls keep the real ids.
    assert set(replay.tool_calls()) == {read.id, edit.id, bash.id, grep.id}

    # The resumed session goes on: the CLI sends the whole history back to the API.
    double.script(Answer("Still here."))
    after = await run_turn(adapter, "Are you still there?", session_id)
    assert "".join(after.texts()) == "Still here."
    last_request = double.messages()[-1]
    sent = str(last_request.body["messages"])
    assert "Read, fix and check notes.txt" in sent and "Are you still there?" in sent


async def test_output_limit_is_continued_by_the_cli_itself(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    """The CLI 2.1.332 answers `stop_reason: max_tokens` by asking the model to go on, so the
    client sees one turn that ends normally, with both parts of the answer."""
    double.script(Answer("First half, ", stop_reason="max_tokens"), Answer("second half."))
    turn = await run_turn(adapter, "Write a lot")
    assert len(double.messages()) == 2
    assert "Output token limit hit" in str(double.messages()[1].body["messages"])
    assert turn.response.stop_reason == "end_turn"
    assert "".join(turn.texts()) == "First half, second half."
    assert turn.records() == []


async def test_error_event_mid_stream_is_retried_without_streaming(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    """An `error` event inside the stream (here overloaded_error) makes the CLI 2.1.332 ask again
    at once, without streaming; the plain JSON answer ends the turn normally."""
    double.script(StreamError("Partial wo"), Answer("Whole answer."))
    turn = await run_turn(adapter, "Try hard")
    assert [r.body["stream"] for r in double.messages()] == [True, False]
    assert turn.response.stop_reason == "end_turn"
    assert_broken_then(turn, "Whole answer.")
    assert turn.records() == []


REFUSAL_WORDS = "API Error: Opus 5.5's safeguards flagged this message"


async def test_refusal_ends_the_turn_as_refused_and_keeps_claudes_words(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    """The CLI 2.1.332 retries a refusal once, then sends `model_refusal_no_fallback`, a
    `<synthetic>` "API Error: … safeguards flagged this message …" (error kind
    invalid_request) and a result with `stop_reason: refusal`.
    docs/decisions.md#refusal-and-cancellation and #refusal-explanation: the turn ends `refusal`
    with no failure record; docs/decisions.md#error-prose-without-record (and
    docs/decisions.md#legacy-clients for legacy): Claude's words are not lost, they reach the client
    as agent text."""
    double.script(otherwise=Answer("I can't help with that.", stop_reason="refusal"))
    turn = await run_turn(adapter, "Something unsafe")
    assert len(double.messages()) == 2
    assert turn.response.stop_reason == "refusal"
    assert turn.records() == []
    assert REFUSAL_WORDS in "".join(turn.texts())


async def test_a_refused_permission_stops_the_real_tool(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    project = _project(adapter, f"refused-{uuid.uuid4().hex[:8]}")
    notes = str(project / "notes.txt")
    edit = ToolUse(
        "Edit",
        {"file_path": notes, "old_string": "alpha", "new_string": "omega"},
        text="I'll edit it.",
    )
    double.script(edit, Answer("Understood, no edit."))
    session_id = await adapter.new_session(cwd=project)
    adapter.client.permission = None  # this client refuses
    try:
        turn = await run_turn(adapter, "Change alpha", session_id)
    finally:
        adapter.client.permission = "allow"

    assert (project / "notes.txt").read_text(encoding="utf-8") == NOTES  # never edited
    assert edit.id in [r.tool_call_id for r in adapter.client.permission_requests]
    (result,) = double.messages()[1].tool_results()
    assert result["tool_use_id"] == edit.id and result.get("is_error") is True
    statuses = [u["status"] for u in turn.tool_calls()[edit.id] if u.get("status")]
    assert statuses[-1] == "failed"
    assert "".join(turn.texts()) == "I'll edit it.Understood, no edit."
    assert turn.response.stop_reason == "end_turn"
    assert turn.records() == []


async def test_thinking_arrives_as_thought_and_never_as_answer(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    thinking = "The user wants a number; 42 will do."
    double.script(Answer("Forty-two.", thinking=thinking))
    turn = await run_turn(adapter, "Think, then answer")
    assert turn.response.stop_reason == "end_turn"
    assert "".join(turn.texts()) == "Forty-two."
    thoughts = [str(u["content"].get("text", "")) for u in turn.updates("agent_thought_chunk")]
    assert "".join(thoughts) == thinking
