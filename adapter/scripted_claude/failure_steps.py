"""Steps for what the API and the CLI report when a turn goes wrong: retries, rate limits,
usage-limit notices, synthetic error messages, refusals, a worker shutting down.

Split from `steps.py` (which re-exports them, so `Step` stays one union); `player.py` and
`frames.py` give them meaning. Imported by the fake CLI at startup, so only the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ApiRetry",
    "AssistantError",
    "LimitMessage",
    "ModelRefusalFallback",
    "NoResponse",
    "RateLimitEvent",
    "Refusal",
    "Synthetic",
    "UsageLimitGate",
    "WorkerShuttingDown",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class NoResponse:
    """The `no_response` member of an `api_retry` frame: the request got no HTTP answer."""

    waited_ms: int
    retry_wait_ms: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ApiRetry:
    """`system/api_retry`: the CLI is about to retry a failed API request."""

    attempt: int
    max_retries: int
    error_status: int | None
    error: str
    retry_delay_ms: int = 1000
    no_response: NoResponse | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RateLimitEvent:
    """`rate_limit_event`, built from the `anthropic-ratelimit-unified-*` headers. A window's
    reset time is fixed when the session first reports it (`resets_in_seconds` from then) and
    kept until it passes, as a real window's is. With `utilization`, the window is reported in
    `unifiedWindows` too, as Claude Code does for a subscription."""

    status: str = "rejected"
    rate_limit_type: str = "five_hour"
    resets_in_seconds: int = 3600
    utilization: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LimitMessage:
    """Claude Code's own words at a subscription's limit, with the window's reset time: the
    synthetic "You've hit your 5-hour limit · resets 10:08pm (UTC)" and its error result."""

    rate_limit_type: str = "five_hour"


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageLimitGate:
    """A turn after a rejection: while the window's reset is still ahead, the `LimitMessage`
    again (Claude Code reports no new event: the status did not change); after it, the window
    is `allowed` again and the turn is answered."""

    rate_limit_type: str = "five_hour"


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantError:
    """The synthetic assistant message the CLI writes for a failed API call.

    `error` is copied to the frame as-is: any string, including kinds the SDK never heard of.
    """

    error: str
    text: str
    api_error_status: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Synthetic:
    """A `<synthetic>` assistant message without an `error` field (login or limit notices)."""

    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """An assistant message whose `stop_reason` is "refusal", with `stop_details`.

    The SDK's `AssistantMessage` drops `stop_details`, so the explanation is also the text.
    """

    explanation: str
    category: str | None = "cyber"
    model: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRefusalFallback:
    """`system/model_refusal_fallback`: the model refused and the CLI retried on another."""

    original_model: str
    fallback_model: str
    content: str
    api_refusal_category: str | None = None
    api_refusal_explanation: str | None = None
    direction: str = "retry"
    scope: str = "session"


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerShuttingDown:
    """`system/worker_shutting_down`."""

    reason: str = "host_exit"
