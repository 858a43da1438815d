"""Partial messages (`--include-partial-messages`): the Messages API stream the real CLI writes
as `stream_event` frames around each assistant message it finishes.

Theory of operation: for one model message the CLI writes `message_start` (with the API message
id the finished `assistant` frame repeats), then per content block `content_block_start`, its
deltas (`text_delta`, `thinking_delta`, `input_json_delta`) and `content_block_stop`, then, after
the finished message, `message_delta` and `message_stop`. `split` cuts a text into the deltas
the model would send: a few words each, or exactly `count` pieces when a script asks for that.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adapter.scripted_claude.frames import Frame, message_id, new_uuid
from adapter.scripted_claude.wire import Inbox

__all__ = [
    "Streamer",
    "block_events",
    "content_events",
    "event_frame",
    "message_start",
    "message_stop",
    "split",
]

_WORDS_PER_DELTA = 3


def split(text: str, count: int | None = None) -> list[str]:
    """`text` as consecutive deltas that join back to it exactly."""
    if not text:
        return []
    if count is not None and count > 0:
        size = max(1, -(-len(text) // count))
        return [text[i : i + size] for i in range(0, len(text), size)]
    pieces: list[str] = []
    words = text.split(" ")
    for i in range(0, len(words), _WORDS_PER_DELTA):
        piece = " ".join(words[i : i + _WORDS_PER_DELTA])
        pieces.append(piece if i + _WORDS_PER_DELTA >= len(words) else piece + " ")
    return pieces


def event_frame(
    event: Mapping[str, Any],
    *,
    session_id: str,
    user_message_uuid: str | None,
    parent: str | None = None,
) -> Frame:
    """`parent`: the Agent call whose subagent streams (None: the main conversation)."""
    frame: Frame = {
        "type": "stream_event",
        "uuid": new_uuid(),
        "session_id": session_id,
        "event": dict(event),
        "parent_tool_use_id": parent,
    }
    if user_message_uuid is not None:
        frame["user_message_uuid"] = user_message_uuid
    return frame


def message_start(message_id: str, model: str) -> Frame:
    return {
        "type": "message_start",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 24, "output_tokens": 1},
        },
    }


def message_stop(stop_reason: str | None, output_tokens: int) -> list[Frame]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


def _start_block(block: Mapping[str, Any]) -> Frame:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": ""}
    if kind == "thinking":
        return {"type": "thinking", "thinking": "", "signature": ""}
    return {"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": {}}


def block_events(
    index: int,
    block: Mapping[str, Any],
    count: int | None,
    pieces: Sequence[str] | None = None,
) -> Iterator[tuple[Frame, bool]]:
    """The events of one content block, each with whether it carries a delta to pace
    (`pieces`: a tool call's input deltas, exactly)."""
    start = {"type": "content_block_start", "index": index, "content_block": _start_block(block)}
    yield start, False
    kind = block.get("type")
    if kind == "text":
        for piece in split(str(block.get("text", "")), count):
            yield _delta(index, {"type": "text_delta", "text": piece}), True
    elif kind == "thinking":
        for piece in split(str(block.get("thinking", "")), count):
            yield _delta(index, {"type": "thinking_delta", "thinking": piece}), True
        signature = {"type": "signature_delta", "signature": block.get("signature", "")}
        yield _delta(index, signature), False
    elif kind == "tool_use":
        raw = json.dumps(block.get("input", {}))
        for piece in pieces if pieces is not None else split(raw, 4 if len(raw) > 8 else 1):
            yield _delta(index, {"type": "input_json_delta", "partial_json": piece}), True
    yield {"type": "content_block_stop", "index": index}, False


def _delta(index: int, delta: Frame) -> Frame:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def content_events(
    content: Sequence[Mapping[str, Any]],
    count: int | None,
    pieces: Sequence[str] | None = None,
) -> Iterator[tuple[Frame, bool]]:
    for index, block in enumerate(content):
        yield from block_events(index, block, count, pieces)


@dataclass(frozen=True, slots=True, kw_only=True)
class Streamer:
    """Writes one turn's stream events; `inbox` tells it of an interrupt (and paces it)."""

    emit: Callable[[Frame], None]
    session_id: str
    user_message_uuid: str | None
    inbox: Inbox
    parent: str | None = None  # the Agent call whose subagent streams

    def event(self, event: Mapping[str, Any]) -> None:
        frame = event_frame(
            event,
            session_id=self.session_id,
            user_message_uuid=self.user_message_uuid,
            parent=self.parent,
        )
        self.emit(frame)

    def open(
        self,
        ident: str,
        model: str,
        content: Sequence[Mapping[str, Any]],
        count: int | None,
        pace: float,
        pieces: Sequence[str] | None = None,
    ) -> bool:
        """`message_start` and every block's events, pausing `pace` before each delta; False
        if the turn was interrupted meanwhile (the message then stays unfinished)."""
        self.event(message_start(ident, model))
        for event, paced in content_events(content, count, pieces):
            if paced and pace > 0 and self.inbox.wait(pace, lambda: False):
                return False
            if self.inbox.interrupted:
                return False
            self.event(event)
        return True

    def close(self, stop_reason: str | None, output_tokens: int) -> None:
        for event in message_stop(stop_reason, output_tokens):
            self.event(event)

    def unfinished_call(self, model: str, block: Mapping[str, Any], pieces: Sequence[str]) -> None:
        """A message whose stream stops while it writes a tool call's input (after `pieces`)."""
        self.event(message_start(message_id(), model))
        for event, _ in block_events(0, block, None, pieces):
            if event["type"] == "content_block_stop":
                return
            self.event(event)

    def broken(self, model: str, text: str, deltas: int) -> None:
        """A message whose stream stops after `deltas` text deltas: no stop, no message."""
        self.event(message_start(message_id(), model))
        self.event(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": _start_block({"type": "text"}),
            }
        )
        for piece in split(text)[:deltas]:
            self.event(_delta(0, {"type": "text_delta", "text": piece}))
