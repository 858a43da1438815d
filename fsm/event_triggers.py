"""Which events are the turn table's triggers, and which are signs that Claude is at work.

Theory of operation: `SessionCore.handle` fires each event named in `TURN_TRIGGERS` at the turn
machine under its trigger (the snake_case of the event's class); every other event has its own
route in the core. After the route of a `SIGNS_OF_LIFE` event the core also fires
`turn_went_busy`, since Claude is working on the prompt.
"""

from __future__ import annotations

from fsm.events import (
    AnswerStreamStarted,
    AssistantMessageReceived,
    AuthStatusReported,
    BackgroundTaskSettled,
    BackgroundTasksListed,
    BackgroundTaskStarted,
    CancelGraceExpired,
    CancelRequested,
    ClaudeSilent,
    Event,
    FreshContextChosen,
    FreshContextReady,
    InternalFaultOccurred,
    MessageTooLarge,
    ModelFellBack,
    PromptReceived,
    PromptSent,
    RateLimitReported,
    ResultReceived,
    RetryAttempted,
    RuntimeStartFailed,
    SteerReceived,
    StreamEnded,
    TransportLost,
    TurnWentBusy,
    TurnWentIdle,
    WorkerShuttingDown,
)

__all__ = ["SIGNS_OF_LIFE", "TURN_TRIGGERS"]

# The turn-table trigger of each event the turn machine takes directly.
TURN_TRIGGERS: dict[type[Event], str] = {
    PromptReceived: "prompt_received",
    PromptSent: "prompt_sent",
    CancelRequested: "cancel_requested",
    AssistantMessageReceived: "assistant_message_received",
    RetryAttempted: "retry_attempted",
    ResultReceived: "result_received",
    ClaudeSilent: "claude_silent",
    TurnWentBusy: "turn_went_busy",
    TurnWentIdle: "turn_went_idle",
    StreamEnded: "stream_ended",
    TransportLost: "transport_lost",
    RuntimeStartFailed: "runtime_start_failed",
    CancelGraceExpired: "cancel_grace_expired",
    InternalFaultOccurred: "internal_fault_occurred",
    MessageTooLarge: "message_too_large",
    AnswerStreamStarted: "answer_stream_started",
    FreshContextChosen: "fresh_context_chosen",
    FreshContextReady: "fresh_context_ready",
    BackgroundTaskStarted: "background_task_started",
    BackgroundTaskSettled: "background_task_settled",
    BackgroundTasksListed: "background_tasks_listed",
    SteerReceived: "steer_received",
}

SIGNS_OF_LIFE = (ModelFellBack, AuthStatusReported, RateLimitReported, WorkerShuttingDown)
