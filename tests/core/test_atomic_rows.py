"""A turn row that touches the other machines is atomic: all of it or nothing.

Rows that reach a recovery boundary (`confirm_boundary`, `recover_after_answer`) or report the
runtime's end (`note_runtime_lost`) only record it; `Turn.fire` applies it once the row's
callbacks all ran. For every such row with a callback after it, that callback is made to raise:
the turn's state, the ledger's active incidents and the runtime's state must be unchanged. The
same row without the raise must change them, so the test can fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fsm.errors import FsmError
from fsm.ledger import Ledger
from fsm.machine import expanded
from fsm.runtime import RuntimeState
from fsm.turn import TRANSITIONS, TURN_MACHINE, Turn
from fsm.vocabulary import FailureKind, Severity

CROSSING = {"confirm_boundary", "recover_after_answer", "note_runtime_lost"}
RULES = [
    (i, r)
    for i, r in enumerate(expanded(TRANSITIONS))
    if CROSSING & set(r.get("before", [])) and r["before"][-1] not in CROSSING
]


@pytest.fixture
def turn() -> Iterator[Turn]:
    ledger = Ledger(session_id="s", epoch="e")
    # An earlier turn's error (retired at the next attempt) and a session-scoped warning
    # (retired by a real answer): each boundary row has something to retire.
    ledger.open_turn("t0")
    earlier = ledger.propose_turn(kind=FailureKind.OVERLOADED, severity=Severity.ERROR, text="x")
    ledger.confirm(earlier.id, earlier.revision)
    warning = ledger.propose_session(
        kind=FailureKind.OVERLOADED, severity=Severity.WARNING, text="y"
    )
    ledger.confirm(warning.id, warning.revision)
    ledger.open_turn("t1")
    model = Turn(ledger=ledger, capable=True, notices=True, private=())
    model.turn_id = "t1"
    yield model
    model.detach()
    ledger.close()


def _run(turn: Turn, rule: dict[str, Any], *, raising: bool) -> None:
    for name in rule.get("conditions", []):
        setattr(turn, name, lambda *_: True)
    for name in rule.get("unless", []):
        setattr(turn, name, lambda *_: False)
    # Every earlier rule of the pair must decline: pin the guards this rule does not name.
    for other in expanded(TRANSITIONS):
        if (other["source"], other["trigger"]) != (rule["source"], rule["trigger"]):
            continue
        if other is rule or other == rule:
            break
        free = [g for g in other.get("conditions", []) if g not in rule.get("conditions", [])]
        setattr(turn, free[0], lambda *_: False)
    last = rule["before"][-1]
    for name in rule["before"]:
        if name in CROSSING:
            continue

        def callback(*_: Any, name: str = name) -> None:
            if raising and name == last:
                raise FsmError(f"{name} failed")

        setattr(turn, name, callback)
    TURN_MACHINE.set_state(rule["source"], model=turn)
    turn.fire(rule["trigger"], None)


@pytest.mark.parametrize(("index", "rule"), RULES, ids=[str(i) for i, _ in RULES])
def test_a_raising_row_changes_no_machine(turn: Turn, index: int, rule: dict[str, Any]) -> None:
    before = (turn.ledger.active(), turn.runtime.state)
    with pytest.raises(FsmError):
        _run(turn, rule, raising=True)
    assert (turn.state, turn.ledger.active(), turn.runtime.state) == (rule["source"], *before)


@pytest.mark.parametrize(("index", "rule"), RULES, ids=[str(i) for i, _ in RULES])
def test_the_same_row_without_the_raise_changes_them(
    turn: Turn, index: int, rule: dict[str, Any]
) -> None:
    active = turn.ledger.active()
    _run(turn, rule, raising=False)
    if "note_runtime_lost" in rule["before"]:
        assert turn.runtime.state is RuntimeState.LOST
    else:
        assert len(turn.ledger.active()) < len(active)


def test_every_kind_of_crossing_row_is_covered() -> None:
    named = {n for _, r in RULES for n in r["before"]}
    assert named >= CROSSING
