"""docs/decisions.md#result-owner: the core says of every result it takes whose it is, first.

`ShowResult(turn_id)` names the live prompt whose turn the result is (its text may be that
turn's answer, its tokens count toward it); `ShowResult()` says it is Claude's own work, no
prompt's. It comes before every other effect of the result, in every state, a broken session's
and a replaced process's included; the table does not load without it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from fsm import (
    CancelRequested,
    InternalFaultOccurred,
    PromptEchoed,
    PromptQueued,
    PromptReceived,
    PromptSent,
    RuntimeStarted,
    SessionCore,
    StopReason,
    TurnWentIdle,
)
from fsm.errors import FsmError
from fsm.events import BackgroundTaskSettled, BackgroundTaskStarted, FreshContextChosen
from fsm.turn import TRANSITIONS, TurnState, results_are_owned
from tests.support.session_narrative import (
    CLOSE,
    E1,
    E2,
    FORWARD,
    OVERLOADED_TEXT,
    SHOWN_OWN,
    SYN,
    T1,
    T2,
    WITHDRAW,
    result,
    said,
    settled,
    shown,
)

OWN_WORK = "task-notification"


def _running(core: SessionCore, turn_id: str = T1) -> None:
    core.handle(PromptSent(turn_id=turn_id))
    core.handle(PromptEchoed(epoch=E1, turn_id=turn_id))


def test_a_result_between_turns_is_no_prompts(capable: SessionCore) -> None:
    assert capable.handle(result(text="A cycle no prompt asked for.")) == [SHOWN_OWN, CLOSE]


def test_the_turns_result_is_its_prompts_before_its_answer(capable: SessionCore) -> None:
    _running(capable)
    assert capable.handle(result(text="Done.")) == [shown(T1), WITHDRAW, settled(T1)]


def test_only_a_prompts_result_passes_its_fast_mode_on(capable: SessionCore) -> None:
    """The fast mode a result says is the switch's for a prompt's result only: Claude's own
    work's says nothing to follow, whatever it says."""
    off: dict[str, Any] = {"fast_on": False, "fast_reason": "network_error"}
    assert capable.handle(replace(result(), **off))[0] == SHOWN_OWN
    _running(capable)
    own = capable.handle(replace(result(origin_kind=OWN_WORK), **off))
    assert own[0] == SHOWN_OWN
    assert capable.handle(replace(result(), **off))[0] == replace(shown(T1), **off)


def test_own_work_in_a_running_turn_is_no_prompts(capable: SessionCore) -> None:
    _running(capable)
    assert capable.handle(result(origin_kind=OWN_WORK)) == [SHOWN_OWN, CLOSE]
    assert capable.turn_state is TurnState.RUNNING


def test_a_result_never_echoed_answers_the_prompt_as_its(capable: SessionCore) -> None:
    # The fallback: a local command's result, with no start or echo before it.
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(result(text="## Context Usage")) == [shown(T1), WITHDRAW, settled(T1)]


def test_a_result_before_a_queued_prompts_start_is_no_prompts(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptQueued(epoch=E1, turn_id=T1))
    assert capable.handle(result(text="Earlier work.")) == [SHOWN_OWN, CLOSE]
    assert capable.turn_state is TurnState.PROMPT_SENT


def test_a_cancelled_prompts_late_result_is_not_the_next_prompts(capable: SessionCore) -> None:
    _running(capable)
    capable.handle(CancelRequested())
    assert capable.handle(TurnWentIdle(epoch=E1)) == [
        WITHDRAW,
        settled(T1, StopReason.CANCELLED),
    ]
    capable.handle(PromptSent(turn_id=T2))
    # Words nothing streamed, naming the cancelled prompt: Claude's own, not T2's answer.
    late = replace(result(text="Late words."), prompts=frozenset({T1}))
    assert capable.handle(late) == [SHOWN_OWN, CLOSE]
    capable.handle(PromptEchoed(epoch=E1, turn_id=T2))
    assert capable.handle(result(text="T2's.")) == [shown(T2), WITHDRAW, settled(T2)]


def test_a_held_turns_result_is_its_and_its_follow_up_is_own_work(capable: SessionCore) -> None:
    _running(capable)
    capable.handle(BackgroundTaskStarted(epoch=E1, task_id="a1", subagent=True, backgrounded=True))
    assert capable.handle(result(text="Auditing.")) == [shown(T1)]  # held for its subagent
    capable.handle(BackgroundTaskSettled(epoch=E1, task_id="a1"))
    assert capable.handle(said("The audit is done.")) == [FORWARD]
    # Claude's follow-up answers the held turn, and is still its own work: no prompt's tokens.
    assert capable.handle(result(origin_kind=OWN_WORK)) == [
        SHOWN_OWN,
        CLOSE,
        WITHDRAW,
        settled(T1),
    ]


def test_a_failing_turns_result_is_its_and_its_own_work_is_not(capable: SessionCore) -> None:
    _running(capable)
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.turn_state is TurnState.FAILING
    assert capable.handle(result(origin_kind=OWN_WORK)) == [SHOWN_OWN, CLOSE]
    effects = capable.handle(result(is_error=True, text=OVERLOADED_TEXT))
    assert effects[0] == shown(T1) and effects[1] == WITHDRAW
    assert sum(e == shown(T1) for e in effects) == 1


def test_a_cancelling_turns_result_is_its_and_its_own_work_is_not(capable: SessionCore) -> None:
    _running(capable)
    capable.handle(CancelRequested())
    assert capable.handle(result(origin_kind=OWN_WORK)) == [SHOWN_OWN, CLOSE]
    assert capable.handle(result()) == [shown(T1), WITHDRAW, settled(T1, StopReason.CANCELLED)]


def test_a_result_while_the_fresh_context_starts_is_no_prompts(capable: SessionCore) -> None:
    _running(capable)
    capable.handle(FreshContextChosen())
    interrupted = result(subtype="error_during_execution", is_error=True)
    assert capable.handle(interrupted)[0] == shown(T1)  # the plan exit's: it hands the turn on
    assert capable.turn_state is TurnState.RESETTING
    capable.handle(RuntimeStarted(epoch=E2))
    assert capable.handle(result(epoch=E2)) == [SHOWN_OWN]


def test_a_broken_sessions_result_is_no_prompts(capable: SessionCore) -> None:
    _running(capable)
    capable.handle(InternalFaultOccurred(where="a test"))
    assert capable.handle(result(text="Too late.")) == [SHOWN_OWN]


def test_a_replaced_processs_result_is_no_prompts(capable: SessionCore) -> None:
    capable.handle(PromptReceived(turn_id=T1))
    _running(capable)
    capable.handle(RuntimeStarted(epoch=E2))
    [owner, dropped] = capable.handle(result(text="Old words."))
    assert owner == SHOWN_OWN and dropped.message.startswith("dropped ResultReceived")  # type: ignore[attr-defined]


def _rows(**changes: Any) -> list[dict[str, Any]]:
    row = {"trigger": "result_received", "source": TurnState.IDLE, "dest": None}
    return [{**row, **changes}]


@pytest.mark.parametrize(
    "table",
    [
        _rows(),  # no callback
        _rows(before=["close_open_calls"]),  # no word on whose it is
        _rows(before=["close_open_calls", "show_own_work"]),  # not first
        _rows(before=["show_own_work", "show_turns_result"]),  # twice
        _rows(trigger=["result_received", "turn_went_idle"], before=["show_own_work"]),
    ],
)
def test_a_table_with_a_result_row_that_says_nothing_first_does_not_load(
    table: list[dict[str, Any]],
) -> None:
    with pytest.raises(FsmError):
        results_are_owned(table)


def test_the_turn_table_says_whose_every_result_is() -> None:
    results_are_owned(TRANSITIONS)
