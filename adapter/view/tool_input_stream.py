"""A tool call's input as Claude streams it (`input_json_delta`): its top-level fields, each
as soon as it is whole.

Theory of operation: the input is one JSON object written in pieces. A small lexer follows
strings, escapes and nesting across pieces; a comma at the object's own level means the field
before it is complete, so that field's text alone is parsed (as `{<field>}`) and added to the
fields known so far. Each field's text is parsed once and then dropped, so the cost of a delta
is linear in its length and the memory is the field being written. The last field is never
parsed here: when the closing brace comes, the finished `assistant` message follows with the
whole input, and that is what the card ends with (`adapter.view.turn_view`).

Input that is not valid JSON (a field that does not parse, an array at the top, text after the
object) stops the scan for that call: the card keeps what it had and waits for the finished
message; input that never completes is closed by the turn's end like any open call. A field
larger than `FIELD_LIMIT` characters (a Write's whole file) is not buffered past the limit.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["FIELD_LIMIT", "InputScan"]

FIELD_LIMIT = 1 << 20
# Outside a string only these characters matter; inside one, only the quote and backslash.
_STRUCTURE = re.compile(r'["{}\[\],]')
_IN_STRING = re.compile(r'["\\]')
_BEFORE, _INSIDE, _AFTER = 0, 1, 2


class InputScan:
    """The streamed input of one call: `fields` grows by one each time a field completes."""

    __slots__ = ("_buffered", "_depth", "_escaped", "_in_string", "_piece", "_place", "fields")

    def __init__(self) -> None:
        self.fields: dict[str, Any] | None = {}  # None once the input proved unusable
        self._place = _BEFORE
        self._depth = 0  # nesting inside the object: 0 at its own level
        self._in_string = False
        self._escaped = False
        self._piece: list[str] = []  # the current field's text, as it came
        self._buffered = 0

    def feed(self, text: str) -> bool:
        """Take one piece of the input; True if a field completed (`fields` changed)."""
        if self.fields is None or self._place == _AFTER:
            return False
        grew = False
        start = 0 if self._place == _INSIDE else -1  # where this field's text began in `text`
        pos, end = 0, len(text)
        while pos < end:
            if self._escaped:
                self._escaped, pos = False, pos + 1
                continue
            if self._in_string:
                found = _IN_STRING.search(text, pos)
                if found is None:
                    break
                pos = found.end()
                if found.group() == "\\":
                    self._escaped = True
                else:
                    self._in_string = False
                continue
            found = _STRUCTURE.search(text, pos)
            if found is None:
                break
            char, pos = found.group(), found.end()
            if self._place == _BEFORE:
                if char != "{" or text[: found.start()].strip():
                    self.fields = None  # not an object: nothing to show before it is whole
                    return False
                self._place, start = _INSIDE, pos
            elif char == '"':
                self._in_string = True
            elif char in "{[":
                self._depth += 1
            elif char in "}]" and self._depth:
                self._depth -= 1
            elif char == "}":
                self._place, self._piece = _AFTER, []  # the finished message has the rest
                return grew
            elif char == ",":
                if self._depth == 0:
                    self._keep(text[start : found.start()])
                    grew |= self._complete()
                    if self.fields is None:
                        return False
                    start = pos
            else:
                self.fields = None  # "]" at the object's own level
                return False
        if start >= 0 and self._place == _INSIDE:
            self._keep(text[start:])
        elif self._place == _BEFORE and text.strip():
            self.fields = None
        return grew

    def _keep(self, text: str) -> None:
        if self._buffered <= FIELD_LIMIT:
            self._piece.append(text)
        self._buffered += len(text)

    def _complete(self) -> bool:
        piece, buffered = "".join(self._piece), self._buffered
        self._piece, self._buffered = [], 0
        if buffered > FIELD_LIMIT:
            return False  # too large to show early; the finished message brings it
        try:
            field = json.loads("{" + piece + "}")
        except ValueError:
            self.fields = None
            return False
        if not isinstance(field, dict) or self.fields is None:
            return False
        self.fields.update(field)
        return bool(field)
