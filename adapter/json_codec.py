"""JSON for the bulk paths: transcript lines read on `session/load` and frames written to stdout.

A replay of 100,000 transcript lines decodes 67 MB and encodes about 125,000 frames; with the
standard library that was about half of the adapter's CPU time (issue 15). `orjson` does both
several times faster. Where it refuses a value the standard library takes (NaN when reading,
a lone surrogate, an integer beyond 64 bits when writing, a non-string key), the standard
library decides; and since orjson reads an integer beyond 64 bits as a float, a line with a
run of 19 digits or more is read by the standard library too. Two differences remain: in
form, non-ASCII text is written as UTF-8 rather than as `\\u` escapes (the same JSON), and a
NaN or infinite float (only a transcript line written with one can hold it) is written as
`null`, which every JSON reader takes, where the standard library wrote `NaN`, which strict
readers refuse along with the whole frame.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = ["decode_line", "encode_frame"]

_raw_decode = json.JSONDecoder().raw_decode
# 2**63 has 19 digits: a shorter run is an integer orjson reads exactly.
_LONG_DIGITS = re.compile(r"\d{19}")
_encode = json.JSONEncoder(separators=(",", ":")).encode


def decode_line(line: str) -> Any:
    """`json.loads(line)`: the same value, and ValueError for what it refuses."""
    if _LONG_DIGITS.search(line) is None:
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    # The standard library's wrapper without its cost (JSON's whitespace is these four).
    text = line.strip(" \t\n\r")
    value, end = _raw_decode(text)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def encode_frame(message: Any) -> bytes:
    """One JSON-RPC frame: compact JSON and a newline, as UTF-8."""
    try:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:
        return (_encode(message) + "\n").encode("utf-8")
