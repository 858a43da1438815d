"""JSON nested deeper than the adapter walks, bounded before it is parsed.

Claude may send valid JSON nested thousands of levels deep (a tool input of 5,000 or 100,000
nested lists), and so may a client. Whether the standard library's parser refuses such a text
depends on the Python version (3.11 and 3.12 raise `RecursionError` at 5,000 levels, 3.13 parses
it and leaves every recursive walk downstream to fail later), so nothing here waits for that
exception: `too_deep` scans the text first, one linear pass that skips strings, and says whether
it nests more than `MAX_DEPTH` levels. Deeper than that, a client's frame is refused as not
parsable (`adapter.wire.guard_rules`), and Claude's frame is read by `loads_shallow` with every
value below `MAX_DEPTH` levels replaced by a string, `TRUNCATED` followed by the start of its raw
text, so the tool's card still opens (its raw input shown truncated) and the turn goes on. The
same text gets the same outcome on every Python from 3.11 to 3.13. Everything downstream (the
SDK's parser, the view, `acp`'s deep copies, the encoders) then sees at most `MAX_DEPTH` levels.

A value so shortened is not the input Claude's tool runs with, so it must never go back to Claude
as one (`holds_truncation` lets the permission broker refuse rather than hand it back).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_DEPTH", "TRUNCATED", "holds_truncation", "loads_shallow", "too_deep"]

# Deep enough for any real tool input; shallow enough that every recursive walk downstream
# (a few Python frames per level) stays far from the interpreter's limit of 1,000.
MAX_DEPTH = 64
TRUNCATED = "\u2026 (nested too deeply to show) "
_SHOWN = 200  # how much of a too-deep value's raw text its stand-in keeps
_TOKENS = re.compile(r'["\[\]{}]')


# A JSON string (escapes included), and a bracket outside one.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether `text` nests arrays and objects more than `limit` levels deep (brackets inside
    strings do not count). Text that is not JSON may be called either; the parser then says."""
    if text.count("[") + text.count("{") <= limit:
        return False  # the common case, at the speed of two counts
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def loads_shallow(text: str) -> Any:
    """`json.loads(text)`, with every value nested deeper than `MAX_DEPTH` as a stand-in string
    (ValueError for text that is not JSON)."""
    if not too_deep(text):
        return json.loads(text)
    try:
        return json.loads(_shallow(text))
    except RecursionError as exc:  # not reachable: the scan left at most MAX_DEPTH levels
        raise ValueError("nested too deeply") from exc


def _shallow(text: str) -> str:
    pieces: list[str] = []
    copied = 0  # text before this is in `pieces` (or is a skipped too-deep value)
    depth = 0
    skip_from: int | None = None  # where the too-deep value being skipped began
    in_string = False
    for match in _TOKENS.finditer(text):
        at, token = match.start(), match.group()
        if in_string:
            # Inside a string only its closing quote matters (brackets there are text).
            in_string = token != '"' or _escaped_quote(text, at)
            continue
        if token == '"':
            in_string = True
        elif token in "[{":
            depth += 1
            if depth > MAX_DEPTH and skip_from is None:
                pieces.append(text[copied:at])
                skip_from = at
        elif token in "]}":
            depth -= 1
            if skip_from is not None and depth == MAX_DEPTH:
                pieces.append(json.dumps(TRUNCATED + text[skip_from : skip_from + _SHOWN]))
                copied, skip_from = at + 1, None
    if skip_from is not None:  # unterminated: what is left fails to parse, as it should
        pieces.append(json.dumps(TRUNCATED + text[skip_from : skip_from + _SHOWN]))
        copied = len(text)
    pieces.append(text[copied:])
    return "".join(pieces)


def _escaped_quote(text: str, at: int) -> bool:
    """Whether the quote at `at` is escaped: preceded by an odd number of backslashes."""
    run = at
    while run > 0 and text[run - 1] == "\\":
        run -= 1
    return (at - run) % 2 == 1


def holds_truncation(value: Any) -> bool:
    """Whether `value` holds a stand-in `loads_shallow` made (walked without recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item.startswith(TRUNCATED):
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
