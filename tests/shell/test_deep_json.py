"""`adapter.wire.deep_json`: JSON too deep for the standard library read with its deepest values
truncated, and the transcript decoder taking such a line on replay."""

from __future__ import annotations

import json

import pytest

from adapter.wire.deep_json import MAX_DEPTH, TRUNCATED, holds_truncation, loads_shallow, too_deep
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


# --- bounded before parsing, the same outcome on every Python (3.11 to 3.13) ------------------


def test_the_depth_scan_counts_structure_not_strings() -> None:
    assert not too_deep("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert too_deep("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert too_deep('{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1))
    # Brackets in strings, escaped quotes included, are text.
    assert not too_deep(json.dumps({"s": "[" * 5000, "t": '\\"[[[' * 100}))
    # Wide is not deep.
    assert not too_deep(json.dumps([[1]] * 10000))


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 5000, 100000])
def test_a_client_frame_nested_too_deeply_is_refused_before_parsing(levels: int) -> None:
    from adapter.wire.guard_rules import parse

    line = b'{"jsonrpc":"2.0","id":1,"method":"x","params":' + b"[" * levels + b"]" * levels
    with pytest.raises(ValueError, match="nested too deeply"):
        parse(line + b"}")
    fine = b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1)
    assert parse(b'{"jsonrpc":"2.0","id":1,"params":' + fine + b"}")["id"] == 1


@pytest.mark.parametrize("levels", [5000, 100000])
def test_a_claude_frame_nested_too_deeply_is_read_truncated(levels: int) -> None:
    from claude_agent_sdk._internal.transport import subprocess_cli

    from adapter.claude import sdk_compat

    sdk_compat._read_deep_frames_shallow()
    deep = "[" * levels + "1" + "]" * levels
    frame = subprocess_cli._parse_stdout_line(f'{{"type":"x","kept":"yes","input":{deep}}}\n')
    assert frame is not None and frame["kept"] == "yes" and holds_truncation(frame)
    assert 1 + _depth(frame["input"]) == MAX_DEPTH
