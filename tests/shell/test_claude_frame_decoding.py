"""Claude's frames read fast (`json_codec.decode_object_fast`, used by the SDK's line parser as
patched in `adapter.claude.sdk_compat`): the same value `json.loads` gives, or None wherever the
standard library must decide; never a different value."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter.wire.json_codec import FAST_TEXT_LIMIT, decode_object_fast

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), _values, max_size=6), st.booleans())
def test_a_fast_read_is_the_standard_librarys_value(obj: dict[str, Any], ascii_only: bool) -> None:
    line = json.dumps(obj, ensure_ascii=ascii_only)
    fast = decode_object_fast(line)
    if fast is not None:
        assert fast == json.loads(line)
        assert json.dumps(fast, sort_keys=True) == json.dumps(json.loads(line), sort_keys=True)


@pytest.mark.parametrize(
    "line",
    [
        '{"n": 123456789012345678901}',  # beyond 64 bits: orjson would read a float
        '{"n": -9223372036854775809}',
        '{"x": NaN}',  # the standard library reads NaN, orjson refuses it
        '{"s": "\\ud800"}',  # a lone surrogate escape
        "[1, 2]",  # not an object
        "[SandboxDebug] not json",
        '{"a": 1} trailing',
        "",
    ],
)
def test_what_orjson_would_read_differently_is_left_to_the_standard_library(line: str) -> None:
    assert decode_object_fast(line) is None


def test_a_streamed_delta_is_read_fast_with_its_text_exact() -> None:
    frame = {
        "type": "stream_event",
        "uuid": "7b1c2d3e-1111-2222-3333-444455556666",
        "event": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "é 😀\n"}},
        "n": 1234567890123456789,  # 19 digits: left to the standard library
    }
    assert decode_object_fast(json.dumps(frame)) is None
    del frame["n"]
    assert decode_object_fast(json.dumps(frame) + "\r\n") == frame


def test_the_sdk_reads_claudes_lines_through_the_fast_path() -> None:
    from claude_agent_sdk._internal.transport import subprocess_cli

    from adapter.claude.sdk_compat import _read_deep_frames_shallow

    _read_deep_frames_shallow()
    parse = subprocess_cli._parse_stdout_line
    assert parse('{"type": "result", "n": 123456789012345678901}') == {
        "type": "result",
        "n": 123456789012345678901,
    }
    assert parse('{"type": "assistant", "x": 1.5}') == {"type": "assistant", "x": 1.5}
    assert parse("  ") is None


def test_a_line_over_the_fast_limit_is_left_to_the_standard_library() -> None:
    # The fast read copies its line twice; a huge tool result must not pay that at its peak.
    small = json.dumps({"text": "x" * 100})
    huge = json.dumps({"text": "x" * FAST_TEXT_LIMIT})
    assert decode_object_fast(small) == {"text": "x" * 100}
    assert decode_object_fast(huge) is None
