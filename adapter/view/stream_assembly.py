"""Claude's partial messages (`stream_event`) as text and thought chunks, as they arrive.

Theory of operation: with partial messages on, Claude Code writes the Messages API stream
(`message_start`, `content_block_delta`, `message_stop`, …) before each finished `assistant`
message, and the finished message repeats the whole text. Each text or thinking delta goes out
at once as a chunk carrying the API message id (`messageId`, the id the finished message and
the transcript carry too, so replay shows the same ids). Per message id this module counts how
many characters streamed, so the finished message adds only what did not (`remainder`).

- A message Claude Code made up itself (model `<synthetic>`: API errors, limit notices) is not
  streamed: the core classifies it whole (docs/decisions.md#capable-clients and
  #error-prose-without-record).
- A subagent's stream (`parent_tool_use_id` set) is not the main answer and is not streamed.
- A message whose stream breaks (a new `message_start`, or another finished message, while it
  has streamed text but its own finished message never came: the request failed and Claude
  Code retried it, streamed or not, or gave up; or the turn ended) is closed with a visible
  marker under its own id, so nothing after it, the retry's text under a new id included, is
  glued to the broken attempt's. A `message_stop` does not end that wait: Claude Code stops
  an attempt's stream after an error event too, and then asks again without streaming.
- A delta without an open message, or of an unusable shape, is skipped (`MalformedStream`).

State is O(number of recent messages): counts, never the text.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["BROKEN_MARK", "MalformedStream", "StreamAssembly", "chunk"]

Wire = dict[str, Any]

# Ends the text of a streamed attempt that broke off; the retry follows as a new message.
BROKEN_MARK = "\u2026\n\n"
_SYNTHETIC = "<synthetic>"
_REMEMBERED = 256  # message ids whose streamed counts are kept for their finished message
_TEXT, _THINKING = 0, 1
_CHUNK_KINDS = ("agent_message_chunk", "agent_thought_chunk")


class MalformedStream(ValueError):
    """A stream event of a shape that cannot be used; the caller skips it and logs once."""


def chunk(kind: str, text: str, message_id: str | None) -> Wire:
    update: Wire = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if message_id is not None:
        update["messageId"] = message_id
    return update


@dataclass(slots=True)
class _Counts:
    streamed: list[int]  # characters streamed, per channel (text, thinking)
    consumed: list[int]  # of those, how many finished blocks have accounted for


class StreamAssembly:
    def __init__(self) -> None:
        self._open: str | None = None  # the top-level message streaming now
        # The latest message that streamed text (broken if no finished message accounts for it).
        self._unfinished: str | None = None
        self._counts: OrderedDict[str, _Counts] = OrderedDict()

    def event(self, event: object, parent: str | None) -> list[Wire]:
        """The chunks for one stream event (usually one, often none).

        Raises `MalformedStream` for an event that cannot be used.
        """
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
            raise MalformedStream("a stream event without a type")
        if parent is not None:
            return []
        kind = event["type"]
        if kind == "content_block_delta":
            return self._delta(event.get("delta"))
        if kind == "message_start":
            return self._start(event.get("message"))
        if kind == "message_stop":
            self._open = None
        return []

    def _start(self, message: object) -> list[Wire]:
        if not isinstance(message, Mapping) or not isinstance(message.get("id"), str):
            raise MalformedStream("message_start without a message id")
        closing = self.close_broken()
        if message.get("model") == _SYNTHETIC:
            return closing
        self._open = message["id"]
        self._counts[self._open] = _Counts([0, 0], [0, 0])
        while len(self._counts) > _REMEMBERED:
            self._counts.popitem(last=False)
        return closing

    def close_broken(self, unless: str | None = None) -> list[Wire]:
        """End the latest streamed message if its stream broke off: it streamed text that no
        finished message accounted for, and it is not `unless` (the message finishing now).
        Its text gets `BROKEN_MARK`, so nothing that follows is glued to it."""
        if self._open is not None and self._open != unless:
            self._open = None
        broken = self._unfinished
        if broken is None or broken == unless:
            return []
        self._unfinished = None
        counts = self._counts.get(broken)
        if counts is None or counts.streamed[_TEXT] <= counts.consumed[_TEXT]:
            return []
        return [chunk(_CHUNK_KINDS[_TEXT], BROKEN_MARK, broken)]

    def _delta(self, delta: object) -> list[Wire]:
        if not isinstance(delta, Mapping):
            raise MalformedStream("content_block_delta without a delta")
        kind = delta.get("type")
        if kind == "text_delta":
            channel, text = _TEXT, delta.get("text")
        elif kind == "thinking_delta":
            channel, text = _THINKING, delta.get("thinking")
        else:
            return []  # tool input and signatures arrive whole with the finished message
        if not isinstance(text, str):
            raise MalformedStream(f"{kind} without text")
        if self._open is None:
            raise MalformedStream(f"{kind} outside a message")
        counts = self._counts.get(self._open)
        if counts is None or not text:
            return []
        counts.streamed[channel] += len(text)
        if channel == _TEXT:
            self._unfinished = self._open
        return [chunk(_CHUNK_KINDS[channel], text, self._open)]

    def remainder(self, message_id: str | None, thinking: bool, text: str) -> str:
        """What of one finished block of `message_id` did not stream already."""
        counts = self._counts.get(message_id) if message_id is not None else None
        if counts is None:
            return text
        channel = _THINKING if thinking else _TEXT
        available = counts.streamed[channel] - counts.consumed[channel]
        if available >= len(text):
            counts.consumed[channel] += len(text)
            return ""
        counts.consumed[channel] = counts.streamed[channel]
        return text[max(0, available) :]
