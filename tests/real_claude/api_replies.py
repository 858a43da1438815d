"""What the Messages API double can answer, and how each answer looks on the wire.

Shapes follow the real API (https://docs.anthropic.com/en/api/messages-streaming and
/en/api/errors): a streamed message is `message_start`, `ping`, then per content block
`content_block_start`, its deltas, `content_block_stop`, then `message_delta` (the stop reason)
and `message_stop`; a plain message is one JSON object; an error is
`{"type": "error", "error": {"type", "message"}, "request_id"}`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Answer",
    "ApiError",
    "CutStream",
    "Reply",
    "Reset",
    "Stall",
    "StreamError",
    "ToolUse",
    "bad_request",
    "blocks",
    "credit_balance_too_low",
    "error_body",
    "events",
    "internal_error",
    "message",
    "overloaded",
    "rate_limited",
    "sse",
    "stop_reason",
    "subscription_limit",
    "subscription_warning",
    "unauthorized",
]


@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    # How many deltas the text is cut into (the CLI must put them back together).
    pieces: int = 3
    stop_reason: str = "end_turn"  # or "max_tokens", "refusal", …
    thinking: str = ""  # a thinking block before the text, when given
    # Response headers (a subscription's `anthropic-ratelimit-unified-*`, say).
    headers: tuple[tuple[str, str], ...] = ()
    # The prompt's size as the API reports it (a long conversation's, to compact).
    input_tokens: int = 12
    # The prompt cache the request wrote to (`1h`, `5m`: its `usage.cache_creation`), if any.
    cache_ttl: str | None = None


@dataclass(frozen=True, slots=True)
class ToolUse:
    name: str
    input: dict[str, Any]
    id: str = field(default_factory=lambda: f"toolu_{uuid.uuid4().hex[:24]}")
    text: str = ""  # optional prose before the tool call


@dataclass(frozen=True, slots=True)
class ApiError:
    status: int
    type: str
    message: str
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class CutStream:
    text: str  # streamed before the connection drops


@dataclass(frozen=True, slots=True)
class StreamError:
    """A stream that starts, then carries an `error` event (the API's mid-stream failure)."""

    text: str
    type: str = "overloaded_error"
    message: str = "Overloaded"


@dataclass(frozen=True, slots=True)
class Reset:
    pass


@dataclass(frozen=True, slots=True)
class Stall:
    then: Answer | ToolUse | ApiError


Reply = Answer | ToolUse | ApiError | CutStream | StreamError | Reset | Stall


def unauthorized() -> ApiError:
    return ApiError(401, "authentication_error", "invalid x-api-key")


def rate_limited(retry_after: int = 1) -> ApiError:
    return ApiError(
        429,
        "rate_limit_error",
        "This request would exceed the rate limit for your organization of 50 requests per "
        "minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.",
        (("retry-after", str(retry_after)),),
    )


def overloaded() -> ApiError:
    return ApiError(529, "overloaded_error", "Overloaded")


def internal_error() -> ApiError:
    return ApiError(500, "api_error", "Internal server error")


def bad_request(message: str = "messages.0.content: Input should be a valid list") -> ApiError:
    return ApiError(400, "invalid_request_error", message)


def credit_balance_too_low() -> ApiError:
    return ApiError(
        400,
        "invalid_request_error",
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits.",
    )


def subscription_limit(reset_epoch: int) -> ApiError:
    """A claude.ai subscription's usage limit: a 429 with the unified rate-limit headers the
    CLI reads for subscribers (`anthropic-ratelimit-unified-*`)."""
    return ApiError(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your rate limit.",
        (
            ("anthropic-ratelimit-unified-status", "rejected"),
            ("anthropic-ratelimit-unified-reset", str(reset_epoch)),
            ("anthropic-ratelimit-unified-representative-claim", "five_hour"),
            ("anthropic-ratelimit-unified-5h-status", "rejected"),
            ("anthropic-ratelimit-unified-5h-reset", str(reset_epoch)),
            ("anthropic-ratelimit-unified-5h-utilization", "1.0"),
            ("anthropic-ratelimit-unified-overage-status", "rejected"),
            ("anthropic-ratelimit-unified-overage-disabled-reason", "org_level_disabled"),
        ),
    )


def subscription_warning(reset_epoch: int, utilization: float) -> tuple[tuple[str, str], ...]:
    """The unified rate-limit headers of an answer that nears a subscription's 5-hour limit."""
    return (
        ("anthropic-ratelimit-unified-status", "allowed_warning"),
        ("anthropic-ratelimit-unified-reset", str(reset_epoch)),
        ("anthropic-ratelimit-unified-representative-claim", "five_hour"),
        ("anthropic-ratelimit-unified-5h-status", "allowed_warning"),
        ("anthropic-ratelimit-unified-5h-reset", str(reset_epoch)),
        ("anthropic-ratelimit-unified-5h-utilization", str(utilization)),
    )


def sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _pieces(text: str, count: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def message(
    model: str, content: list[dict[str, Any]], stop: str | None, input_tokens: int = 12
) -> dict[str, Any]:
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1 if stop is None else 7},
    }


def blocks(reply: Answer | ToolUse) -> list[dict[str, Any]]:
    if isinstance(reply, Answer):
        thinking = (
            [{"type": "thinking", "thinking": reply.thinking, "signature": "c2lnbmF0dXJl"}]
            if reply.thinking
            else []
        )
        return [*thinking, {"type": "text", "text": reply.text}]
    text = [{"type": "text", "text": reply.text}] if reply.text else []
    return [*text, {"type": "tool_use", "id": reply.id, "name": reply.name, "input": reply.input}]


def stop_reason(reply: Answer | ToolUse) -> str:
    return reply.stop_reason if isinstance(reply, Answer) else "tool_use"


def events(model: str, reply: Answer | ToolUse) -> Iterator[bytes]:
    """The real streaming event sequence for one message."""
    stop = stop_reason(reply)
    size = reply.input_tokens if isinstance(reply, Answer) else 12
    start_message = message(model, [], None, size)
    if isinstance(reply, Answer) and reply.cache_ttl:
        written = {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}
        written[f"ephemeral_{reply.cache_ttl}_input_tokens"] = 100
        start_message["usage"] |= {"cache_creation_input_tokens": 100, "cache_creation": written}
    yield sse("message_start", {"type": "message_start", "message": start_message})
    yield sse("ping", {"type": "ping"})
    for index, block in enumerate(blocks(reply)):
        deltas: list[dict[str, Any]]
        if block["type"] == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            count = reply.pieces if isinstance(reply, Answer) else 2
            deltas = [{"type": "text_delta", "text": p} for p in _pieces(block["text"], count)]
        elif block["type"] == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                *({"type": "thinking_delta", "thinking": p} for p in _pieces(block["thinking"], 2)),
                {"type": "signature_delta", "signature": block["signature"]},
            ]
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            parts = _pieces(json.dumps(block["input"]), 3)
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in parts]
        yield sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        for delta in deltas:
            yield sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        yield sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 7},
        },
    )
    yield sse("message_stop", {"type": "message_stop"})


def error_body(reply: ApiError) -> dict[str, Any]:
    return {
        "type": "error",
        "error": {"type": reply.type, "message": reply.message},
        "request_id": f"req_{uuid.uuid4().hex[:24]}",
    }
