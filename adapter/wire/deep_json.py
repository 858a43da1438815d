"""JSON nested deeper than Python can parse, read anyway: the too-deep parts shown truncated.

Claude may send valid JSON nested thousands of levels deep (a tool input of 5,000 or 100,000
nested lists). The standard library's parser recurses once per level and raises
`RecursionError`, which ended the SDK's reader of Claude's stdout: the turn failed as a lost
connection and the answer was gone. `loads_shallow` parses such a text with every value below
`MAX_DEPTH` levels replaced by a string, `TRUNCATED` followed by the start of its raw text, so
the tool's card still opens (its raw input shown truncated) and the turn goes on. Everything
downstream (the SDK's parser, the view, `acp`'s deep copies, the encoders) then sees at most
`MAX_DEPTH` levels. The scan is one linear pass over the text, run only after the parser gave up.

A value so shortened is not the input Claude's tool runs with, so it must never go back to Claude
as one (`holds_truncation` lets the permission broker refuse rather than hand it back).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_DEPTH", "TRUNCATED", "holds_truncation", "loads_shallow"]

# Deep enough for any real tool input; shallow enough that every recursive walk downstream
# (a few Python frames per level) stays far from the interpreter's limit of 1,000.
MAX_DEPTH = 64
TRUNCATED = "\u2026 (nested too deeply to show) "
_SHOWN = 200  # how much of a too-deep value's raw text its stand-in keeps
_TOKENS = re.compile(r'["\[\]{}]')


def loads_shallow(text: str) -> Any:
    """`json.loads(text)`, with every value nested deeper than `MAX_DEPTH` as a stand-in string
    (ValueError for text that is not JSON)."""
    try:
        return json.loads(text)
    except RecursionError:
        pass
    try:
        return json.loads(_shallow(text))
    except RecursionError as exc:  # not reachable with MAX_DEPTH far below the limit
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
