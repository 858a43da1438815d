"""The turn-lifecycle machine: one per session, one turn at a time.

Theory of operation:

    IDLE / settled --prompt_sent--> PROMPT_SENT --claude_responded--> RUNNING
    PROMPT_SENT / RUNNING / RETRYING --retry_warned--> RETRYING   (a warning is out)
    live --turn_succeeded|turn_failed|turn_cancelled|turn_refused--> the settled state

- "Live" means PROMPT_SENT, RUNNING or RETRYING: a prompt is waiting for its one answer.
  Every settling trigger is allowed only from a live state, so a prompt cannot be answered
  twice; `prompt_sent` is allowed only when no turn is live, so two turns never interleave
  (the shell queues prompts).
- RETRYING is entered by the first `api_retry` warning and kept until the turn settles: the
  warning entry stays on the client's screen, and a terminal failure of the same turn revises
  it in place (`<turnId>:error`, next revision).
- `retry_warned` does not settle anything: a warning never ends a turn.

What lives elsewhere: which Claude signal fires which trigger, and the ids and revisions, are
decided in `session.py` and `ledger.py`.
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Any

from fsm.machine import build_machine, fire

__all__ = [
    "LIVE_STATES",
    "TRANSITIONS",
    "TURN_MACHINE",
    "TurnLifecycle",
    "TurnState",
    "TurnTrigger",
]


class TurnState(Enum):
    IDLE = "idle"
    PROMPT_SENT = "prompt-sent"
    RUNNING = "running"
    RETRYING = "retrying"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    REFUSED = "refused"


class TurnTrigger(StrEnum):
    PROMPT_SENT = "prompt_sent"
    CLAUDE_RESPONDED = "claude_responded"
    RETRY_WARNED = "retry_warned"
    TURN_SUCCEEDED = "turn_succeeded"
    TURN_FAILED = "turn_failed"
    TURN_CANCELLED = "turn_cancelled"
    TURN_REFUSED = "turn_refused"


_S = TurnState
_T = TurnTrigger

LIVE_STATES = frozenset({_S.PROMPT_SENT, _S.RUNNING, _S.RETRYING})
_SETTLED = [_S.IDLE, _S.SUCCEEDED, _S.FAILED, _S.CANCELLED, _S.REFUSED]
_LIVE = [_S.PROMPT_SENT, _S.RUNNING, _S.RETRYING]

TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": _T.PROMPT_SENT, "source": _SETTLED, "dest": _S.PROMPT_SENT},
    {"trigger": _T.CLAUDE_RESPONDED, "source": _S.PROMPT_SENT, "dest": _S.RUNNING},
    {"trigger": _T.CLAUDE_RESPONDED, "source": _S.RUNNING, "dest": _S.RUNNING},
    {"trigger": _T.CLAUDE_RESPONDED, "source": _S.RETRYING, "dest": _S.RETRYING},
    {"trigger": _T.RETRY_WARNED, "source": _LIVE, "dest": _S.RETRYING},
    {"trigger": _T.TURN_SUCCEEDED, "source": _LIVE, "dest": _S.SUCCEEDED},
    {"trigger": _T.TURN_FAILED, "source": _LIVE, "dest": _S.FAILED},
    {"trigger": _T.TURN_CANCELLED, "source": _LIVE, "dest": _S.CANCELLED},
    {"trigger": _T.TURN_REFUSED, "source": _LIVE, "dest": _S.REFUSED},
]

TURN_MACHINE = build_machine(
    name="turn", states=TurnState, transitions=TRANSITIONS, initial=_S.IDLE
)


class TurnLifecycle:
    """The session's turn. `turn_id` is the uuid the shell stamped on the prompt it sent."""

    state: TurnState

    def trigger(self, name: str, *args: Any, **kwargs: Any) -> bool:
        raise NotImplementedError("bound by transitions")  # pragma: no cover

    def __init__(self) -> None:
        self.turn_id: str | None = None
        TURN_MACHINE.add_model(self, initial=TurnState.IDLE)

    def detach(self) -> None:
        TURN_MACHINE.remove_model(self)

    @property
    def live(self) -> bool:
        return self.state in LIVE_STATES

    def fire(self, trigger: TurnTrigger) -> None:
        """Raises `InvalidTransition` (state unchanged) when the table has no such row."""
        fire("turn", self, trigger)

    def start(self, turn_id: str) -> None:
        self.fire(TurnTrigger.PROMPT_SENT)
        self.turn_id = turn_id
