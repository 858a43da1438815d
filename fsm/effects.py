"""Outputs of the session core: what the shell must do, in order.

Theory of operation: `SessionCore.handle` returns a list of these; the shell performs them one
after another before it feeds the next event. Exactly one of `SettlePrompt` or `RejectPrompt`
is ever returned per prompt. After performing a `PublishRecord`, the shell must report the
outcome with `DeliveryConfirmed` or `DeliveryFailed` (the h11 `send_failed` pattern).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from fsm.records import FailureRecord

__all__ = [
    "Effect",
    "ForwardAssistantMessage",
    "LogNotice",
    "PublishRecord",
    "RejectPrompt",
    "SendAgentText",
    "SettlePrompt",
    "StopReason",
]


class StopReason(StrEnum):
    END_TURN = "end_turn"
    MAX_TOKENS = "max_tokens"
    MAX_TURN_REQUESTS = "max_turn_requests"
    REFUSAL = "refusal"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True, kw_only=True)
class Effect:
    """Base of every output."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishRecord(Effect):
    """Send `record` in a `session_info_update`; then report delivery back to the core."""

    record: FailureRecord


@dataclass(frozen=True, slots=True, kw_only=True)
class SettlePrompt(Effect):
    """Answer the live prompt; a turn-terminal `record` rides on the response's `_meta`."""

    stop_reason: StopReason
    record: FailureRecord | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RejectPrompt(Effect):
    """Answer the live prompt with a JSON-RPC error (legacy clients only)."""

    code: int
    message: str
    error_kind: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ForwardAssistantMessage(Effect):
    """Stream the assistant message just handled to the client as usual."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SendAgentText(Effect):
    """Send adapter-chosen text as an `agent_message_chunk`."""

    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LogNotice(Effect):
    """Something was dropped on purpose; the shell logs it to stderr."""

    message: str
