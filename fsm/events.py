"""Inputs to the session core: past-tense facts the shell observed.

Theory of operation: the shell reads one thing (a client request, one message from Claude, the
outcome of a send) and hands the core one of these frozen values. The shell mints every id and
epoch; the core never reads a clock or draws a random number. Every event that comes from a
Claude runtime carries that runtime's `epoch`, so the core can drop what a replaced runtime says
late (DECISIONS row 21). Constructors validate and raise `PeerViolation` for values no Claude
process or client could mean.

This module holds what the client and the shell report; Claude's own events live in
`claude_events.py` and are importable from here too, so `fsm.events` names every input.
"""

from __future__ import annotations

from dataclasses import dataclass

from fsm.claude_events import (
    AnswerStreamStarted,
    AssistantMessageReceived,
    AuthStatusReported,
    BackgroundTaskSettled,
    BackgroundTasksListed,
    BackgroundTaskStarted,
    ClaudeEvent,
    ClaudeSilent,
    ContextMeasured,
    LimitWindow,
    McpServersReported,
    McpServerStatus,
    MessageTooLarge,
    ModelFellBack,
    OutputReceived,
    RateLimitReported,
    ResultReceived,
    RetryAttempted,
    RuntimeStarted,
    StreamEnded,
    TransportLost,
    TurnWentBusy,
    TurnWentIdle,
    WorkerShuttingDown,
)
from fsm.event_base import Event, need

__all__ = [
    "AnswerStreamStarted",
    "AssistantMessageReceived",
    "AuthStatusReported",
    "BackgroundTaskSettled",
    "BackgroundTaskStarted",
    "BackgroundTasksListed",
    "CancelGraceExpired",
    "CancelRequested",
    "ClaudeEvent",
    "ClaudeSilent",
    "ContextMeasured",
    "CredentialsChanged",
    "DeadlineReached",
    "DeliveryConfirmed",
    "DeliveryFailed",
    "Event",
    "FreshContextChosen",
    "FreshContextReady",
    "HistoryFailureFound",
    "InternalFaultOccurred",
    "LimitWindow",
    "McpServerStatus",
    "McpServersReported",
    "MessageTooLarge",
    "ModelChosen",
    "ModelFellBack",
    "OutputReceived",
    "PromptReceived",
    "PromptSent",
    "RateLimitReported",
    "ResultReceived",
    "RetryAttempted",
    "RuntimeStartFailed",
    "RuntimeStarted",
    "SteerReceived",
    "StreamEnded",
    "TransportLost",
    "TurnWentBusy",
    "TurnWentIdle",
    "WorkerShuttingDown",
]


# --- from the client (through the shell) ---------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptReceived(Event):
    """The client sent `session/prompt`; the shell stamped it with the fresh uuid `turn_id`
    and waits for a `SendPrompt` (or an answer) naming it. `by_adapter`: the prompt is the
    adapter's own idle `/compact` (`CompactWhenIdle`), which no client waits for."""

    turn_id: str
    by_adapter: bool = False

    def __post_init__(self) -> None:
        need(self.turn_id, "turn_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptSent(Event):
    """The shell sent the prompt `turn_id` to Claude at `now` (monotonic seconds, when the
    shell keeps time)."""

    turn_id: str
    now: float | None = None

    def __post_init__(self) -> None:
        need(self.turn_id, "turn_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class SteerReceived(Event):
    """The client's `_session/steering`: a message for the turn that runs. `question_open`: a
    permission question or form of the session waits for the user (interrupting Claude then
    would withdraw it). `prompt_required_when_idle`: with no turn running, the client wants
    the message back to send as a prompt of its own (`idleBehavior: "promptRequired"`)."""

    question_open: bool = False
    prompt_required_when_idle: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelRequested(Event):
    """The client sent `session/cancel` at `now`."""

    now: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FreshContextChosen(Event):
    """The user left plan mode with a "clear context" choice during the live turn: when that
    turn's (interrupted) result arrives, it goes on in a fresh Claude context that carries
    the plan (`reference-features-2.md` section 2.3). The shell keeps the plan and the mode."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FreshContextReady(Event):
    """The fresh context's Claude process is up (asked for by `StartFreshContext`), at `now`."""

    now: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelChosen(Event):
    """The client chose another model for the session (the model picker)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CredentialsChanged(Event):
    """The client authenticated again: Claude's process must read its credentials anew."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeadlineReached(Event):
    """The timer the shell armed for `SessionCore.next_deadline()` fired; `now` is the time
    (monotonic seconds) and `wall` the same moment in epoch seconds (for Claude's limit resets,
    which are wall-clock times)."""

    now: float
    wall: float | None = None


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
        need(self.id, "id")
        need(self.title, "title")


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeStartFailed(Event):
    """A (replacement) Claude process could not be started; `reason` is safe to show."""

    reason: str
