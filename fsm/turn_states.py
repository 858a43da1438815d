"""The turn machine's states, outcomes and model fields: what the turn's modules all import.

Theory of operation: `fsm/turn.py` builds the machine from its table; its guards
(`turn_guards.py`), its callbacks (`turn_actions.py`, `turn_failures.py`) and the session clock
read these names too, and would otherwise import the machine that imports them. `TurnFields`
declares the model's fields once: the guards and callbacks inherit it, `turn.Turn` sets them.
"""

from __future__ import annotations

from enum import Enum, StrEnum

from fsm.answers import AnswerDialect
from fsm.effects import Effect
from fsm.incident import IncidentTrigger
from fsm.ledger import Ledger
from fsm.runtime import Runtime

__all__ = ["LIVE_STATES", "TurnFields", "TurnOutcome", "TurnState"]


class TurnState(Enum):
    IDLE = "idle"
    PROMPT_SENT = "prompt-sent"
    RUNNING = "running"
    RETRYING = "retrying"
    FAILING = "failing"
    CANCELLING = "cancelling"
    # Between a plan exit that clears the context and the fresh context's first message.
    RESETTING = "resetting"
    BROKEN = "broken"


class TurnOutcome(StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    REFUSED = "refused"


# A turn is live from the prompt's dispatch until its answer.
LIVE_STATES = frozenset(
    {
        TurnState.PROMPT_SENT,
        TurnState.RUNNING,
        TurnState.RETRYING,
        TurnState.FAILING,
        TurnState.CANCELLING,
        TurnState.RESETTING,
    }
)


class TurnFields:
    """The turn model's fields, annotations only: `turn.Turn` sets them (`__init__` and
    `forget_turn`), the guards read them, the callbacks read and write them."""

    state: TurnState  # set by the machine
    ledger: Ledger
    capable: bool
    notices: bool
    answers: AnswerDialect  # how a settled prompt is answered (legacy: failures as errors)
    private: tuple[str, ...]
    # The Claude process the turn's prompts go to (its own machine, `runtime.py`).
    runtime: Runtime
    effects: list[Effect]  # what the row being run answers
    # What the row being run tells the incidents and the runtime (applied by `Turn.fire`).
    reached: list[tuple[IncidentTrigger, str | None]]
    runtime_ended: bool
    turn_id: str | None
    outcome: TurnOutcome | None
    queued: list[str]  # prompts waiting for the live one, oldest first
    dispatching: str | None  # told to send, not yet reported sent
    retry_after_ms: int | None
    reset_at_ms: int | None
    between_failure_reported: bool
    grace_armed: bool
    # What one turn has seen; reset when a prompt is sent (`Turn.forget_turn`).
    failure_error: str | None  # the latest top-level assistant `error`
    failure_text: str | None  # that message's text (Claude's own words)
    usage_limit: bool
    login: bool
    real_model: bool
    refusal_explanation: str | None
    # error prose kept back for the record (docs/decisions.md#error-prose-without-record)
    withheld: list[str]
    answered_text: str
    fresh_context_chosen: bool  # the user chose to go on in a fresh context
    subagents: set[str]  # the turn's subagents still running (Claude follows up on each)
    held: bool  # the turn's result came; its answer waits for its subagents or its steer
    steered: bool  # the client steered the turn (its steered cycle ends at the next idle)
