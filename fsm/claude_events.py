"""The core's inputs from a Claude runtime: one per message (or end) of Claude's process.

Theory of operation: as for every event (`events.py`); each carries the `epoch` of the runtime
that said it, so the core can drop what a replaced runtime says late (DECISIONS row 21).
"""

from __future__ import annotations

from dataclasses import dataclass

from fsm.errors import PeerViolation
from fsm.event_base import MAX_MS, Event, need

__all__ = [
    "AnswerStreamStarted",
    "AssistantMessageReceived",
    "AuthStatusReported",
    "BackgroundTaskSettled",
    "BackgroundTaskStarted",
    "BackgroundTasksListed",
    "ClaudeEvent",
    "ClaudeSilent",
    "ContextMeasured",
    "LimitWindow",
    "McpServerStatus",
    "McpServersReported",
    "MessageTooLarge",
    "ModelFellBack",
    "OutputReceived",
    "RateLimitReported",
    "ResultReceived",
    "RetryAttempted",
    "RuntimeStarted",
    "StreamEnded",
    "TransportLost",
    "TurnWentBusy",
    "TurnWentIdle",
    "WorkerShuttingDown",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudeEvent(Event):
    epoch: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeStarted(ClaudeEvent):
    """A (new) Claude process is ready; `epoch` names it from now on."""

    def __post_init__(self) -> None:
        need(self.epoch, "epoch")


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessageReceived(ClaudeEvent):
    """One assistant message. `text` is its text blocks joined; `top_level` is false for a
    subagent's message (`parent_tool_use_id` set)."""

    model: str | None
    text: str
    text_block_count: int
    error: str | None = None
    top_level: bool = True
    stop_reason: str | None = None
    refusal_explanation: str | None = None

    def __post_init__(self) -> None:
        if self.text_block_count < 0:
            raise PeerViolation("text_block_count cannot be negative")


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryAttempted(ClaudeEvent):
    """A `system/api_retry` frame. `error_status` is None when no HTTP response came back."""

    attempt: int
    max_retries: int
    error_status: int | None
    error: str | None
    retry_delay_ms: int | None = None

    def __post_init__(self) -> None:
        if self.attempt < 1 or self.max_retries < 1:
            raise PeerViolation("api_retry attempt and max_retries start at 1")
        if self.retry_delay_ms is not None and abs(self.retry_delay_ms) > MAX_MS:
            raise PeerViolation("api_retry retry_delay_ms out of range")


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultReceived(ClaudeEvent):
    """A `result` frame. `autonomous` marks results no user turn asked for;
    `refusal_explanation` is a refusal's explanation no message of the turn carried (Claude
    Code said it only in a `system/model_refusal_no_fallback` frame)."""

    subtype: str
    is_error: bool
    result: str | None = None
    errors: tuple[str, ...] = ()
    stop_reason: str | None = None
    autonomous: bool = False
    refusal_explanation: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTaskStarted(ClaudeEvent):
    """`system/task_started`: Claude Code started task `task_id`; `subagent` when it is an
    Agent/Task subagent (whose end wakes Claude for a follow-up), not a shell command."""

    task_id: str
    subagent: bool

    def __post_init__(self) -> None:
        need(self.task_id, "task_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTaskSettled(ClaudeEvent):
    """Task `task_id` ended (`task_notification`, or a `task_updated` whose status is final);
    an id no start named is nothing to the core."""

    task_id: str

    def __post_init__(self) -> None:
        need(self.task_id, "task_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTasksListed(ClaudeEvent):
    """`system/background_tasks_changed`: every background task still live (a level, sent on
    each change). A task of the turn's not in it ended though its end was never said."""

    task_ids: frozenset[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelFellBack(ClaudeEvent):
    """A `system/model_refusal_fallback` frame."""

    original_model: str
    fallback_model: str
    refusal_category: str | None = None
    explanation: str | None = None
    direction: str | None = None
    scope: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class McpServerStatus:
    """One entry of Claude Code's `mcp_servers` statuses, as read: None where the field was
    missing or not a string (the core judges the shape, `notices.py`)."""

    name: str | None
    status: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class McpServersReported(ClaudeEvent):
    """The `mcp_servers` of a `system/init` frame (Claude Code writes one each turn)."""

    servers: tuple[McpServerStatus, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AuthStatusReported(ClaudeEvent):
    is_authenticating: bool
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LimitWindow:
    """One window a subscription is metered on (`unifiedWindows.<name>` of a `rate_limit_event`,
    or its top-level `rateLimitType`): `utilization` is a fraction (0.92 is 92%), `resets_at`
    epoch seconds. `utc_offset_seconds` is the agent's local offset from UTC at `resets_at`
    (the shell's clock knows it; the title shows the reset in local time, DECISIONS row 32)."""

    name: str
    status: str
    utilization: float | None = None
    resets_at: int | None = None
    utc_offset_seconds: int = 0

    def __post_init__(self) -> None:
        if self.resets_at is not None and abs(self.resets_at) > MAX_MS // 1000:
            raise PeerViolation("rate limit window resets_at out of range")
        if abs(self.utc_offset_seconds) > 86_400:
            raise PeerViolation("a UTC offset is less than a day")


@dataclass(frozen=True, slots=True, kw_only=True)
class RateLimitReported(ClaudeEvent):
    """A `rate_limit_event`: `status` and `resets_at` (epoch seconds) of the window that applies,
    and every window Claude reported (`windows`). The shell stamps it with its clocks: `now`
    (monotonic seconds, the core's deadlines) and `wall` (epoch seconds, Claude's reset times),
    and names the agent's time zone (`zone`, as Claude Code prints it: "UTC", "Europe/Paris")."""

    status: str
    resets_at: int | None = None
    windows: tuple[LimitWindow, ...] = ()
    now: float | None = None
    wall: float | None = None
    zone: str = "UTC"

    def __post_init__(self) -> None:
        if self.resets_at is not None and abs(self.resets_at) > MAX_MS // 1000:
            raise PeerViolation("rate limit resets_at out of range")


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudeSilent(ClaudeEvent):
    """Claude has said nothing for `waited_seconds` during a live turn (the shell's watchdog)."""

    waited_seconds: int

    def __post_init__(self) -> None:
        if self.waited_seconds < 1:
            raise PeerViolation("waited_seconds starts at 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputReceived(ClaudeEvent):
    """Claude wrote a frame at `now` (monotonic seconds): the stall clock starts again."""

    now: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextMeasured(ClaudeEvent):
    """Claude's latest report says the context holds `tokens` tokens (at a turn's result, or
    what a compaction retained), and its last request's prompt cache lives `cache_ttl` (`1h`,
    `5m`; None: not said); idle compaction reads them."""

    tokens: int
    cache_ttl: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.tokens, bool) or not isinstance(self.tokens, int) or self.tokens < 0:
            raise PeerViolation(f"a context of {self.tokens!r} tokens")


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerStreamStarted(ClaudeEvent):
    """Claude began streaming a top-level message (`message_start` of a partial-message stream;
    `model` is the one it names). A real model's answer after a failure message means Claude got
    past it: the withheld prose must go out before the answer's first words (row 24)."""

    model: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnWentBusy(ClaudeEvent):
    """Claude reported itself running (`session_state_changed: running`): it took the prompt."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnWentIdle(ClaudeEvent):
    """Claude reported itself idle (`session_state_changed: idle`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerShuttingDown(ClaudeEvent):
    """A `system/worker_shutting_down` frame: the stream's end will be a shutdown."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamEnded(ClaudeEvent):
    """Claude's output ended without an error from the SDK."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TransportLost(ClaudeEvent):
    """The runtime died or its stream broke (the SDK raised, the process exited non-zero)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageTooLarge(ClaudeEvent):
    """Claude sent one message larger than the adapter accepts (`limit_bytes`); its stream
    cannot go on, and the runtime's end that follows is part of this same fault."""

    limit_bytes: int
