"""A turn row that touches the other machines is atomic: all of it or nothing.

Rows that reach a recovery boundary (`confirm_boundary`, `recover_after_answer`) or report the
runtime's end (`note_runtime_lost`) only record it; `Turn.fire` applies it once the row's
callbacks all ran. For every such row with a callback after it, that callback is made to raise:
the turn's state, the ledger's active incidents and the runtime's state must be unchanged. The
same row without the raise must change them, so the test can fail.

Then the same with the real callbacks: only a row's last callback raises, and nothing any other
machine holds may have changed. That holds by construction: a callback that writes the ledger
at once ends its row, which the turn's table is checked for when it is built
(`fsm.turn.writers_end_their_rows`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fsm.errors import FsmError
from fsm.events import (
    AnswerStreamStarted,
    AssistantMessageReceived,
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
    OwnTurnStopFailed,
    OwnTurnStopped,
    PromptEchoed,
    PromptEnded,
    PromptFate,
    PromptQueued,
    PromptReceived,
    PromptSent,
    PromptStarted,
    ResultReceived,
    RetryAttempted,
    RuntimeStartFailed,
    SessionClosing,
    SteerReceived,
    StreamEnded,
    TransportLost,
    TurnWentBusy,
    TurnWentIdle,
)
from fsm.ledger import Ledger
from fsm.machine import expanded
from fsm.runtime import RuntimeState
from fsm.turn import TRANSITIONS, TURN_MACHINE, Turn, TurnState, writers_end_their_rows
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


def _pin_guards(turn: Turn, rule: dict[str, Any]) -> None:
    """Make `rule` the row that fires: its guards hold, and every earlier row of the same source
    and trigger declines (the guards this rule does not name are pinned false)."""
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


def _run(turn: Turn, rule: dict[str, Any], *, raising: bool) -> None:
    _pin_guards(turn, rule)
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


# --- the same guarantee with the real callbacks ---------------------------------------------
#
# Above, every callback but the crossing ones is a stub. Here the row's callbacks are the real
# ones, run on a turn whose ledger has something to change (an earlier turn's error, a
# session-scoped warning, this turn's delivered warning), with a plausible event for its
# trigger; only the row's last callback is made to raise. What the other machines hold (every
# incident's state and revisions, the ledger's counters and open turn, the runtime's state)
# must be exactly as before, and the turn's state too.

E = "e"
SAMPLES: dict[str, Event] = {
    "prompt_received": PromptReceived(turn_id="t2"),
    "prompt_sent": PromptSent(turn_id="t2"),
    "prompt_echoed": PromptEchoed(epoch=E, turn_id="t2"),
    "prompt_started": PromptStarted(epoch=E, turn_id="t2"),
    "prompt_queued": PromptQueued(epoch=E, turn_id="t2"),
    "prompt_ended": PromptEnded(epoch=E, turn_id="t2", fate=PromptFate.COMPLETED),
    "steer_received": SteerReceived(),
    "cancel_requested": CancelRequested(),
    "cancel_grace_expired": CancelGraceExpired(),
    "internal_fault_occurred": InternalFaultOccurred(),
    "fresh_context_chosen": FreshContextChosen(),
    "fresh_context_ready": FreshContextReady(),
    "session_closing": SessionClosing(),
    "own_turn_stopped": OwnTurnStopped(),
    "own_turn_stop_failed": OwnTurnStopFailed(),
    "runtime_start_failed": RuntimeStartFailed(reason="Claude Code did not start."),
    "assistant_message_received": AssistantMessageReceived(
        epoch=E, model="<synthetic>", text="API Error: 529", text_block_count=1, error="overloaded"
    ),
    "retry_attempted": RetryAttempted(
        epoch=E, attempt=2, max_retries=10, error_status=529, error="overloaded"
    ),
    "result_received": ResultReceived(
        epoch=E, subtype="error_during_execution", is_error=True, result="API Error: 500"
    ),
    "claude_silent": ClaudeSilent(epoch=E, waited_seconds=30),
    "message_too_large": MessageTooLarge(epoch=E, limit_bytes=1024),
    "background_task_started": BackgroundTaskStarted(epoch=E, task_id="a1", subagent=True),
    "background_task_settled": BackgroundTaskSettled(epoch=E, task_id="a1"),
    "background_tasks_listed": BackgroundTasksListed(epoch=E, task_ids=frozenset({"a1"})),
    "turn_went_busy": TurnWentBusy(epoch=E),
    "turn_went_idle": TurnWentIdle(epoch=E),
    "answer_stream_started": AnswerStreamStarted(epoch=E, model="claude-sonnet-4-5"),
    "stream_ended": StreamEnded(epoch=E),
    "transport_lost": TransportLost(epoch=E),
}
SEVERAL = [(i, r) for i, r in enumerate(expanded(TRANSITIONS)) if len(r.get("before", [])) > 1]
# Callbacks that write to another machine when they run (or record it for `Turn.fire`).
WRITERS = ("settle_", "fail_", "escalate_warning", "warn_", "report_", *sorted(CROSSING))


@pytest.fixture
def live_turn(turn: Turn) -> Turn:
    # This turn's own warning is out too, so escalating and revising rows have their entry.
    warning = turn.ledger.propose_turn(
        kind=FailureKind.OVERLOADED, severity=Severity.WARNING, text="z"
    )
    turn.ledger.confirm(warning.id, warning.revision)
    return turn


def _other_machines(turn: Turn) -> tuple[Any, ...]:
    ledger = turn.ledger
    incidents = sorted(
        (i.id, i.state.value, i.current, i.pending, i.resets_at_ms, i.reset_taken)
        for i in ledger._incidents.values()  # read only: the whole of what it holds
    )
    return (incidents, ledger.history(), ledger.next_incident, ledger.epoch, ledger._open_turn,
            turn.runtime.state)  # fmt: skip


def _run_real(turn: Turn, rule: dict[str, Any], *, raising: bool) -> None:
    _pin_guards(turn, rule)
    if raising:
        last = rule["before"][-1]

        def fails(*_: Any) -> None:
            raise FsmError(f"{last} failed")

        setattr(turn, last, fails)
    if rule["trigger"] == "prompt_echoed":
        turn.pushed.append("t2")  # the sample echoes a prompt pushed while the turn ran
    TURN_MACHINE.set_state(rule["source"], model=turn)
    turn.fire(rule["trigger"], SAMPLES[rule["trigger"]])


def test_every_trigger_has_a_sample_event() -> None:
    assert {r["trigger"] for r in expanded(TRANSITIONS)} <= set(SAMPLES)


@pytest.mark.parametrize(("index", "rule"), SEVERAL, ids=[str(i) for i, _ in SEVERAL])
def test_a_row_whose_last_real_callback_raises_changes_no_other_machine(
    live_turn: Turn, index: int, rule: dict[str, Any]
) -> None:
    before = _other_machines(live_turn)
    with pytest.raises(FsmError):
        _run_real(live_turn, rule, raising=True)
    assert live_turn.state is rule["source"]
    assert _other_machines(live_turn) == before


WRITING = [(i, r) for i, r in SEVERAL if any(n.startswith(WRITERS) for n in r["before"])]


@pytest.mark.parametrize(("index", "rule"), WRITING, ids=[str(i) for i, _ in WRITING])
def test_the_same_real_row_without_the_raise_changes_them(
    live_turn: Turn, index: int, rule: dict[str, Any]
) -> None:
    # So the comparison above can fail: run whole, a row with a writing callback changes
    # what the other machines hold.
    before = _other_machines(live_turn)
    _run_real(live_turn, rule, raising=False)
    assert _other_machines(live_turn) != before


def test_a_table_with_a_ledger_writer_before_another_callback_does_not_load() -> None:
    # The construction: every writer ends its row in the real table, and a table that breaks
    # it is refused before any machine is built from it.
    writers_end_their_rows(TRANSITIONS)
    early = {"trigger": "result_received", "source": TurnState.RUNNING, "dest": TurnState.IDLE,
             "before": ["settle_succeeded", "confirm_boundary"]}  # fmt: skip
    with pytest.raises(FsmError, match="settle_succeeded writes the ledger"):
        writers_end_their_rows([*TRANSITIONS, early])
