"""A plan exit that clears the context, through the session core: the turn machine's RESETTING rows
and the runtime's `fresh_context_requested`.

The interrupted result of the plan exit hands the turn to a fresh context instead of settling
it; the old process is retired (its late words dropped); once the fresh one is up the plan is
sent as the same turn, whose result settles the prompt. A cancel or a failed start in between
answers the prompt once; a fresh context for a turn that is gone gets no plan.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fsm.effects import (
    LogNotice,
    SendContinuation,
    SendPrompt,
    SettlePrompt,
    ShowResult,
    StartFreshContext,
    StopReason,
    WithdrawQuestions,
)
from fsm.events import (
    AssistantMessageReceived,
    CancelRequested,
    FreshContextChosen,
    FreshContextReady,
    PromptReceived,
    PromptSent,
    ResultReceived,
    RuntimeStarted,
    RuntimeStartFailed,
    StreamEnded,
)
from fsm.runtime import RuntimeState
from fsm.session import SessionCore
from fsm.turn import TurnState

E1, E2 = "epoch-1", "epoch-2"
INTERRUPTED = ResultReceived(epoch=E1, subtype="error_during_execution", is_error=True)


@pytest.fixture
def core() -> Iterator[SessionCore]:
    session = SessionCore(session_id="s", epoch=E1, capable=True)
    yield session
    session.close()


def _resetting(core: SessionCore) -> None:
    """A turn whose plan exit chose a fresh context, up to the interrupted result."""
    assert core.handle(PromptReceived(turn_id="t1")) == [SendPrompt(turn_id="t1")]
    core.handle(PromptSent(turn_id="t1"))
    assert core.handle(FreshContextChosen()) == []
    # The interrupted result is the turn's (its tokens count toward it), and hands it over.
    assert core.handle(INTERRUPTED) == [ShowResult(turn_id="t1"), StartFreshContext(turn_id="t1")]
    assert (core.turn_state, core.runtime.state) == (TurnState.RESETTING, RuntimeState.RETIRING)


def test_the_interrupted_result_restarts_and_the_continuation_settles_the_prompt(
    core: SessionCore,
) -> None:
    _resetting(core)
    # The old process's end is its own business: dropped, the turn still waits.
    assert core.handle(StreamEnded(epoch=E1)) == [
        LogNotice(message="dropped StreamEnded from a replaced runtime")
    ]
    assert core.handle(RuntimeStarted(epoch=E2)) == []
    assert core.handle(FreshContextReady()) == [SendContinuation(turn_id="t1")]
    assert core.turn_state is TurnState.PROMPT_SENT
    answer = AssistantMessageReceived(
        epoch=E2, model="claude-sonnet-4-5", text="Done.", text_block_count=1, top_level=True
    )
    core.handle(answer)
    effects = core.handle(ResultReceived(epoch=E2, subtype="success", is_error=False))
    # The same prompt's answer, a success with no record, after its questions are withdrawn.
    assert effects == [
        ShowResult(turn_id="t1"),
        WithdrawQuestions(),
        SettlePrompt(stop_reason=StopReason.END_TURN, turn_id="t1"),
    ]


def test_a_cancel_during_the_restart_answers_cancelled_and_no_plan_is_sent(
    core: SessionCore,
) -> None:
    _resetting(core)
    assert core.handle(CancelRequested()) == [
        WithdrawQuestions(),
        SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id="t1"),
    ]
    core.handle(RuntimeStarted(epoch=E2))
    assert core.handle(FreshContextReady()) == [
        LogNotice(message="a fresh context for no live turn: no plan sent")
    ]
    # The session goes on in the fresh process.
    assert core.handle(PromptReceived(turn_id="t2")) == [SendPrompt(turn_id="t2")]


def test_a_fresh_process_that_fails_to_start_fails_the_turn_once(core: SessionCore) -> None:
    _resetting(core)
    withdraw, settled = core.handle(RuntimeStartFailed(reason="Claude Code did not start."))
    assert withdraw == WithdrawQuestions()
    assert isinstance(settled, SettlePrompt) and settled.record is not None
    assert (settled.record.id, settled.record.title) == ("t1:error", "Claude Code did not start.")
    assert core.turn_state is TurnState.IDLE
    assert core.runtime.state is RuntimeState.RESTARTING
    # The next prompt asks for a fresh process (the start can be tried again).
    assert core.handle(PromptReceived(turn_id="t2")) == [
        SendPrompt(turn_id="t2", replace_runtime=True)
    ]


def test_a_prompt_during_the_restart_waits_for_the_continuation(core: SessionCore) -> None:
    _resetting(core)
    assert core.handle(PromptReceived(turn_id="t2")) == []  # queued behind the live turn
    core.handle(RuntimeStarted(epoch=E2))
    assert core.handle(FreshContextReady()) == [SendContinuation(turn_id="t1")]


def test_a_choice_without_a_live_turn_changes_nothing(core: SessionCore) -> None:
    assert core.handle(FreshContextChosen()) == [
        LogNotice(message="a fresh context for no live turn: no plan sent")
    ]
    assert core.handle(PromptReceived(turn_id="t1")) == [SendPrompt(turn_id="t1")]
    core.handle(PromptSent(turn_id="t1"))
    # Not chosen in this turn: its result settles it as usual (here, as the error it is).
    owner, withdraw, settled = core.handle(INTERRUPTED)
    assert (owner, withdraw) == (ShowResult(turn_id="t1"), WithdrawQuestions())
    assert isinstance(settled, SettlePrompt) and core.turn_state is TurnState.IDLE
