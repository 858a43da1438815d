"""The incident machine: one instance per incident (one `id`), from creation to history.

Theory of operation:

    CREATED --delivery_confirmed--> REVISING --recovery_confirmed--> RESOLVED_HISTORICAL

- An incident is CREATED when its first revision is proposed. A proposed revision is only
  *pending*: it becomes `current` when the shell confirms its delivery. A failed delivery
  changes nothing (DECISIONS row 21), so a CREATED incident whose first delivery failed has no
  current record and the ledger forgets it.
- REVISING means at least one revision reached the client: the incident is active and can be
  revised (a retry warning escalating to an error under the same id is a revision).
- RESOLVED_HISTORICAL is terminal. Recovery publishes nothing; the client keeps the last record
  as history, and so does the incident (`current`). No trigger leaves this state: a resolved
  incident is never re-activated.

Rules outside the table (WARNING: hand-coded, not drawn): at most one revision may be pending,
and a confirmation or failure must name the pending revision. Both are checked in the methods
below before any trigger fires.
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Any

from fsm.errors import FsmError
from fsm.machine import build_machine, fire
from fsm.records import FailureRecord
from fsm.vocabulary import RecoveryPolicy

__all__ = ["INCIDENT_MACHINE", "TRANSITIONS", "Incident", "IncidentState", "IncidentTrigger"]


class IncidentState(Enum):
    CREATED = "created"
    REVISING = "revising"
    RESOLVED_HISTORICAL = "resolved-historical"


class IncidentTrigger(StrEnum):
    REVISION_PROPOSED = "revision_proposed"
    DELIVERY_CONFIRMED = "delivery_confirmed"
    DELIVERY_FAILED = "delivery_failed"
    RECOVERY_CONFIRMED = "recovery_confirmed"


_S = IncidentState
_T = IncidentTrigger

TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": _T.REVISION_PROPOSED, "source": _S.CREATED, "dest": _S.CREATED},
    {"trigger": _T.REVISION_PROPOSED, "source": _S.REVISING, "dest": _S.REVISING},
    {"trigger": _T.DELIVERY_CONFIRMED, "source": _S.CREATED, "dest": _S.REVISING},
    {"trigger": _T.DELIVERY_CONFIRMED, "source": _S.REVISING, "dest": _S.REVISING},
    {"trigger": _T.DELIVERY_FAILED, "source": _S.CREATED, "dest": _S.CREATED},
    {"trigger": _T.DELIVERY_FAILED, "source": _S.REVISING, "dest": _S.REVISING},
    {"trigger": _T.RECOVERY_CONFIRMED, "source": _S.REVISING, "dest": _S.RESOLVED_HISTORICAL},
]

INCIDENT_MACHINE = build_machine(
    name="incident", states=IncidentState, transitions=TRANSITIONS, initial=_S.CREATED
)


class Incident:
    """One logical incident. Attach with `INCIDENT_MACHINE.add_model` (done here), detach with
    `detach()` when the ledger forgets it."""

    state: IncidentState

    def trigger(self, name: str, *args: Any, **kwargs: Any) -> bool:
        raise NotImplementedError("bound by transitions")  # pragma: no cover

    def __init__(self, *, id: str, turn_id: str | None, policy: RecoveryPolicy) -> None:
        self.id = id
        self.turn_id = turn_id
        self.policy = policy
        self.current: FailureRecord | None = None
        self.pending: FailureRecord | None = None
        self._pending_policy = policy
        INCIDENT_MACHINE.add_model(self, initial=IncidentState.CREATED)

    def detach(self) -> None:
        INCIDENT_MACHINE.remove_model(self)

    @property
    def next_revision(self) -> int:
        return 1 if self.current is None else self.current.revision + 1

    def fire(self, trigger: IncidentTrigger) -> None:
        fire("incident", self, trigger)

    def propose(self, record: FailureRecord, policy: RecoveryPolicy) -> None:
        """Make `record` the pending revision. Raises `InvalidTransition` when resolved,
        `FsmError` when a revision is already pending or the revision number is not next."""
        if self.pending is not None:
            raise FsmError(f"incident {self.id}: revision {self.pending.revision} still pending")
        if record.id != self.id or record.revision != self.next_revision:
            raise FsmError(f"incident {self.id}: expected revision {self.next_revision}")
        self.fire(IncidentTrigger.REVISION_PROPOSED)
        self.pending = record
        self._pending_policy = policy

    def _settle_pending(self, revision: int, trigger: IncidentTrigger) -> FailureRecord:
        pending = self.pending
        if pending is None or pending.revision != revision:
            raise FsmError(f"incident {self.id}: revision {revision} is not pending")
        self.fire(trigger)
        self.pending = None
        return pending

    def confirm(self, revision: int) -> None:
        """The pending revision reached the client: it becomes current. State: REVISING."""
        self.current = self._settle_pending(revision, IncidentTrigger.DELIVERY_CONFIRMED)
        # A revision's recovery policy holds from its delivery on, like the revision itself.
        self.policy = self._pending_policy

    def fail(self, revision: int) -> None:
        """The pending revision's delivery failed: nothing else changes."""
        self._settle_pending(revision, IncidentTrigger.DELIVERY_FAILED)

    def resolve(self) -> None:
        """Recovery: the incident stops being active. Nothing is published."""
        self.fire(IncidentTrigger.RECOVERY_CONFIRMED)
