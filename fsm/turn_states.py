"""The turn machine's states and outcomes: a leaf that the turn's modules all import.

Theory of operation: `fsm/turn.py` builds the machine from its table; its callbacks
(`turn_actions.py`, `turn_failures.py`) and the session clock read these names too, and would
otherwise import the machine that imports them.
"""

from __future__ import annotations

from enum import Enum, StrEnum

__all__ = ["LIVE_STATES", "TurnOutcome", "TurnState"]


class TurnState(Enum):
    IDLE = "idle"
    PROMPT_SENT = "prompt-sent"
    RUNNING = "running"
    RETRYING = "retrying"
    FAILING = "failing"
    CANCELLING = "cancelling"
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
    }
)
