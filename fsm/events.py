"""Inputs to the session core: past-tense facts the shell observed.

Theory of operation: the shell reads one thing (a client request, one message from Claude, the
outcome of a send) and hands the core one of these frozen values. The shell mints every id and
epoch; the core never reads a clock or draws a random number. Every event that comes from a
Claude runtime carries that runtime's `epoch`, so the core can drop what a replaced runtime says
late (DECISIONS row 21). Constructors validate and raise `PeerViolation` for values no Claude
process or client could mean.
"""

from __future__ import annotations

from dataclasses import dataclass

from fsm.errors import PeerViolation

__all__ = [
    "AnswerStreamStarted",
    "AssistantMessageReceived",
    "AuthStatusReported",
    "CancelGraceExpired",
    "CancelRequested",
    "ClaudeEvent",
    "ClaudeSilent",
    "CredentialsChanged",
    "DeadlineReached",
    "DeliveryConfirmed",
    "DeliveryFailed",
    "Event",
    "HistoryFailureFound",
    "InternalFaultOccurred",
    "MessageTooLarge",
    "ModelFellBack",
    "OutputReceived",
    "PromptReceived",
    "PromptSent",
    "RateLimitReported",
    "ResultReceived",
    "RetryAttempted",
    "RuntimeStartFailed",
    "RuntimeStarted",
    "StreamEnded",
    "TransportLost",
    "TurnWentBusy",
    "TurnWentIdle",
    "WorkerShuttingDown",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every input."""


# About 285,000 years: any delay past it is not a delay Claude meant.
_MAX_MS = 2**53


def _need(value: str, what: str) -> None:
    if not value:
        raise PeerViolation(f"{what} must be a non-empty string")


# --- from the client (through the shell) ---------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptReceived(Event):
    """The client sent `session/prompt`; the shell stamped it with the fresh uuid `turn_id`
    and waits for a `SendPrompt` (or an answer) naming it."""

    turn_id: str

    def __post_init__(self) -> None:
        _need(self.turn_id, "turn_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptSent(Event):
    """The shell sent the prompt `turn_id` to Claude at `now` (monotonic seconds, when the
    shell keeps time)."""

    turn_id: str
    now: float | None = None

    def __post_init__(self) -> None:
        _need(self.turn_id, "turn_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelRequested(Event):
    """The client sent `session/cancel` at `now`."""

    now: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CredentialsChanged(Event):
    """The client authenticated again: Claude's process must read its credentials anew."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeadlineReached(Event):
    """The timer the shell armed for `SessionCore.next_deadline()` fired; `now` is the time."""

    now: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelGraceExpired(Event):
    """Derived by the core from `DeadlineReached`: the interrupt went unanswered too long."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InternalFaultOccurred(Event):
    """Our own code raised (the core or the shell, not Claude's transport): DECISIONS row 30.
    `where` says which part, for the log; the traceback is the shell's to log."""

    where: str = "adapter"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeliveryConfirmed(Event):
    """A `PublishRecord` effect's session update was sent."""

    id: str
    revision: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DeliveryFailed(Event):
    """A `PublishRecord` effect's session update could not be sent."""

    id: str
    revision: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryFailureFound(Event):
    """Replay found a stored usage-limit message (session/load). `active` marks the latest one
    that no later real-model answer recovered."""

    id: str
    title: str
    active: bool

    def __post_init__(self) -> None:
        _need(self.id, "id")
        _need(self.title, "title")


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeStartFailed(Event):
    """A (replacement) Claude process could not be started; `reason` is safe to show."""

    reason: str


# --- from a Claude runtime ------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudeEvent(Event):
    epoch: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeStarted(ClaudeEvent):
    """A (new) Claude process is ready; `epoch` names it from now on."""

    def __post_init__(self) -> None:
        _need(self.epoch, "epoch")


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
        if self.retry_delay_ms is not None and abs(self.retry_delay_ms) > _MAX_MS:
            raise PeerViolation("api_retry retry_delay_ms out of range")


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultReceived(ClaudeEvent):
    """A `result` frame. `autonomous` marks results no user turn asked for."""

    subtype: str
    is_error: bool
    result: str | None = None
    errors: tuple[str, ...] = ()
    stop_reason: str | None = None
    autonomous: bool = False


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
class AuthStatusReported(ClaudeEvent):
    is_authenticating: bool
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RateLimitReported(ClaudeEvent):
    """A `rate_limit_event`: `resets_at` is when the limit resets (epoch seconds), if given."""

    status: str
    resets_at: int | None = None

    def __post_init__(self) -> None:
        if self.resets_at is not None and abs(self.resets_at) > _MAX_MS // 1000:
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
