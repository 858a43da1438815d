"""The turn machine's table, row by row, and every (state, trigger) pair.

The table is an ordered decision list: for one (state, trigger) pair the first row whose guards
hold wins. Each row is exercised here on its own: the row's guards are made to hold, the guards
of the rows before it (for the same pair) to fail, and the callbacks are replaced by recorders,
so the test shows that this row is reachable, that it lands in its destination, and that it runs
exactly its callbacks in order. Every pair the table does not list raises `InvalidTransition`
with the state unchanged. What the guards and callbacks mean is told by the narratives in
`tests/core/session/` and the random walks in `tests/core/test_stateful.py`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from fsm.errors import InvalidTransition
from fsm.events import PromptSent
from fsm.ledger import Ledger
from fsm.machine import expanded
from fsm.turn import LIVE_STATES, TRANSITIONS, TURN_MACHINE, Turn, TurnState

S = TurnState
# One rule per (state, trigger) row of the literal table, each pair's rules in the order tried.
RULES = expanded(TRANSITIONS)
TRIGGERS = sorted({row["trigger"] for row in RULES})
PAIRS = {(row["source"], row["trigger"]) for row in RULES}
ROWS = list(enumerate(RULES))
INVALID = [(s, t) for s, t in itertools.product(TurnState, TRIGGERS) if (s, t) not in PAIRS]
SETTLING = ("settle_", "escalate_warning", "fail_")


def _rows_for(source: TurnState, trigger: str) -> list[dict[str, Any]]:
    return [row for row in RULES if (row["source"], row["trigger"]) == (source, trigger)]


@pytest.fixture
def turn() -> Iterator[Turn]:
    ledger = Ledger(session_id="s", epoch="e")
    model = Turn(ledger=ledger, capable=True, notices=True, private=())
    yield model
    model.detach()
    ledger.close()
    assert model not in TURN_MACHINE.models


def test_every_pair_ends_in_an_unguarded_row() -> None:
    # Whatever the guards say, a listed pair always has a row that applies: decisions are
    # complete, and only unlisted pairs can raise.
    for source, trigger in PAIRS:
        rows = _rows_for(source, trigger)
        if trigger == "prompt_sent" and source is not S.IDLE:
            # Only a prompt pushed into a running turn may be reported sent while one is
            # live; any other is the shell's protocol bug, and raises (below).
            assert [r.get("conditions") for r in rows] == [["was_pushed"]], source
            continue
        assert not rows[-1].get("conditions") and not rows[-1].get("unless"), (source, trigger)


def test_the_shape_of_the_lifecycle() -> None:
    for row in RULES:
        source, dest, before = row["source"], row["dest"], row.get("before", [])
        # A prompt is answered once: only live states settle, into IDLE (BROKEN on a fault).
        if any(name.startswith(SETTLING) for name in before):
            assert source in LIVE_STATES and dest in (S.IDLE, S.BROKEN), row
        # A new turn starts only when none is live.
        if row["trigger"] == "prompt_sent" and row.get("conditions") != ["was_pushed"]:
            assert (source, dest) == (S.IDLE, S.PROMPT_SENT)
        if row["trigger"] == "prompt_sent" and row.get("conditions") == ["was_pushed"]:
            assert dest is None, row  # a pushed prompt's turn begins at its echo
        # BROKEN is sticky (docs/decisions.md#internal-faults): nothing leaves it, and every fault
        # leads to it.
        if source is S.BROKEN:
            assert dest is None, row
        if row["trigger"] == "internal_fault_occurred" and source is not S.BROKEN:
            assert dest is S.BROKEN
        # One interrupt per turn: only the move into CANCELLING interrupts Claude.
        if "interrupt_claude" in before:
            assert dest is S.CANCELLING and source is not S.CANCELLING


def test_the_design_questions_are_rows() -> None:
    # Escalation, id reuse and recovery boundaries, as a reviewer reads them in the diagram.
    def has(source: S, trigger: str, dest: S | None, guard: str, *callbacks: str) -> bool:
        return any(
            row["dest"] is dest
            and guard in [*row.get("conditions", []), *row.get("unless", []), ""]
            and all(c in row.get("before", []) for c in callbacks)
            for row in _rows_for(source, trigger)
        )

    assert has(S.RETRYING, "result_received", S.IDLE, "has_a_warning_out", "escalate_warning")
    assert has(S.FAILING, "result_received", S.IDLE, "has_a_warning_out", "escalate_warning")
    assert has(S.RUNNING, "result_received", S.IDLE, "is_an_error", "fail_with_result")
    assert has(S.RUNNING, "retry_attempted", S.RETRYING, "", "warn_under_turn_id")
    assert has(S.RUNNING, "retry_attempted", S.RUNNING, "is_a_quiet_retry")
    assert has(S.RUNNING, "result_received", S.IDLE, "", "confirm_boundary", "settle_succeeded")
    assert has(S.RETRYING, "result_received", S.IDLE, "was_answered_for_real",
               "recover_after_answer")  # fmt: skip
    assert has(S.FAILING, "assistant_message_received", S.RUNNING, "is_a_real_answer",
               "release_withheld")  # fmt: skip


@pytest.mark.parametrize(("index", "row"), ROWS, ids=[f"{i}" for i, _ in ROWS])
def test_row_is_reachable_and_runs_its_callbacks(
    turn: Turn, index: int, row: dict[str, Any]
) -> None:
    source, trigger = row["source"], row["trigger"]
    earlier = [r for r in _rows_for(source, trigger) if RULES.index(r) < index]
    wanted = {g: True for g in row.get("conditions", [])} | {
        g: False for g in row.get("unless", [])
    }
    guards: dict[str, bool] = {}
    for other in earlier:
        # Make each earlier row fail on a guard this row does not pin.
        free = [(g, False) for g in other.get("conditions", []) if g not in wanted]
        free += [(g, True) for g in other.get("unless", []) if g not in wanted]
        assert free, f"row {index} is unreachable: row {RULES.index(other)} shadows it"
        guards.setdefault(*free[0])
    guards |= wanted
    for name, value in guards.items():
        setattr(turn, name, lambda *_, v=value: v)
    called: list[str] = []
    for name in {n for r in RULES for n in r.get("before", [])}:
        setattr(turn, name, lambda *_, n=name: called.append(n))
    TURN_MACHINE.set_state(source, model=turn)
    turn.fire(trigger, None)
    assert turn.state is (source if row["dest"] is None else row["dest"])
    assert called == row.get("before", [])


@pytest.mark.parametrize(("source", "trigger"), INVALID, ids=[f"{s.name}-{t}" for s, t in INVALID])
def test_unlisted_pair_raises_and_leaves_state(turn: Turn, source: TurnState, trigger: str) -> None:
    TURN_MACHINE.set_state(source, model=turn)
    with pytest.raises(InvalidTransition) as raised:
        turn.fire(trigger, None)
    assert (raised.value.machine, raised.value.trigger, raised.value.state) == (
        "turn",
        trigger,
        source.value,
    )
    assert (turn.state, turn.effects) == (source, [])


def test_unlisted_pairs_are_the_protocol_bugs() -> None:
    # What the table refuses: a second prompt while one is live, a prompt to a broken session
    # sent anyway, an interrupt's grace period ending where no interrupt is out (the core
    # derives that event itself). Everything any peer can do is a listed pair.
    grace = [S.PROMPT_SENT, S.RUNNING, S.RETRYING, S.FAILING]
    assert sorted((s.name, t) for s, t in INVALID) == sorted(
        [(s.name, "cancel_grace_expired") for s in grace]
    )


@pytest.mark.parametrize("source", [s for s in TurnState if s is not S.IDLE], ids=str)
def test_a_prompt_sent_while_a_turn_is_live_raises_unless_it_was_pushed(
    turn: Turn, source: TurnState
) -> None:
    # A second prompt while one is live is a protocol bug, as a prompt to a broken session
    # sent anyway; only one pushed into the running turn (prompt queueing) may be.
    TURN_MACHINE.set_state(source, model=turn)
    with pytest.raises(InvalidTransition):
        turn.fire("prompt_sent", PromptSent(turn_id="not-pushed"))
    assert (turn.state, turn.effects) == (source, [])
    turn.unsent_pushed.add("pushed")
    assert turn.fire("prompt_sent", PromptSent(turn_id="pushed")) == []
    assert turn.state is source and "pushed" not in turn.unsent_pushed
