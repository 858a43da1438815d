"""JSON for the bulk paths: transcript lines read on `session/load`, Claude's frames as a turn
streams, and frames written to stdout.

A replay of 100,000 transcript lines decodes 67 MB and encodes about 125,000 frames; with the
standard library that was about half of the adapter's CPU time. `orjson` does both
several times faster. Where it refuses a value the standard library takes (NaN when reading,
a lone surrogate, an integer beyond 64 bits when writing, a non-string key), the standard
library decides; and since orjson reads an integer beyond 64 bits as a float, a line with a
run of 19 digits or more is read by the standard library too, as is a line that is not UTF-8
(decoded first with U+FFFD for what is not, as text mode reads it). Two differences remain: in
form, non-ASCII text is written as UTF-8 rather than as `\\u` escapes (the same JSON), and a
NaN or infinite float (only a transcript line written with one can hold it) is written as
`null`, which every JSON reader takes, where the standard library wrote `NaN`, which strict
readers refuse along with the whole frame.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from adapter.wire.deep_json import loads_shallow, too_deep

__all__ = [
    "FAST_TEXT_LIMIT",
    "decode_line",
    "decode_object_fast",
    "encode_frame",
    "encode_json",
    "long_digit_runs",
]

_raw_decode = json.JSONDecoder().raw_decode
# 2**63 has 19 digits: a shorter run is an integer orjson reads exactly. Runs are found by
# turning every digit into "0" (bytes.translate and `in` are C loops; a regex was slower
# than the decoding it guards).
_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * 19
_encode = json.JSONEncoder(separators=(",", ":")).encode


def long_digit_runs(data: bytes, limit: int) -> list[int] | None:
    """Where `data` holds runs of 19 digits or more (integers orjson might not read exactly):
    their offsets, or None when there are more than `limit` of them. Asked once of many lines
    together, it spares `decode_line` asking each."""
    zeros = data.translate(_ZEROS)
    found: list[int] = []
    at = zeros.find(_LONG_RUN)
    while at >= 0:
        if len(found) == limit:
            return None
        found.append(at)
        at = zeros.find(_LONG_RUN, at + len(_LONG_RUN))
    return found


def decode_line(line: bytes, *, short_numbers: bool = False) -> Any:
    """`json.loads` of the line read as UTF-8 text (U+FFFD for bytes that are not): the same
    value, and ValueError for what it refuses. `short_numbers`: the caller has checked that
    the line has no run of 19 digits (`long_digit_runs`)."""
    if short_numbers or _LONG_RUN not in line.translate(_ZEROS):
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    # The standard library's wrapper without its cost (JSON's whitespace is these four).
    text = line.decode("utf-8", errors="replace").strip(" \t\n\r")
    if too_deep(text):  # the deepest values truncated, whatever this Python's parser would do
        return loads_shallow(text)
    try:
        value, end = _raw_decode(text)
    except RecursionError:  # not reachable past the scan; read shallow all the same
        return loads_shallow(text)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


# The fast read copies the line twice (its UTF-8 bytes, their digits zeroed): a streamed delta
# is a few hundred bytes, but a 100 MiB tool result would cost 200 MiB more at its peak.
FAST_TEXT_LIMIT = 1024 * 1024


def decode_object_fast(text: str) -> dict[str, Any] | None:
    """orjson's reading of one line of text holding a JSON object (a frame from Claude), or None
    wherever the standard library must decide: text that is not an object, a run of 19 digits
    or more, anything orjson refuses, a line over `FAST_TEXT_LIMIT` characters. Bound the
    depth first (`deep_json.too_deep`)."""
    if len(text) > FAST_TEXT_LIMIT:
        return None
    stripped = text.strip(" \t\n\r")
    if not stripped.startswith("{"):
        return None
    try:
        data = stripped.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the standard library reads it
        return None
    if _LONG_RUN in data.translate(_ZEROS):
        return None
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def encode_frame(message: Any) -> bytes:
    """One JSON-RPC frame: compact JSON and a newline, as UTF-8."""
    try:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:
        return (_encode(message) + "\n").encode("utf-8")


def encode_json(value: Any) -> bytes:
    """Compact JSON as UTF-8, no newline: a part of a frame (`encode_frame`'s rules)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return _encode(value).encode("utf-8")
