"""Claude Code's messages as they come, for a client that asks for them (tooling, debugging).

Theory of operation: a client that opens a session (`session/new`, `load`, `resume`, `fork`)
with `_meta.claudeCode.emitRawSDKMessages` gets, beside the usual updates, every message
Claude Code's process sends the session as an ACP extension notification
`_claude/sdkMessage {sessionId, message}`, `message` being the frame as Claude Code wrote it,
as the reference adapter sends them (`shouldEmitRawMessage`:
docs/reference-adapter.md#raw-messages):

| `emitRawSDKMessages`                                  | what is sent                        |
|-------------------------------------------------------|-------------------------------------|
| absent, `null` or `false`                             | nothing (the default)               |
| `true`                                                | every message                       |
| a list of `{type, subtype?, origin?}`                 | the messages one filter matches:    |
|                                                       | its `type`, its `subtype` if named, |
|                                                       | its `origin.kind` if named          |

Control requests and answers between the adapter and Claude Code are not messages of the
session, and are never sent. Anything else (a string, a filter without a string `type`, a key
no filter has) is refused when the session opens, naming what is wrong: the reference would
fail on it at the first message instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fsm.errors import PeerViolation

__all__ = ["RAW_MESSAGE_METHOD", "RawMessageChoice", "raw_message_choice"]

RAW_MESSAGE_METHOD = "_claude/sdkMessage"
_FILTER_KEYS = frozenset({"type", "subtype", "origin"})
_SHAPE = "must be a boolean or a list of {type, subtype?, origin?} filters"


@dataclass(frozen=True, slots=True)
class _Filter:
    type: str
    subtype: str | None = None
    origin: str | None = None

    def matches(self, frame: Mapping[str, Any]) -> bool:
        if frame.get("type") != self.type:
            return False
        if self.subtype is not None and frame.get("subtype") != self.subtype:
            return False
        if self.origin is None:
            return True
        origin = frame.get("origin")
        return isinstance(origin, Mapping) and origin.get("kind") == self.origin


@dataclass(frozen=True, slots=True)
class RawMessageChoice:
    """Which of Claude Code's messages the client asked to see raw."""

    everything: bool = False
    filters: tuple[_Filter, ...] = ()

    @property
    def wanted(self) -> bool:
        """Whether any message at all is to be sent."""
        return self.everything or bool(self.filters)

    def sends(self, frame: object) -> bool:
        """Whether this message of Claude Code's goes to the client raw."""
        if not isinstance(frame, Mapping):
            return False
        if frame.get("type") in ("control_request", "control_response", "control_cancel_request"):
            return False
        return self.everything or any(f.matches(frame) for f in self.filters)


NOTHING = RawMessageChoice()


def _filter(value: object, index: int) -> _Filter:
    if not isinstance(value, Mapping) or not isinstance(value.get("type"), str):
        raise PeerViolation(f"filter {index} {_SHAPE}")
    unknown = sorted(str(k) for k in value if k not in _FILTER_KEYS)
    if unknown:
        raise PeerViolation(f"filter {index} has unknown keys: {', '.join(unknown)[:100]}")
    for key in ("subtype", "origin"):
        if value.get(key) is not None and not isinstance(value.get(key), str):
            raise PeerViolation(f"filter {index}: {key} must be a string")
    return _Filter(type=value["type"], subtype=value.get("subtype"), origin=value.get("origin"))


def raw_message_choice(value: object) -> RawMessageChoice:
    """The client's `_meta.claudeCode.emitRawSDKMessages`, checked; `PeerViolation` (its words
    say what is wrong) for a value of another shape."""
    if value is None or value is False:
        return NOTHING
    if value is True:
        return RawMessageChoice(everything=True)
    if not isinstance(value, list):
        raise PeerViolation(_SHAPE)
    return RawMessageChoice(filters=tuple(_filter(item, i) for i, item in enumerate(value)))
