"""docs/decisions.md#never-silent: every prompt gets exactly one answer, even when Claude goes
quiet."""

from __future__ import annotations

import pytest

from fsm import PromptEchoed
from fsm.effects import Blame, RejectPrompt, StopReason
from fsm.errors import InvalidTransition
from fsm.events import CancelRequested, ClaudeSilent, PromptSent, StreamEnded, TurnWentIdle
from fsm.session import SessionCore
from fsm.turn import TURN_NO_RESULT_TITLE, TurnOutcome, TurnState
from tests.support.session_narrative import (
    CLOSE,
    E1,
    END_TURN,
    ERROR,
    FORWARD,
    NONE,
    OVERLOADED_TEXT,
    RETRY,
    SHOWN_OWN,
    SYN,
    T1,
    T2,
    T3,
    WARNING,
    WITHDRAW,
    C,
    K,
    confirm,
    failed_with,
    published,
    rec,
    recovered,
    result,
    said,
    session_error_id,
    settled,
    shown,
)

# --- docs/decisions.md#never-silent: never silent -------------------------------------------------


def test_every_prompt_gets_exactly_one_answer(capable: SessionCore) -> None:
    failure = rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        shown(T1),
        *failed_with(failure),
    ]
    # A duplicate error result after the answer cannot answer again: it is session-scoped,
    # and judged on its own (the finished turn's notes do not carry over): its text, and an
    # unknown provider error since no assistant error came with it.
    late = rec(session_error_id(1), 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        SHOWN_OWN,
        CLOSE,
        *published(late),
    ]
    # A duplicate success result answers nothing.
    assert capable.handle(result()) == [SHOWN_OWN, CLOSE]
    # A second prompt while one is live is the shell's bug: loud, and nothing changes.
    capable.handle(PromptSent(turn_id=T2))
    with pytest.raises(InvalidTransition):
        capable.handle(PromptSent(turn_id=T3))
    assert (capable.turn_state, capable.turn.turn_id) == (TurnState.PROMPT_SENT, T2)


def test_claude_going_idle_without_a_result_fails_the_turn(
    capable: SessionCore, legacy: SessionCore
) -> None:
    internal = rec(
        f"{T1}:error", 1, C.SERVICE, ERROR, TURN_NO_RESULT_TITLE, RETRY, K.INTERNAL_ERROR
    )
    for core in (capable, legacy):
        core.handle(PromptSent(turn_id=T1))
        # An idle report before Claude took the prompt up (its echo) is the previous turn's.
        assert core.handle(TurnWentIdle(epoch=E1)) == []
        assert core.turn_state is TurnState.PROMPT_SENT
        core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
        core.handle(said("Working."))
    # Once this turn is running, idle without a result means the result will never come.
    assert capable.handle(TurnWentIdle(epoch=E1)) == failed_with(internal)
    assert legacy.handle(TurnWentIdle(epoch=E1)) == [
        WITHDRAW,
        RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {TURN_NO_RESULT_TITLE}",
            error_kind="no_result",
            turn_id=T1,
        ),
    ]
    # After the answer, idle is routine.
    assert capable.handle(TurnWentIdle(epoch=E1)) == []


def test_silent_claude_gets_a_revised_connection_warning(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    # The watchdog reports silence: a warning under the turn id, revised as the wait grows.
    first = rec(
        f"{T1}:error",
        1,
        C.CONNECTION,
        WARNING,
        "Claude has not responded for 30 seconds. Still waiting; you can cancel this prompt.",
        NONE,
        K.TRANSPORT_LOST,
    )
    assert capable.handle(ClaudeSilent(epoch=E1, waited_seconds=30)) == published(first)
    confirm(capable, first)
    second = rec(
        f"{T1}:error",
        2,
        C.CONNECTION,
        WARNING,
        "Claude has not responded for 2 minutes. Still waiting; you can cancel this prompt.",
        NONE,
        K.TRANSPORT_LOST,
    )
    assert capable.handle(ClaudeSilent(epoch=E1, waited_seconds=120)) == published(second)
    confirm(capable, second)
    assert (capable.turn_state, capable.active()) == (TurnState.RETRYING, [second])
    # Claude comes back and answers: the warning recovers silently.
    assert capable.handle(said("Sorry, here.")) == [FORWARD]
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN, recovered(second.id)]
    assert capable.active() == []
    # After a cancel, or with no live turn, silence publishes nothing.
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    capable.handle(CancelRequested())
    assert capable.handle(ClaudeSilent(epoch=E1, waited_seconds=30)) == []
    assert capable.handle(result()) == [shown(T2), WITHDRAW, settled(T2, StopReason.CANCELLED)]
    assert capable.handle(ClaudeSilent(epoch=E1, waited_seconds=30)) == []


def test_idle_runtime_ending_cleanly_breaks_no_promise(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Hi."))
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN]
    # The stream ends with no prompt waiting: nothing to report.
    assert capable.handle(StreamEnded(epoch=E1)) == []
    assert (capable.turn_state, capable.turn.outcome, capable.active(), capable.runtime_lost) == (
        TurnState.IDLE,
        TurnOutcome.SUCCEEDED,
        [],
        True,
    )


def test_non_failure_endings(capable: SessionCore) -> None:
    # max_tokens is a stop reason, not a failure, even flagged as an error.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(result(is_error=True, stop_reason="max_tokens")) == [
        shown(T1),
        WITHDRAW,
        settled(T1, StopReason.MAX_TOKENS),
    ]
    # A limit subtype without is_error is max_turn_requests.
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    assert capable.handle(result(subtype="error_max_turns")) == [
        shown(T2),
        WITHDRAW,
        settled(T2, StopReason.MAX_TURN_REQUESTS),
    ]
    # An execution "error" without is_error is a normal end.
    capable.handle(PromptSent(turn_id=T3))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T3))
    assert capable.handle(result(subtype="error_during_execution")) == [
        shown(T3),
        WITHDRAW,
        settled(T3),
    ]
    assert capable.active() == []
