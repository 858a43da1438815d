"""The incident machine: one instance per incident (one `id`), from creation to history.

Theory of operation:

    CREATED --delivery_confirmed--> REVISING --<boundary> [policy guard]--> RESOLVED_HISTORICAL

- An incident is CREATED when its first revision is proposed. A proposed revision is only
  *pending*: it becomes `current` when the shell confirms its delivery. A failed delivery
  changes nothing (docs/decisions.md#delivery), so a CREATED incident whose first delivery failed
  has no current record and the ledger forgets it.
- REVISING means at least one revision reached the client: the incident is active and can be
  revised (a retry warning escalating to an error under the same id is a revision).
- Recovery (docs/decisions.md#recovery) is the table: each boundary the session reaches is a trigger
  fired at every active incident, and the incident's recovery policy (its kind's, as `KIND_POLICIES`
  says), the delivered revision's severity and its scope, as guards, decide which boundary retires
  it. `attempt_confirmed` (a later user turn produced a result) retires next-attempt incidents of
  earlier turns; `real_answer_given` (a real model answered without error) retires quota and
  auth incidents and the answering turn's own warnings; `auth_confirmed` retires auth incidents;
  `runtime_replaced` retires transport and worker incidents; `notices_overflowed` retires a
  notice past the bound; `delivery_confirmed [resolves_on_delivery]` retires a replayed,
  already-recovered usage limit as soon as it is shown; `window_closed` retires an early limit
  warning (docs/decisions.md#early-limit-warning). A boundary that does not apply is a drawn no-op
  row. Publishing a new incident never recovers an old one.
- The reset of a failed limit (docs/decisions.md#limit-that-resets) is three internal rows of
  REVISING: `reset_reached [awaits_its_reset, its_reset_is_due] / take_reset` (the ledger then
  proposes the revision that says so, once), and `runtime_replaced` / `reset_superseded
  [awaits_its_reset] / forget_reset` (a replaced runtime, or a newer limit failure that takes the
  reset over).
- RESOLVED_HISTORICAL is terminal: no row leaves it, so a resolved incident is never revised
  again. (The ledger also refuses its id for good, see `ledger.py`.)

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
from fsm.vocabulary import FailureKind, RecoveryPolicy, Severity

__all__ = ["INCIDENT_MACHINE", "TRANSITIONS", "Incident", "IncidentState", "IncidentTrigger"]


class IncidentState(Enum):
    CREATED = "created"
    REVISING = "revising"
    RESOLVED_HISTORICAL = "resolved-historical"


class IncidentTrigger(StrEnum):
    REVISION_PROPOSED = "revision_proposed"
    DELIVERY_CONFIRMED = "delivery_confirmed"
    DELIVERY_FAILED = "delivery_failed"
    ATTEMPT_CONFIRMED = "attempt_confirmed"
    REAL_ANSWER_GIVEN = "real_answer_given"
    AUTH_CONFIRMED = "auth_confirmed"
    RUNTIME_REPLACED = "runtime_replaced"
    NOTICES_OVERFLOWED = "notices_overflowed"
    # docs/decisions.md#early-limit-warning: an early limit warning's window reset or reported
    # `allowed`.
    WINDOW_CLOSED = "window_closed"
    # docs/decisions.md#limit-that-resets: a failed limit's reset time came; a newer limit failure
    # takes the reset over.
    RESET_REACHED = "reset_reached"
    RESET_SUPERSEDED = "reset_superseded"


CREATED, REVISING = IncidentState.CREATED, IncidentState.REVISING
RESOLVED_HISTORICAL = IncidentState.RESOLVED_HISTORICAL
UNRESOLVED = [CREATED, REVISING]
# docs/decisions.md#limit-that-resets: the failures whose reset time Claude gives (a usage or rate
# limit).
_LIMITS_THAT_RESET = frozenset({FailureKind.RATE_LIMITED, FailureKind.QUOTA_EXHAUSTED})
BOUNDARIES = [
    IncidentTrigger.ATTEMPT_CONFIRMED,
    IncidentTrigger.REAL_ANSWER_GIVEN,
    IncidentTrigger.AUTH_CONFIRMED,
    IncidentTrigger.RUNTIME_REPLACED,
    IncidentTrigger.NOTICES_OVERFLOWED,
    IncidentTrigger.WINDOW_CLOSED,
    IncidentTrigger.RESET_REACHED,
    IncidentTrigger.RESET_SUPERSEDED,
]

# fmt: off
TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": IncidentTrigger.REVISION_PROPOSED, "source": UNRESOLVED, "dest": "="},
    {"trigger": IncidentTrigger.DELIVERY_CONFIRMED, "source": UNRESOLVED,
     "dest": RESOLVED_HISTORICAL, "conditions": ["resolves_on_delivery"]},
    {"trigger": IncidentTrigger.DELIVERY_CONFIRMED, "source": UNRESOLVED, "dest": REVISING},
    {"trigger": IncidentTrigger.DELIVERY_FAILED, "source": UNRESOLVED, "dest": "="},
    # docs/decisions.md#recovery: the recovery policy, one guarded row per way an active incident
    # recovers. The kind's policy holds for errors; a warning (not a notice) is progress of one
    # attempt and never outlives the next boundary, and with no turn whose successor could confirm
    # it (session-scoped) that boundary is a real answer.
    {"trigger": IncidentTrigger.ATTEMPT_CONFIRMED, "source": REVISING,
     "dest": RESOLVED_HISTORICAL,
     "conditions": ["recovers_at_next_attempt", "is_of_an_earlier_turn"],
     "unless": ["is_session_scoped"]},
    {"trigger": IncidentTrigger.ATTEMPT_CONFIRMED, "source": REVISING,
     "dest": RESOLVED_HISTORICAL, "conditions": ["is_a_warning", "is_of_an_earlier_turn"],
     "unless": ["is_session_scoped"]},
    {"trigger": IncidentTrigger.REAL_ANSWER_GIVEN, "source": REVISING,
     "dest": RESOLVED_HISTORICAL, "conditions": ["recovers_on_real_answer"],
     "unless": ["is_a_warning"]},
    {"trigger": IncidentTrigger.REAL_ANSWER_GIVEN, "source": REVISING,
     "dest": RESOLVED_HISTORICAL, "conditions": ["recovers_at_next_attempt", "is_session_scoped"]},
    {"trigger": IncidentTrigger.REAL_ANSWER_GIVEN, "source": REVISING,
     "dest": RESOLVED_HISTORICAL, "conditions": ["is_a_warning", "is_session_scoped"]},
    {"trigger": IncidentTrigger.REAL_ANSWER_GIVEN, "source": REVISING,
     "dest": RESOLVED_HISTORICAL, "conditions": ["is_a_warning_of_this_turn"]},
    {"trigger": IncidentTrigger.AUTH_CONFIRMED, "source": REVISING,
     "dest": RESOLVED_HISTORICAL, "conditions": ["recovers_on_auth_status"],
     "unless": ["is_a_warning"]},
    {"trigger": IncidentTrigger.RUNTIME_REPLACED, "source": REVISING,
     "dest": RESOLVED_HISTORICAL, "conditions": ["is_bound_to_the_runtime"],
     "unless": ["is_a_warning"]},
    {"trigger": IncidentTrigger.NOTICES_OVERFLOWED, "source": REVISING,
     "dest": RESOLVED_HISTORICAL, "conditions": ["is_a_notice"]},
    {"trigger": IncidentTrigger.WINDOW_CLOSED, "source": REVISING,
     "dest": RESOLVED_HISTORICAL, "conditions": ["is_a_limit_warning"]},
    # docs/decisions.md#limit-that-resets: at its reset time an active limit failure gets one more
    # revision (the ledger makes it); a replaced runtime or a newer limit failure means it never
    # will. The incident stays active: only its reset changes.
    {"trigger": IncidentTrigger.RESET_REACHED, "source": REVISING, "dest": None,
     "conditions": ["awaits_its_reset", "its_reset_is_due"], "before": ["take_reset"]},
    {"trigger": IncidentTrigger.RUNTIME_REPLACED, "source": REVISING, "dest": None,
     "conditions": ["awaits_its_reset"], "before": ["forget_reset"]},
    {"trigger": IncidentTrigger.RESET_SUPERSEDED, "source": REVISING, "dest": None,
     "conditions": ["awaits_its_reset"], "before": ["forget_reset"]},
    # A boundary that does not retire this incident leaves it as it is (drawn, not implied).
    {"trigger": BOUNDARIES, "source": UNRESOLVED, "dest": None},
]
# fmt: on

INCIDENT_MACHINE = build_machine(
    name="incident", states=IncidentState, transitions=TRANSITIONS, initial=IncidentState.CREATED
)


class Incident:
    """One logical incident. Attached to `INCIDENT_MACHINE` here, detached with `detach()`
    when the ledger lets it go."""

    state: IncidentState

    def __init__(
        self,
        *,
        id: str,
        turn_id: str | None,
        policy: RecoveryPolicy,
        resolves_on_delivery: bool = False,
    ) -> None:
        self.id = id
        self.turn_id = turn_id
        self.policy = policy
        self.current: FailureRecord | None = None
        self.pending: FailureRecord | None = None
        self._pending_policy = policy
        self._resolves_on_delivery = resolves_on_delivery
        # docs/decisions.md#limit-that-resets: when Claude said this limit resets (epoch ms), and
        # whether that came.
        self.resets_at_ms: int | None = None
        self.reset_taken = False
        INCIDENT_MACHINE.add_model(self, initial=IncidentState.CREATED)

    def detach(self) -> None:
        INCIDENT_MACHINE.remove_model(self)

    @property
    def next_revision(self) -> int:
        return 1 if self.current is None else self.current.revision + 1

    def fire(self, trigger: IncidentTrigger, *args: Any) -> None:
        fire(INCIDENT_MACHINE, self, trigger, *args)

    # --- guards: the recovery policy (docs/decisions.md#recovery), pure predicates ----------------

    def resolves_on_delivery(self, *_: Any) -> bool:
        return self._resolves_on_delivery

    def recovers_at_next_attempt(self, *_: Any) -> bool:
        return self.policy is RecoveryPolicy.NEXT_ATTEMPT

    def is_of_an_earlier_turn(self, turn_id: str | None = None, *_: Any) -> bool:
        return self.turn_id != turn_id

    def is_a_warning(self, *_: Any) -> bool:
        """The delivered revision is a warning, and the incident is neither a notice (a
        warning that never recovers) nor an early limit warning
        (docs/decisions.md#early-limit-warning: it recovers when its window closes,
        `is_a_limit_warning`, not at a turn's boundary)."""
        current = self.current
        return (
            current is not None
            and current.severity is Severity.WARNING
            and self.policy not in (RecoveryPolicy.NEVER, RecoveryPolicy.LIMIT_WINDOW)
        )

    def is_session_scoped(self, *_: Any) -> bool:
        return self.turn_id is None

    def recovers_on_real_answer(self, *_: Any) -> bool:
        return self.policy in (RecoveryPolicy.REAL_MODEL_SUCCESS, RecoveryPolicy.AUTH_STATUS)

    def is_a_warning_of_this_turn(self, turn_id: str | None = None, *_: Any) -> bool:
        current = self.current
        return (
            current is not None
            and current.severity is Severity.WARNING
            and self.turn_id is not None
            and self.turn_id == turn_id
        )

    def recovers_on_auth_status(self, *_: Any) -> bool:
        return self.policy is RecoveryPolicy.AUTH_STATUS

    def is_bound_to_the_runtime(self, *_: Any) -> bool:
        return self.policy is RecoveryPolicy.RUNTIME_REBIND

    def is_a_notice(self, *_: Any) -> bool:
        return self.policy is RecoveryPolicy.NEVER

    def is_a_limit_warning(self, *_: Any) -> bool:
        return self.policy is RecoveryPolicy.LIMIT_WINDOW

    # --- the reset of a failed limit (docs/decisions.md#limit-that-resets) ------------------------

    def awaits_its_reset(self, *_: Any) -> bool:
        return self.resets_at_ms is not None and not self.reset_taken

    def its_reset_is_due(self, now_ms: int | None = None, *_: Any) -> bool:
        return self.resets_at_ms is not None and now_ms is not None and now_ms >= self.resets_at_ms

    def take_reset(self, *_: Any) -> None:
        self.reset_taken = True

    def forget_reset(self, *_: Any) -> None:
        self.resets_at_ms = None

    # --- revisions (the hand-coded rules above) ------------------------------------------------

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

    def _pending_revision(self, revision: int) -> FailureRecord:
        pending = self.pending
        if pending is None or pending.revision != revision:
            raise FsmError(f"incident {self.id}: revision {revision} is not pending")
        return pending

    def confirm(self, revision: int) -> None:
        """The pending revision reached the client: it becomes current (state REVISING), or
        the incident resolves at once when it was restored already recovered."""
        pending = self._pending_revision(revision)
        # A revision's recovery policy holds from its delivery on, like the revision itself.
        self.current, self.policy = pending, self._pending_policy
        if (
            pending.reset_at_epoch_ms is not None
            and pending.kind in _LIMITS_THAT_RESET
            and pending.severity is Severity.ERROR
        ):
            # Claude said when this limit resets: the reset is awaited from now on
            # (docs/decisions.md#limit-that-resets).
            self.resets_at_ms = pending.reset_at_epoch_ms
        self.pending = None
        self.fire(IncidentTrigger.DELIVERY_CONFIRMED)

    def fail(self, revision: int) -> None:
        """The pending revision's delivery failed: nothing else changes."""
        self._pending_revision(revision)
        self.fire(IncidentTrigger.DELIVERY_FAILED)
        self.pending = None

    def reach(self, boundary: IncidentTrigger, turn_id: str | None = None) -> bool:
        """Tell the incident a recovery boundary was reached; True iff it resolved."""
        self.fire(boundary, turn_id)
        return self.state is IncidentState.RESOLVED_HISTORICAL
