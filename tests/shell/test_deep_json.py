"""`adapter.wire.deep_json`: JSON too deep for the standard library read with its deepest values
truncated, and the transcript decoder taking such a line on replay."""

from __future__ import annotations

import json

import pytest

from adapter.wire.deep_json import MAX_DEPTH, TRUNCATED, holds_truncation, loads_shallow
from adapter.wire.json_codec import decode_line


def _depth(value: object) -> int:
    depth = 0
    while isinstance(value, list | dict):
        value = value[0] if isinstance(value, list) else next(iter(value.values()))
        depth += 1
    return depth


@pytest.mark.parametrize("levels", [5000, 100000])
def test_a_deep_value_is_cut_at_the_limit_and_its_neighbours_kept(levels: int) -> None:
    text = '{"s": "]}[{\\\\\\" x", "deep": ' + "[" * levels + "1" + "]" * levels + ', "n": 2}'
    value = loads_shallow(text)
    assert value["s"] == ']}[{\\" x'  # brackets and an escaped quote inside a string
    assert value["n"] == 2 and holds_truncation(value)
    assert 1 + _depth(value["deep"]) == MAX_DEPTH
    cut = value["deep"]
    while isinstance(cut, list):
        cut = cut[0]
    assert cut.startswith(TRUNCATED + "[[[")
    replayed = decode_line(text.encode())  # the transcript reader takes it too
    assert replayed["n"] == 2 and holds_truncation(replayed)


def test_shallow_json_is_read_exactly_and_bad_json_still_fails() -> None:
    text = json.dumps({"a": [[["x"]]], "b": "[[["})
    assert loads_shallow(text) == json.loads(text) and not holds_truncation(json.loads(text))
    with pytest.raises(ValueError):
        loads_shallow("[" * 5000)
