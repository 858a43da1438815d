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
from fsm.turn import LIVE_STATES, TURN_MACHINE, TurnLifecycle, TurnState, TurnTrigger
from fsm.vocabulary import Action, Category, FailureKind, RecoveryPolicy, Severity

IS = IncidentState
IT = IncidentTrigger
TS = TurnState
TT = TurnTrigger

# --- the tables as they must be ------------------------------------------------------------

EXPECTED_INCIDENT_TABLE: dict[tuple[IncidentState, IncidentTrigger], IncidentState] = {
    (IS.CREATED, IT.REVISION_PROPOSED): IS.CREATED,
    (IS.REVISING, IT.REVISION_PROPOSED): IS.REVISING,
    (IS.CREATED, IT.DELIVERY_CONFIRMED): IS.REVISING,
    (IS.REVISING, IT.DELIVERY_CONFIRMED): IS.REVISING,
    (IS.CREATED, IT.DELIVERY_FAILED): IS.CREATED,
    (IS.REVISING, IT.DELIVERY_FAILED): IS.REVISING,
    (IS.REVISING, IT.RECOVERY_CONFIRMED): IS.RESOLVED_HISTORICAL,
}

_SETTLED = (TS.IDLE, TS.SUCCEEDED, TS.FAILED, TS.CANCELLED, TS.REFUSED)
_LIVE = (TS.PROMPT_SENT, TS.RUNNING, TS.RETRYING)
_SETTLING = {
    TT.TURN_SUCCEEDED: TS.SUCCEEDED,
    TT.TURN_FAILED: TS.FAILED,
    TT.TURN_CANCELLED: TS.CANCELLED,
    TT.TURN_REFUSED: TS.REFUSED,
}

EXPECTED_TURN_TABLE: dict[tuple[TurnState, TurnTrigger], TurnState] = {
    **{(state, TT.PROMPT_SENT): TS.PROMPT_SENT for state in _SETTLED},
    (TS.PROMPT_SENT, TT.CLAUDE_RESPONDED): TS.RUNNING,
    (TS.RUNNING, TT.CLAUDE_RESPONDED): TS.RUNNING,
    (TS.RETRYING, TT.CLAUDE_RESPONDED): TS.RETRYING,
    **{(state, TT.RETRY_WARNED): TS.RETRYING for state in _LIVE},
    **{(state, trigger): dest for state in _LIVE for trigger, dest in _SETTLING.items()},
}


# --- the tables as the machines hold them ----------------------------------------------------


def _table(machine: Any, states: type[Enum], triggers: type[Enum]) -> dict[Any, Any]:
    # Read back `machine.events[trigger].transitions[source]`: every row the machine will run.
    rows: dict[Any, Any] = {}
    for trigger, event in machine.events.items():
        for source, transitions in event.transitions.items():
            assert len(transitions) == 1, "one row per (state, trigger): no conditions"
            key = (states[source], triggers(trigger))
            rows[key] = states[transitions[0].dest]
    return rows


INCIDENT_TABLE = _table(INCIDENT_MACHINE, IncidentState, IncidentTrigger)
TURN_TABLE = _table(TURN_MACHINE, TurnState, TurnTrigger)

INCIDENT_VALID = sorted(((src, trig, dst) for (src, trig), dst in INCIDENT_TABLE.items()), key=str)
INCIDENT_INVALID = [
    (src, trig)
    for src, trig in itertools.product(IncidentState, IncidentTrigger)
    if (src, trig) not in INCIDENT_TABLE
]
TURN_VALID = sorted(((src, trig, dst) for (src, trig), dst in TURN_TABLE.items()), key=str)
TURN_INVALID = [
    (src, trig)
    for src, trig in itertools.product(TurnState, TurnTrigger)
    if (src, trig) not in TURN_TABLE
]


@pytest.fixture
def incident() -> Iterator[Incident]:
    model = Incident(id="turn-1:error", turn_id="turn-1", policy=RecoveryPolicy.NEXT_ATTEMPT)
    yield model
    model.detach()
    assert model not in INCIDENT_MACHINE.models


@pytest.fixture
def turn() -> Iterator[TurnLifecycle]:
    model = TurnLifecycle()
    yield model
    model.detach()
    assert model not in TURN_MACHINE.models


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


def test_turn_table_matches_the_written_table() -> None:
    assert TURN_TABLE == EXPECTED_TURN_TABLE


def test_every_pair_is_either_a_row_or_invalid() -> None:
    # The valid and invalid lists partition the product, for both machines.
    assert len(INCIDENT_VALID) + len(INCIDENT_INVALID) == len(IncidentState) * len(IncidentTrigger)
    assert len(TURN_VALID) + len(TURN_INVALID) == len(TurnState) * len(TurnTrigger)
    assert (len(INCIDENT_VALID), len(INCIDENT_INVALID)) == (7, 5)
    assert (len(TURN_VALID), len(TURN_INVALID)) == (23, 33)


def test_resolved_incident_has_no_way_out() -> None:
    # RESOLVED_HISTORICAL is terminal: no row starts there.
    assert [k for k in INCIDENT_TABLE if k[0] is IS.RESOLVED_HISTORICAL] == []


def test_settling_triggers_start_only_from_live_states() -> None:
    # A prompt is answered once: settling needs a live turn, and a new prompt a settled one.
    for (source, trigger), _dest in TURN_TABLE.items():
        if trigger in _SETTLING or trigger is TT.RETRY_WARNED:
            assert source in LIVE_STATES
        if trigger is TT.PROMPT_SENT:
            assert source not in LIVE_STATES


# --- transition by transition: incident --------------------------------------------------------


@pytest.mark.parametrize(("source", "trigger", "dest"), INCIDENT_VALID)
def test_incident_row_moves_a_fresh_model(
    incident: Incident, source: IncidentState, trigger: IncidentTrigger, dest: IncidentState
) -> None:
    # Put the fresh incident into the row's source state.
    INCIDENT_MACHINE.set_state(source, model=incident)
    assert incident.state is source
    # Fire the row's trigger through the model.
    incident.fire(trigger)
    assert incident.state is dest


@pytest.mark.parametrize(("source", "trigger"), INCIDENT_INVALID)
def test_incident_invalid_pair_raises_and_leaves_state(
    incident: Incident, source: IncidentState, trigger: IncidentTrigger
) -> None:
    INCIDENT_MACHINE.set_state(source, model=incident)
    # Firing a pair that is not a row is loud ...
    with pytest.raises(InvalidTransition) as raised:
        incident.fire(trigger)
    assert (raised.value.machine, raised.value.trigger, raised.value.state) == (
        "incident",
        trigger,
        source.value,
    )
    # ... and atomic.
    assert incident.state is source


# --- transition by transition: turn -------------------------------------------------------------


@pytest.mark.parametrize(("source", "trigger", "dest"), TURN_VALID)
def test_turn_row_moves_a_fresh_model(
    turn: TurnLifecycle, source: TurnState, trigger: TurnTrigger, dest: TurnState
) -> None:
    TURN_MACHINE.set_state(source, model=turn)
    assert turn.state is source
    turn.fire(trigger)
    assert turn.state is dest
    assert turn.live is (dest in LIVE_STATES)


@pytest.mark.parametrize(("source", "trigger"), TURN_INVALID)
def test_turn_invalid_pair_raises_and_leaves_state(
    turn: TurnLifecycle, source: TurnState, trigger: TurnTrigger
) -> None:
    TURN_MACHINE.set_state(source, model=turn)
    with pytest.raises(InvalidTransition) as raised:
        turn.fire(trigger)
    assert (raised.value.machine, raised.value.trigger, raised.value.state) == (
        "turn",
        trigger,
        source.value,
    )
    assert turn.state is source


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
    # Its recovery policy, like the revision, holds only once delivered (row 21).
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
    # An incident nobody saw cannot recover.
    with pytest.raises(InvalidTransition):
        incident.resolve()
    assert incident.state is IS.CREATED
    # A delivered one can, and keeps its last record as history.
    delivered = _record(1)
    incident.propose(delivered, RecoveryPolicy.NEXT_ATTEMPT)
    incident.confirm(1)
    incident.resolve()
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
        incident.resolve()
    assert (incident.state, incident.current, incident.pending) == (
        IS.RESOLVED_HISTORICAL,
        delivered,
        None,
    )


# --- TurnLifecycle liveness -----------------------------------------------------------------------


def test_turn_lives_from_prompt_to_one_settlement(turn: TurnLifecycle) -> None:
    # A new session's turn is idle: nothing to answer.
    assert (turn.state, turn.live, turn.turn_id) == (TS.IDLE, False, None)
    # A prompt makes it live under the shell's uuid.
    turn.start("turn-1")
    assert (turn.state, turn.live, turn.turn_id) == (TS.PROMPT_SENT, True, "turn-1")
    # A second prompt while live is refused; the live turn keeps its id.
    with pytest.raises(InvalidTransition):
        turn.start("turn-2")
    assert (turn.state, turn.live, turn.turn_id) == (TS.PROMPT_SENT, True, "turn-1")
    # Claude answers, a retry warning goes out: still live, still the same turn.
    turn.fire(TT.CLAUDE_RESPONDED)
    assert (turn.state, turn.live) == (TS.RUNNING, True)
    turn.fire(TT.RETRY_WARNED)
    turn.fire(TT.CLAUDE_RESPONDED)
    assert (turn.state, turn.live, turn.turn_id) == (TS.RETRYING, True, "turn-1")
    # The turn fails once; a second settlement is refused.
    turn.fire(TT.TURN_FAILED)
    assert (turn.state, turn.live) == (TS.FAILED, False)
    with pytest.raises(InvalidTransition):
        turn.fire(TT.TURN_SUCCEEDED)
    assert turn.state is TS.FAILED
    # The next prompt starts a new live turn with its own id.
    turn.start("turn-2")
    assert (turn.state, turn.live, turn.turn_id) == (TS.PROMPT_SENT, True, "turn-2")


def test_models_attach_and_detach_from_the_shared_machines() -> None:
    # Every instance joins its kind's one machine and leaves it on detach.
    before = (len(INCIDENT_MACHINE.models), len(TURN_MACHINE.models))
    incident = Incident(id="x:error", turn_id="x", policy=RecoveryPolicy.NEVER)
    turn = TurnLifecycle()
    assert (len(INCIDENT_MACHINE.models), len(TURN_MACHINE.models)) == (
        before[0] + 1,
        before[1] + 1,
    )
    incident.detach()
    turn.detach()
    assert (len(INCIDENT_MACHINE.models), len(TURN_MACHINE.models)) == before


def test_attaching_a_model_binds_only_what_it_declares(caplog: pytest.LogCaptureFixture) -> None:
    # model_override=True: transitions binds `trigger` and `state`, nothing else, and says
    # nothing about the names it declined (fsm/machine.py drops that per-model warning).
    caplog.set_level("DEBUG", logger="transitions")
    incident = Incident(id="x:error", turn_id="x", policy=RecoveryPolicy.NEVER)
    try:
        assert sorted(vars(incident)) == [
            "_pending_policy",
            "current",
            "id",
            "pending",
            "policy",
            "state",
            "trigger",
            "turn_id",
        ]
        assert [r for r in caplog.records if r.levelname == "WARNING"] == []
    finally:
        incident.detach()


# --- the shared machines' model collections ----------------------------------------------------


def test_detaching_twice_is_an_error(turn: TurnLifecycle) -> None:
    # The models collection behaves like the list transitions keeps: removing a model that is
    # not attached raises, and membership follows identity.
    other = TurnLifecycle()
    other.detach()
    assert other not in TURN_MACHINE.models
    assert turn in TURN_MACHINE.models
    with pytest.raises(ValueError):
        other.detach()
