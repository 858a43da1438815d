"""Tool input as it streams, in process: the lexer that finds each completed field, and the card
refinements the turn view sends for them (the frames end to end:
`tests/shell/test_session_state.py`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapter.view.tool_input_stream import FIELD_LIMIT, InputScan
from adapter.view.turn_view import TurnView


def _fields_after_each(pieces: list[str]) -> list[dict[str, Any] | None]:
    scan = InputScan()
    seen: list[dict[str, Any] | None] = []
    for piece in pieces:
        if scan.feed(piece):
            seen.append(dict(scan.fields or {}))
    seen.append(None if scan.fields is None else dict(scan.fields))
    return seen


def test_each_field_shows_once_it_is_complete_and_the_last_never_streams() -> None:
    data = {"command": 'echo "a, {b}" \\\\ [c]', "opts": {"x": [1, 2], "y": ","}, "n": 3}
    text = json.dumps(data)
    # Any cut gives the same fields: escapes, quotes, commas in strings and nesting
    # split across pieces included.
    for size in (1, 2, 3, 7, len(text)):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        seen = _fields_after_each(pieces)
        assert seen[-1] == {"command": data["command"], "opts": data["opts"]}, size
        if size < 10:
            assert seen[:2] == [{"command": data["command"]}, seen[-1]]


@pytest.mark.parametrize(
    "pieces",
    [
        ['["not", ', '"an object"]'],  # an array at the top
        ['{"a": tru', "x,", ' "b": 1}'],  # a field that does not parse
        ['x{"a": 1,'],  # text before the object
        ['{"a": 1]', ', "b": 2}'],  # a bracket at the object's own level
    ],
)
def test_input_that_is_not_json_stops_the_scan(pieces: list[str]) -> None:
    scan = InputScan()
    assert not any(scan.feed(piece) for piece in pieces)
    assert scan.fields is None
    assert scan.feed(', "c": 3,') is False


def test_a_huge_field_is_not_buffered_and_the_scan_goes_on() -> None:
    scan = InputScan()
    assert scan.feed('{"content": "') is False
    for _ in range(FIELD_LIMIT // 65536 + 2):
        scan.feed("x" * 65536)
    assert sum(map(len, scan._piece)) <= FIELD_LIMIT + 65536
    assert scan.feed('", "file_path": "/w/a",') is True  # the huge field is left out
    assert scan.fields == {"file_path": "/w/a"}


def _start(index: int, tool_id: str, name: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": tool_id, "name": name, "input": {}}
    return {"type": "content_block_start", "index": index, "content_block": block}


def _piece(index: int, text: str) -> dict[str, Any]:
    delta = {"type": "input_json_delta", "partial_json": text}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def test_a_streamed_read_opens_pending_and_is_refined_field_by_field() -> None:
    view = TurnView(cwd="/w", live=True)
    view.stream_event({"type": "message_start", "message": {"id": "m1", "model": "x"}}, None)
    opened = view.stream_event(_start(1, "t1", "Read"), None)
    assert opened == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "name": "Read",
            "title": "Read",
            "kind": "read",
            "status": "pending",
            "rawInput": {},
            "content": [],
            "locations": [],
            "_meta": {"claudeCode": {"toolName": "Read"}},
        }
    ]
    refined = []
    for text in ('{"file_path": "/w/a', '.py", "off', 'set": 4, "limit":', " 2}"):
        refined += view.stream_event(_piece(1, text), None)
    meta = {"claudeCode": {"toolName": "Read"}}
    assert refined == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "rawInput": {"file_path": "/w/a.py"},
            "title": "Read a.py",
            "locations": [{"path": "/w/a.py"}],
            "_meta": meta,
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "rawInput": {"file_path": "/w/a.py", "offset": 4},
            "title": "Read a.py (from line 4)",
            "locations": [{"path": "/w/a.py", "line": 4}],
            "_meta": meta,
        },
    ]
    # The finished message fills the card in whole, as before.
    use = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/a.py"}}
    [filled, running] = view.assistant([use], message_id="m1", parent=None)
    assert (filled["sessionUpdate"], filled["rawInput"], "status" in filled) == (
        "tool_call_update",
        {"file_path": "/w/a.py"},
        False,
    )
    assert running["status"] == "in_progress"


def test_an_edit_refinement_never_carries_a_partial_diff() -> None:
    view = TurnView(cwd="/w", live=True)
    view.stream_event(_start(0, "t2", "Edit"), None)
    updates = view.stream_event(_piece(0, '{"file_path": "/w/b.py", "old_string": "x",'), None)
    assert [("content" in u, u.get("title")) for u in updates] == [(False, "Edit b.py")]
    assert updates[0]["rawInput"] == {"file_path": "/w/b.py", "old_string": "x"}
    # Only what changed: the next field changes neither title nor locations.
    [again] = view.stream_event(_piece(0, ' "new_string": "y", "replace_all": false}'), None)
    assert sorted(again) == ["_meta", "rawInput", "sessionUpdate", "toolCallId"]


def test_input_that_never_completes_fails_the_card_at_the_turns_end() -> None:
    view = TurnView(cwd="/w", live=True)
    view.stream_event(_start(0, "t3", "Bash"), None)
    assert view.stream_event(_piece(0, '{"command": "ls" "oops",'), None) == []
    assert view.stream_event(_piece(0, ' "description": "x",'), None) == []
    assert view.stream_event(_piece(5, '{"a": 1,'), None) == []  # a block never started
    assert view.close_open_calls() == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "t3", "status": "failed"}
    ]
