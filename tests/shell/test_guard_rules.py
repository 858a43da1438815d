"""The guard's rules alone (`adapter/wire/guard_rules.py`): the line splitter cuts and
bounds lines, and every value that is not a request gets the JSON-RPC 2.0 answer the spec
requires. The same rules through the real agent process are in `tests/e2e/test_wire_guard.py`.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapter.wire.guard_rules import LineSplitter, judge

INVALID = -32600

# --- the splitter -----------------------------------------------------------------------------


def _split(chunks: list[bytes], limit: int = 10) -> list[bytes | None]:
    splitter = LineSplitter(limit)
    lines: list[Any] = []
    for chunk in chunks:
        lines.extend(splitter.push(chunk))
    lines.extend(splitter.finish())
    return [None if line is None else bytes(line) for line in lines]


def test_lines_are_cut_at_newlines_across_chunks() -> None:
    assert _split([b"ab\ncd", b"e\n", b"\nf"]) == [b"ab", b"cde", b"", b"f"]


def test_a_line_over_the_limit_is_dropped_and_the_next_one_kept() -> None:
    assert _split([b"0123456789\n", b"01234567890\nok\n"]) == [b"0123456789", None, b"ok"]
    # Over the limit while it streams in, in many chunks, and unterminated at the end.
    assert _split([b"012345", b"6789ab", b"cdef\nok\n", b"x" * 30]) == [None, b"ok", None]


def test_the_splitter_never_holds_more_than_the_limit() -> None:
    splitter = LineSplitter(100)
    for _ in range(1000):
        assert splitter.push(b"y" * 64) == []
        assert len(splitter._buffer) <= 100


# --- the verdicts -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "code", "answer_id"),
    [
        ([], INVALID, None),
        (42, INVALID, None),
        ("s", INVALID, None),
        (None, INVALID, None),
        (True, INVALID, None),
        ({}, INVALID, None),
        ({"jsonrpc": "2.0", "id": 1, "method": 7}, INVALID, 1),
        ({"jsonrpc": "2.0", "id": 1, "method": ["x"]}, INVALID, 1),
        ({"jsonrpc": "2.0", "method": {"a": 1}}, INVALID, None),
        ({"jsonrpc": "2.0", "id": {"x": 1}, "method": "initialize"}, INVALID, None),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "initialize"}, INVALID, None),
        ({"jsonrpc": "2.0", "id": True, "method": "initialize"}, INVALID, None),
        ({"jsonrpc": "1.0", "id": 3, "method": "initialize"}, INVALID, 3),
        ({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": 5}, INVALID, 4),
        ({"jsonrpc": "2.0", "id": 5, "result": None}, None, None),  # a response: passed on
    ],
)
def test_a_value_that_is_not_a_request_is_invalid(value: Any, code: int, answer_id: Any) -> None:
    message, reply, _ = judge(value, initialized=True)
    if code is None:
        assert message is value and reply is None
        return
    assert message is None and isinstance(reply, dict)
    assert reply["error"]["code"] == code and reply["id"] == answer_id
    assert reply["jsonrpc"] == "2.0" and isinstance(reply["error"]["data"]["reason"], str)


def test_a_batch_gets_one_answer_per_request_in_it() -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize"},
        {"jsonrpc": "2.0", "method": "session/cancel"},  # a notification: no answer
        5,
        {"jsonrpc": "2.0", "id": 9, "result": {}},  # a response: answered, never under its id
    ]
    _, reply, _ = judge(batch, initialized=True)
    assert isinstance(reply, list)
    assert [(r["id"], r["error"]["code"]) for r in reply] == [
        (1, INVALID),
        (None, INVALID),
        (None, INVALID),
    ]
    assert judge([{"jsonrpc": "2.0", "method": "x"}], initialized=True)[1] is None


def test_before_initialize_only_initialize_passes() -> None:
    early = {"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": {}}
    message, reply, _ = judge(early, initialized=False)
    assert message is None and isinstance(reply, dict) and reply["id"] == 7
    assert reply["error"]["code"] == INVALID
    note = {"jsonrpc": "2.0", "method": "session/cancel", "params": {}}
    assert judge(note, initialized=False)[:2] == (None, None)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    assert judge(init, initialized=False)[0] is init
