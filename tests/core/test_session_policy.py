"""Narratives for the policy the shell used to hold and now only performs: the prompt queue,
one interrupt per turn and its backstop, the stall schedule, the restart decision, the broken
state (docs/decisions.md#internal-faults), and "a resolved incident never comes back" by
construction."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fsm.effects import (
    Blame,
    InterruptClaude,
    LogNotice,
    PublishRecord,
    RejectPrompt,
    SendPrompt,
    SettlePrompt,
    ShowResult,
    StopReason,
    StopRuntime,
    WithdrawPrompt,
    WithdrawQuestions,
)
from fsm.errors import FsmError, InvalidTransition
from fsm.events import (
    AssistantMessageReceived,
    CancelRequested,
    CredentialsChanged,
    DeadlineReached,
    DeliveryConfirmed,
    HistoryFailureFound,
    InternalFaultOccurred,
    OutputReceived,
    PromptReceived,
    PromptSent,
    ResultReceived,
    RuntimeStarted,
    StreamEnded,
    TransportLost,
)
from fsm.ledger import HISTORY_LIMIT
from fsm.session import CANCEL_GRACE_SECONDS, SessionCore
from fsm.turn import TurnOutcome, TurnState
from fsm.vocabulary import Category, FailureKind, Severity
from tests.support.session_narrative import shown

E1, E2 = "epoch-1", "epoch-2"
WITHDRAW = WithdrawQuestions()
CANCELLED = StopReason.CANCELLED


@pytest.fixture
def core() -> Iterator[SessionCore]:
    core = SessionCore(session_id="s", epoch=E1, capable=True, stall_seconds=120)
    yield core
    core.close()


def _ok() -> ResultReceived:
    return ResultReceived(epoch=E1, subtype="success", is_error=False)


def _said(text: str = "Hi.") -> AssistantMessageReceived:
    return AssistantMessageReceived(epoch=E1, model="claude-x", text=text, text_block_count=1)


def test_prompts_queue_behind_the_live_one_and_go_in_order(core: SessionCore) -> None:
    # The first prompt goes at once; the second waits.
    assert core.handle(PromptReceived(turn_id="t1")) == [SendPrompt(turn_id="t1")]
    assert core.handle(PromptReceived(turn_id="t2")) == []
    assert core.handle(PromptSent(turn_id="t1")) == []
    assert core.handle(PromptReceived(turn_id="t3")) == []
    # The live turn's answer comes first, then the next prompt is dispatched.
    assert core.handle(_ok()) == [
        shown("t1"),
        WITHDRAW,
        SettlePrompt(stop_reason=StopReason.END_TURN, turn_id="t1"),
        SendPrompt(turn_id="t2"),
    ]
    # A prompt sent out of the order the core dispatched is a bug of the shell.
    with pytest.raises(FsmError):
        core.handle(PromptSent(turn_id="t3"))
    assert core.handle(PromptSent(turn_id="t2")) == []
    assert (core.turn_state, core.turn.turn_id, core.turn.queued) == (
        TurnState.PROMPT_SENT,
        "t2",
        ["t3"],
    )


def test_cancel_answers_queued_prompts_and_interrupts_once(core: SessionCore) -> None:
    core.handle(PromptReceived(turn_id="t1"))
    core.handle(PromptSent(turn_id="t1", now=0.0))
    core.handle(PromptReceived(turn_id="t2"))  # pushed to Claude (prompt queueing)
    # The pushed prompt Claude never took up: cancelled, and taken back out of Claude's queue.
    # The live one: one interrupt.
    assert core.handle(CancelRequested(now=5.0)) == [
        WITHDRAW,
        SettlePrompt(stop_reason=CANCELLED, turn_id="t2", ran=False),
        WithdrawPrompt(turn_id="t2"),
        WithdrawPrompt(turn_id="t1"),  # not started yet either
        InterruptClaude(),
    ]
    assert core.handle(CancelRequested(now=6.0)) == [WITHDRAW]
    assert core.next_deadline() == 5.0 + CANCEL_GRACE_SECONDS
    # Claude ignores it: at the deadline the core stops its process (once).
    assert core.handle(DeadlineReached(now=4.0 + CANCEL_GRACE_SECONDS)) == []
    assert core.handle(DeadlineReached(now=5.0 + CANCEL_GRACE_SECONDS)) == [
        LogNotice(message="Claude ignored the interrupt; stopping it"),
        StopRuntime(),
    ]
    assert core.next_deadline() is None
    # The process ending settles the turn as cancelled, without a record
    # (docs/decisions.md#refusal-and-cancellation).
    assert core.handle(StreamEnded(epoch=E1)) == [
        WITHDRAW,
        SettlePrompt(stop_reason=CANCELLED, turn_id="t1"),
    ]
    assert (core.turn_state, core.turn.outcome, core.active()) == (
        TurnState.IDLE,
        TurnOutcome.CANCELLED,
        [],
    )


def test_a_claude_that_obeys_the_interrupt_leaves_no_deadline(core: SessionCore) -> None:
    core.handle(PromptSent(turn_id="t1", now=0.0))
    assert core.handle(CancelRequested(now=1.0)) == [
        WITHDRAW,
        WithdrawPrompt(turn_id="t1"),
        InterruptClaude(),
    ]
    assert core.handle(_ok()) == [
        shown("t1"),
        WITHDRAW,
        SettlePrompt(stop_reason=CANCELLED, turn_id="t1"),
    ]
    assert core.next_deadline() is None


def test_the_stall_schedule_counts_from_claudes_last_frame(core: SessionCore) -> None:
    assert core.next_deadline() is None  # no turn, nothing to watch
    core.handle(PromptSent(turn_id="t1", now=0.0))
    assert core.next_deadline() == 120.0
    # Claude spoke at 50: the watch starts again from there.
    core.handle(OutputReceived(epoch=E1, now=50.0))
    assert core.next_deadline() == 170.0
    [published] = core.handle(DeadlineReached(now=170.0))
    assert isinstance(published, PublishRecord)
    record = published.record
    assert (record.id, record.revision, record.category, record.severity) == (
        "t1:error",
        1,
        Category.CONNECTION,
        Severity.WARNING,
    )
    assert record.title.startswith("Claude has not responded for 2 minutes.")
    core.handle(DeliveryConfirmed(id="t1:error", revision=1))
    # The next warning, a stall later, revises the same entry.
    assert core.next_deadline() == 290.0
    [again] = core.handle(DeadlineReached(now=290.0))
    assert isinstance(again, PublishRecord) and again.record.revision == 2
    # Once the turn ends nothing is watched.
    core.handle(_ok())
    assert core.next_deadline() is None


def test_a_frame_heard_alone_is_what_handling_it_would_do() -> None:
    # `heard_alone` is the streamed delta's way in: the same stall clock as `handle`, no effect.
    handled = SessionCore(session_id="s", epoch=E1, capable=True, stall_seconds=120)
    alone = SessionCore(session_id="s", epoch=E1, capable=True, stall_seconds=120)
    for core in (handled, alone):
        core.handle(PromptSent(turn_id="t1", now=0.0))
    assert handled.handle(OutputReceived(epoch=E1, now=50.0)) == []
    assert alone.heard_alone(E1, 50.0) is True
    assert handled.next_deadline() == alone.next_deadline() == 170.0
    # A stall reported at 170: the next frame at 200 starts the watch again in both.
    for core in (handled, alone):
        [published] = core.handle(DeadlineReached(now=170.0))
        assert isinstance(published, PublishRecord)
        core.handle(DeliveryConfirmed(id="t1:error", revision=1))
    handled.handle(OutputReceived(epoch=E1, now=200.0))
    assert alone.heard_alone(E1, 200.0) is True
    assert handled.next_deadline() == alone.next_deadline() == 320.0
    assert handled.turn_state is alone.turn_state
    for core in (handled, alone):
        core.close()


def test_a_frame_is_not_heard_alone_where_it_could_change_more() -> None:
    core = SessionCore(session_id="s", epoch=E1, capable=True, stall_seconds=120)
    # Nothing heard yet (no prompt sent): a first stall deadline would begin, sooner than none.
    assert core.heard_alone(E1, 5.0) is False
    core.handle(PromptSent(turn_id="t1", now=0.0))
    # A replaced runtime's frame: `handle` logs that it dropped it.
    assert core.heard_alone(E2, 10.0) is False
    [dropped] = core.handle(OutputReceived(epoch=E2, now=10.0))
    assert isinstance(dropped, LogNotice)
    assert core.next_deadline() == 120.0  # neither moved the clock
    # Heard before the silence already reported (a clock that went back): the deadline it
    # would set comes sooner than the one armed, so the event takes the full way.
    [published] = core.handle(DeadlineReached(now=120.0))
    assert isinstance(published, PublishRecord)
    assert core.next_deadline() == 240.0
    assert core.heard_alone(E1, 100.0) is False
    assert core.next_deadline() == 240.0
    assert core.heard_alone(E1, 130.0) is True
    assert core.next_deadline() == 250.0
    core.close()


def test_the_next_prompt_replaces_a_lost_runtime(core: SessionCore) -> None:
    core.handle(PromptSent(turn_id="t1"))
    core.handle(_ok())
    # Claude's process dies between turns: a record, and the next prompt gets a new one.
    [lost] = core.handle(TransportLost(epoch=E1))
    assert isinstance(lost, PublishRecord) and lost.record.kind is FailureKind.TRANSPORT_LOST
    core.handle(DeliveryConfirmed(id=lost.record.id, revision=1))
    assert core.handle(PromptReceived(turn_id="t2")) == [
        SendPrompt(turn_id="t2", replace_runtime=True)
    ]
    # What the replaced runtime still says is dropped; the new one recovers the loss.
    assert core.handle(StreamEnded(epoch=E1)) == [
        LogNotice(message="dropped StreamEnded from a replaced runtime")
    ]
    assert core.handle(RuntimeStarted(epoch=E2)) == [
        LogNotice(message=f"no longer active: {[lost.record.id]}")
    ]
    assert core.active() == []
    assert core.handle(PromptSent(turn_id="t2")) == []
    assert core.handle(ResultReceived(epoch=E2, subtype="success", is_error=False)) == [
        shown("t2"),
        WITHDRAW,
        SettlePrompt(stop_reason=StopReason.END_TURN, turn_id="t2"),
    ]
    # New credentials: the next prompt goes to a fresh process too; otherwise not.
    assert core.handle(PromptReceived(turn_id="t3")) == [SendPrompt(turn_id="t3")]
    core.handle(PromptSent(turn_id="t3"))
    core.handle(ResultReceived(epoch=E2, subtype="success", is_error=False))
    core.handle(CredentialsChanged())
    assert core.handle(PromptReceived(turn_id="t4")) == [
        SendPrompt(turn_id="t4", replace_runtime=True)
    ]


@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
def test_an_internal_fault_fails_the_turn_and_the_session_stays_broken(capable: bool) -> None:
    core = SessionCore(session_id="s", epoch=E1, capable=capable)
    try:
        core.handle(PromptReceived(turn_id="t1"))
        core.handle(PromptSent(turn_id="t1"))
        core.handle(PromptReceived(turn_id="t2"))
        effects = core.handle(InternalFaultOccurred(where="a test"))
        refused = RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: This session failed inside the adapter; start a new session.",
            error_kind="internal_error",
            turn_id="t2",
        )
        # docs/decisions.md#internal-faults: the queued prompt is refused, the live one fails as
        # internal_error, after its questions are withdrawn.
        assert effects[:2] == [refused, WITHDRAW]
        answer = effects[2]
        assert isinstance(answer, SettlePrompt | RejectPrompt) and answer.turn_id == "t1"
        if capable:
            assert isinstance(answer, SettlePrompt) and answer.record is not None
            assert (answer.record.kind, answer.record.category) == (
                FailureKind.INTERNAL_ERROR,
                Category.SERVICE,
            )
            assert [a.value for a in answer.record.actions] == ["retry"]
        else:
            assert isinstance(answer, RejectPrompt) and answer.error_kind == "internal_error"
        # Sticky: Claude's later words change nothing (a result is no prompt's,
        # docs/decisions.md#result-owner), every new prompt is refused.
        assert core.handle(_ok()) == [ShowResult()]
        assert core.handle(TransportLost(epoch=E1)) == []
        assert core.handle(PromptReceived(turn_id="t3")) == [
            RejectPrompt(
                blame=refused.blame,
                message=refused.message,
                error_kind="internal_error",
                turn_id="t3",
            )
        ]
        with pytest.raises(InvalidTransition):
            core.handle(PromptSent(turn_id="t3"))
        assert core.turn_state is TurnState.BROKEN and core.broken
    finally:
        core.close()


def test_a_resolved_incident_never_comes_back_however_long_ago(core: SessionCore) -> None:
    # A replayed usage limit resolves on delivery ...
    [first] = core.handle(
        HistoryFailureFound(id="old:error", title="You've hit your limit", active=False)
    )
    assert isinstance(first, PublishRecord)
    core.handle(DeliveryConfirmed(id="old:error", revision=1))
    # ... and many more incidents resolve after it, past any history window.
    for n in range(HISTORY_LIMIT + 4):
        core.handle(PromptSent(turn_id=f"t{n}"))
        core.handle(
            AssistantMessageReceived(
                epoch=E1, model="<synthetic>", text="API Error: 500", text_block_count=1,
                error="server_error",
            )
        )  # fmt: skip
        core.handle(ResultReceived(epoch=E1, subtype="success", is_error=True))
    assert len(core.ledger.history()) <= HISTORY_LIMIT
    # Its id is still refused, and so is a settled turn's id.
    with pytest.raises(InvalidTransition):
        core.handle(HistoryFailureFound(id="old:error", title="You've hit your limit", active=True))
    with pytest.raises(FsmError):
        core.handle(PromptSent(turn_id="t0"))
    assert core.turn_state is TurnState.IDLE


def test_a_prompt_dispatched_to_a_process_that_then_died_fails_as_lost(core: SessionCore) -> None:
    # The core dispatched the prompt to a live process, which died before the prompt went out.
    assert core.handle(PromptReceived(turn_id="t1")) == [SendPrompt(turn_id="t1")]
    [lost] = core.handle(TransportLost(epoch=E1))
    assert isinstance(lost, PublishRecord)  # between turns: a session-scoped record
    core.handle(DeliveryConfirmed(id=lost.record.id, revision=1))
    # The prompt still gets its one answer: the connection was lost for it too.
    withdraw, answer = core.handle(PromptSent(turn_id="t1"))
    assert withdraw == WITHDRAW
    assert isinstance(answer, SettlePrompt) and answer.record is not None
    assert (answer.record.id, answer.record.kind) == ("t1:error", FailureKind.TRANSPORT_LOST)
    # And the next prompt goes to a new process.
    assert core.handle(PromptReceived(turn_id="t2")) == [
        SendPrompt(turn_id="t2", replace_runtime=True)
    ]
