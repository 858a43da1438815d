"""The two machine tables, transition by transition, plus the data rules the tables do not draw.

Every (state, trigger) pair of each machine is either a row of its table (the trigger moves a
fresh model from that state to the row's destination) or raises `InvalidTransition` and leaves
the state unchanged. The tables are also compared with an explicit copy written here, so an
edit to a table fails a test until this file agrees.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from enum import Enum
from typing import Any

import pytest

from fsm.errors import FsmError, InvalidTransition
from fsm.incident import INCIDENT_MACHINE, Incident, IncidentState, IncidentTrigger
from fsm.records import FailureRecord
from fsm.vocabulary import Action, Category, FailureKind, RecoveryPolicy, Severity

IS = IncidentState
IT = IncidentTrigger

# --- the tables as they must be ------------------------------------------------------------

EXPECTED_INCIDENT_TABLE: dict[tuple[IncidentState, IncidentTrigger], IncidentState] = {
    (IS.CREATED, IT.REVISION_PROPOSED): IS.CREATED,
    (IS.REVISING, IT.REVISION_PROPOSED): IS.REVISING,
    (IS.CREATED, IT.DELIVERY_CONFIRMED): IS.REVISING,
    (IS.REVISING, IT.DELIVERY_CONFIRMED): IS.REVISING,
    (IS.CREATED, IT.DELIVERY_FAILED): IS.CREATED,
    (IS.REVISING, IT.DELIVERY_FAILED): IS.REVISING,
    # A recovery boundary that does not retire the incident leaves it as it is.
    **{
        (state, boundary): state
        for state in (IS.CREATED, IS.REVISING)
        for boundary in (
            IT.ATTEMPT_CONFIRMED,
            IT.REAL_ANSWER_GIVEN,
            IT.AUTH_CONFIRMED,
            IT.RUNTIME_REPLACED,
            IT.NOTICES_OVERFLOWED,
            IT.WINDOW_CLOSED,
            IT.RESET_REACHED,
            IT.RESET_SUPERSEDED,
        )
    },
}

# docs/decisions.md#recovery as guarded rows: (trigger, guards; `!` must not hold) that move
# REVISING to history.
EXPECTED_RECOVERY_ROWS = [
    (IT.DELIVERY_CONFIRMED, ("resolves_on_delivery",)),
    (
        IT.ATTEMPT_CONFIRMED,
        ("recovers_at_next_attempt", "is_of_an_earlier_turn", "!is_session_scoped"),
    ),
    (IT.ATTEMPT_CONFIRMED, ("is_a_warning", "is_of_an_earlier_turn", "!is_session_scoped")),
    (IT.REAL_ANSWER_GIVEN, ("recovers_on_real_answer", "!is_a_warning")),
    (IT.REAL_ANSWER_GIVEN, ("recovers_at_next_attempt", "is_session_scoped")),
    (IT.REAL_ANSWER_GIVEN, ("is_a_warning", "is_session_scoped")),
    (IT.REAL_ANSWER_GIVEN, ("is_a_warning_of_this_turn",)),
    (IT.AUTH_CONFIRMED, ("recovers_on_auth_status", "!is_a_warning")),
    (IT.RUNTIME_REPLACED, ("is_bound_to_the_runtime", "!is_a_warning")),
    (IT.NOTICES_OVERFLOWED, ("is_a_notice",)),
    (IT.WINDOW_CLOSED, ("is_a_limit_warning",)),
]

# docs/decisions.md#limit-that-resets as guarded rows that keep the incident active: (trigger,
# guards, callback).
EXPECTED_RESET_ROWS = [
    (IT.RESET_REACHED, ("awaits_its_reset", "its_reset_is_due"), "take_reset"),
    (IT.RUNTIME_REPLACED, ("awaits_its_reset",), "forget_reset"),
    (IT.RESET_SUPERSEDED, ("awaits_its_reset",), "forget_reset"),
]

# --- the tables as the machines hold them ----------------------------------------------------


def _table(machine: Any, states: type[Enum], triggers: type[Enum]) -> dict[Any, Any]:
    # Read back `machine.events[trigger].transitions[source]`: the unguarded row the machine
    # runs for each pair (recovery rows, guarded by policy, are checked on their own below).
    rows: dict[Any, Any] = {}
    for trigger, event in machine.events.items():
        for source, transitions in event.transitions.items():
            plain = [t for t in transitions if not t.conditions]
            assert len(plain) == 1, "each pair ends in exactly one unguarded row"
            key = (states[source], triggers(trigger))
            dest = plain[0].dest
            rows[key] = states[source] if dest is None else states[dest]
    return rows


INCIDENT_TABLE = _table(INCIDENT_MACHINE, IncidentState, IncidentTrigger)

INCIDENT_VALID = sorted(((src, trig, dst) for (src, trig), dst in INCIDENT_TABLE.items()), key=str)
INCIDENT_INVALID = [
    (src, trig)
    for src, trig in itertools.product(IncidentState, IncidentTrigger)
    if (src, trig) not in INCIDENT_TABLE
]


@pytest.fixture
def incident() -> Iterator[Incident]:
    model = Incident(id="turn-1:error", turn_id="turn-1", policy=RecoveryPolicy.NEXT_ATTEMPT)
    yield model
    model.detach()
    assert model not in INCIDENT_MACHINE.models


def _record(revision: int, *, severity: Severity = Severity.ERROR) -> FailureRecord:
    return FailureRecord(
        id="turn-1:error",
        revision=revision,
        category=Category.SERVICE,
        severity=severity,
        title=f"Claude is overloaded ({revision}).",
        actions=() if severity is Severity.WARNING else (Action.RETRY,),
        kind=FailureKind.OVERLOADED,
    )


# --- the tables are what the spec says ---------------------------------------------------------


def test_incident_table_matches_the_written_table() -> None:
    assert INCIDENT_TABLE == EXPECTED_INCIDENT_TABLE


def test_recovery_policy_is_the_guarded_rows() -> None:
    rows = [
        (
            IT(t.trigger if hasattr(t, "trigger") else trigger),
            tuple(c.func if c.target else f"!{c.func}" for c in t.conditions),
        )
        for trigger, event in INCIDENT_MACHINE.events.items()
        for source, transitions in event.transitions.items()
        for t in transitions
        if t.conditions and source == IS.REVISING.name and t.dest is not None
    ]
    assert sorted(rows, key=str) == sorted(EXPECTED_RECOVERY_ROWS, key=str)
    # Every guarded row ends in history, or is one of the reset's internal rows
    # (docs/decisions.md#limit-that-resets).
    resets = []
    for row in incident_table_rows():
        if row.get("conditions") and row["dest"] is None:
            resets.append((row["trigger"], tuple(row["conditions"]), *row["before"]))
        elif row.get("conditions"):
            assert row["dest"] is IS.RESOLVED_HISTORICAL
    assert resets == EXPECTED_RESET_ROWS


def test_every_pair_is_either_a_row_or_invalid() -> None:
    # The valid and invalid lists partition the product, for both machines.
    assert len(INCIDENT_VALID) + len(INCIDENT_INVALID) == len(IncidentState) * len(IncidentTrigger)
    assert (len(INCIDENT_VALID), len(INCIDENT_INVALID)) == (22, 11)


def incident_table_rows() -> list[dict[str, Any]]:
    from fsm.incident import TRANSITIONS

    return TRANSITIONS


def test_resolved_incident_has_no_way_out() -> None:
    # RESOLVED_HISTORICAL is terminal: no row starts there.
    assert [k for k in INCIDENT_TABLE if k[0] is IS.RESOLVED_HISTORICAL] == []


# --- transition by transition: incident --------------------------------------------------------


@pytest.mark.parametrize(("source", "trigger", "dest"), INCIDENT_VALID)
def test_incident_row_moves_a_fresh_model(
    incident: Incident, source: IncidentState, trigger: IncidentTrigger, dest: IncidentState
) -> None:
    # Put the fresh incident into the row's source state.
    INCIDENT_MACHINE.set_state(source, model=incident)
    assert incident.state is source
    # Fire the row's trigger through the model.
    incident.fire(trigger, "turn-1")  # its own turn: no policy guard holds
    assert incident.state is dest


@pytest.mark.parametrize(("source", "trigger"), INCIDENT_INVALID)
def test_incident_invalid_pair_raises_and_leaves_state(
    incident: Incident, source: IncidentState, trigger: IncidentTrigger
) -> None:
    INCIDENT_MACHINE.set_state(source, model=incident)
    # Firing a pair that is not a row is loud ...
    with pytest.raises(InvalidTransition) as raised:
        incident.fire(trigger, "turn-1")  # its own turn: no policy guard holds
    assert (raised.value.machine, raised.value.trigger, raised.value.state) == (
        "incident",
        trigger,
        source.value,
    )
    # ... and atomic.
    assert incident.state is source


# --- Incident data rules (outside the table) -----------------------------------------------------


def test_incident_revision_is_pending_until_delivery_is_confirmed(incident: Incident) -> None:
    # A fresh incident has nothing yet and expects revision 1.
    assert (incident.state, incident.current, incident.pending) == (IS.CREATED, None, None)
    assert incident.next_revision == 1
    # Proposing makes revision 1 pending, not current.
    first = _record(1, severity=Severity.WARNING)
    incident.propose(first, RecoveryPolicy.NEXT_ATTEMPT)
    assert (incident.state, incident.current, incident.pending) == (IS.CREATED, None, first)
    assert incident.next_revision == 1
    # Confirming delivery makes it current; the incident is now active.
    incident.confirm(1)
    assert (incident.state, incident.current, incident.pending) == (IS.REVISING, first, None)
    assert incident.next_revision == 2
    # The next revision is numbered from the delivered one.
    second = _record(2)
    incident.propose(second, RecoveryPolicy.REAL_MODEL_SUCCESS)
    # Its recovery policy, like the revision, holds only once delivered
    # (docs/decisions.md#delivery).
    assert incident.policy is RecoveryPolicy.NEXT_ATTEMPT
    incident.confirm(2)
    assert incident.policy in {RecoveryPolicy.REAL_MODEL_SUCCESS}  # (set: mypy narrowed it above)
    assert (incident.state, incident.current, incident.pending) == (IS.REVISING, second, None)
    assert incident.next_revision == 3


def test_incident_allows_one_pending_revision_with_the_next_number(incident: Incident) -> None:
    pending = _record(1)
    incident.propose(pending, RecoveryPolicy.NEXT_ATTEMPT)
    # A second proposal while one is pending is refused and changes nothing.
    with pytest.raises(FsmError, match="still pending"):
        incident.propose(_record(1), RecoveryPolicy.NEVER)
    assert (incident.state, incident.pending, incident.policy) == (
        IS.CREATED,
        pending,
        RecoveryPolicy.NEXT_ATTEMPT,
    )
    # Confirming or failing a revision that is not the pending one is refused too.
    with pytest.raises(FsmError, match="not pending"):
        incident.confirm(2)
    with pytest.raises(FsmError, match="not pending"):
        incident.fail(2)
    assert (incident.state, incident.current, incident.pending) == (IS.CREATED, None, pending)


def test_incident_refuses_a_revision_out_of_sequence(incident: Incident) -> None:
    # Revision 2 before revision 1 was delivered is refused.
    with pytest.raises(FsmError, match="expected revision 1"):
        incident.propose(_record(2), RecoveryPolicy.NEXT_ATTEMPT)
    # So is a record of another incident.
    other = FailureRecord(
        id="turn-2:error",
        revision=1,
        category=Category.SERVICE,
        severity=Severity.ERROR,
        title="Claude is overloaded.",
        actions=(Action.RETRY,),
        kind=FailureKind.OVERLOADED,
    )
    with pytest.raises(FsmError, match="expected revision 1"):
        incident.propose(other, RecoveryPolicy.NEXT_ATTEMPT)
    assert (incident.state, incident.current, incident.pending) == (IS.CREATED, None, None)


def test_incident_failed_delivery_changes_nothing(incident: Incident) -> None:
    # A failed first delivery leaves the incident as if nothing was proposed.
    incident.propose(_record(1, severity=Severity.WARNING), RecoveryPolicy.NEXT_ATTEMPT)
    incident.fail(1)
    assert (incident.state, incident.current, incident.pending) == (IS.CREATED, None, None)
    assert incident.next_revision == 1
    # Once delivered, a failed later revision keeps the delivered one current.
    delivered = _record(1, severity=Severity.WARNING)
    incident.propose(delivered, RecoveryPolicy.NEXT_ATTEMPT)
    incident.confirm(1)
    incident.propose(_record(2), RecoveryPolicy.NEXT_ATTEMPT)
    incident.fail(2)
    assert (incident.state, incident.current, incident.pending) == (IS.REVISING, delivered, None)
    assert incident.next_revision == 2


def test_incident_resolved_is_never_reactivated(incident: Incident) -> None:
    # An incident nobody saw cannot recover: a boundary leaves it as it is.
    assert incident.reach(IT.ATTEMPT_CONFIRMED, "turn-2") is False
    assert incident.state is IS.CREATED
    # A delivered one can, and keeps its last record as history.
    delivered = _record(1)
    incident.propose(delivered, RecoveryPolicy.NEXT_ATTEMPT)
    incident.confirm(1)
    # Its own turn's result is no boundary for it; a later turn's is (docs/decisions.md#recovery).
    assert incident.reach(IT.ATTEMPT_CONFIRMED, "turn-1") is False
    assert incident.reach(IT.ATTEMPT_CONFIRMED, "turn-2") is True
    assert (incident.state, incident.current, incident.pending) == (
        IS.RESOLVED_HISTORICAL,
        delivered,
        None,
    )
    # No revision, delivery report or second recovery moves it again.
    with pytest.raises(InvalidTransition):
        incident.propose(_record(2), RecoveryPolicy.NEXT_ATTEMPT)
    with pytest.raises(FsmError):
        incident.confirm(2)
    with pytest.raises(InvalidTransition):
        incident.reach(IT.RUNTIME_REPLACED)
    assert (incident.state, incident.current, incident.pending) == (
        IS.RESOLVED_HISTORICAL,
        delivered,
        None,
    )


def test_models_attach_and_detach_from_the_shared_machines() -> None:
    # Every instance joins its kind's one machine and leaves it on detach.
    before = len(INCIDENT_MACHINE.models)
    incident = Incident(id="x:error", turn_id="x", policy=RecoveryPolicy.NEVER)
    assert len(INCIDENT_MACHINE.models) == before + 1
    incident.detach()
    assert len(INCIDENT_MACHINE.models) == before


def test_attaching_a_model_binds_only_what_it_declares(caplog: pytest.LogCaptureFixture) -> None:
    # model_override=True: transitions sets `state` and binds nothing else (the core fires
    # through the machine's own events), and says nothing about the names it declined
    # (fsm/machine.py drops that per-model warning).
    caplog.set_level("DEBUG", logger="transitions")
    incident = Incident(id="x:error", turn_id="x", policy=RecoveryPolicy.NEVER)
    try:
        assert sorted(vars(incident)) == [
            "_pending_policy",
            "_resolves_on_delivery",
            "current",
            "id",
            "pending",
            "policy",
            "reset_taken",
            "resets_at_ms",
            "state",
            "turn_id",
        ]
        assert [r for r in caplog.records if r.levelname == "WARNING"] == []
    finally:
        incident.detach()
