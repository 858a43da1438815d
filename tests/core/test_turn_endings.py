"""What the core tells the shell about every way a turn ends: the session's open questions are
withdrawn (`WithdrawQuestions`) right before the one answer, the answer names its prompt, and a
cancel or the session's close withdraws them too. The shell only performs this: it withdraws
every kind of open question (permission requests, a plan exit's among them, AskUserQuestion
forms, MCP servers' forms) on `WithdrawQuestions`, and answers the prompt the effect names."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fsm import PromptEchoed
from fsm.effects import (
    Effect,
    InterruptClaude,
    RejectPrompt,
    SettlePrompt,
    StopReason,
    WithdrawPrompt,
    WithdrawQuestions,
)
from fsm.events import (
    CancelRequested,
    Event,
    InternalFaultOccurred,
    MessageTooLarge,
    PromptReceived,
    PromptSent,
    RuntimeStartFailed,
    SessionClosing,
    StreamEnded,
    TransportLost,
    TurnWentIdle,
)
from fsm.session import SessionCore
from fsm.turn import LIVE_STATES, TRANSITIONS, TurnState
from tests.support.session_narrative import E1, OVERLOADED_TEXT, SID, SYN, result, said

WITHDRAW = WithdrawQuestions()

# Every way a live turn ends, as the events that end it (after its prompt was sent).
ENDINGS: dict[str, list[Event]] = {
    "answered": [said("Done."), result()],
    "refused": [said("No.", stop_reason="refusal"), result(stop_reason="refusal")],
    "max tokens": [result(stop_reason="max_tokens", is_error=True)],
    "turn limit": [result(subtype="error_max_turns")],
    "failed with a result": [said(OVERLOADED_TEXT, model=SYN, error="overloaded"), result()],
    "failed with an error result": [result(is_error=True, text="API Error: 500")],
    "idle without a result": [said("Working."), TurnWentIdle(epoch=E1)],
    "stream ended": [StreamEnded(epoch=E1)],
    "transport lost": [TransportLost(epoch=E1)],
    "message too large": [MessageTooLarge(epoch=E1, limit_bytes=1024)],
    "start failed": [RuntimeStartFailed(reason="Claude Code did not start.")],
    "cancelled": [CancelRequested(), result(subtype="error_during_execution", is_error=True)],
    "cancelled, then lost": [CancelRequested(), TransportLost(epoch=E1)],
    "internal fault": [InternalFaultOccurred(where="a test")],
}


def _answers(effects: list[Effect]) -> list[SettlePrompt | RejectPrompt]:
    return [e for e in effects if isinstance(e, SettlePrompt | RejectPrompt)]


@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
@pytest.mark.parametrize("ending", list(ENDINGS))
def test_every_way_a_turn_ends_withdraws_its_questions_before_its_named_answer(
    capable: bool, ending: str
) -> None:
    core = SessionCore(session_id=SID, epoch=E1, capable=capable)
    try:
        assert core.handle(PromptSent(turn_id="t1")) == []
        core.handle(PromptEchoed(epoch=core.epoch, turn_id="t1"))
        effects = [effect for event in ENDINGS[ending] for effect in core.handle(event)]
        [answer] = _answers(effects)
        assert answer.turn_id == "t1"
        at = effects.index(answer)
        assert at > 0 and effects[at - 1] == WITHDRAW
        assert not core.turn.live
    finally:
        core.close()


def test_a_cancel_withdraws_the_questions_first_in_every_state() -> None:
    core = SessionCore(session_id=SID, epoch=E1, capable=True)
    try:
        # Between turns (a question Claude asked on its own may be open).
        assert core.handle(CancelRequested()) == [WITHDRAW]
        # A live turn with a prompt pushed behind it (prompt queueing): withdrawn, the pushed
        # one answered and taken back out of Claude's queue, interrupt.
        core.handle(PromptReceived(turn_id="t1"))
        core.handle(PromptSent(turn_id="t1"))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id="t1"))
        core.handle(PromptReceived(turn_id="t2"))
        assert core.handle(CancelRequested()) == [
            WITHDRAW,
            SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id="t2", ran=False),
            WithdrawPrompt(turn_id="t2"),
            InterruptClaude(),
        ]
        # Cancelling again: a question asked meanwhile is withdrawn too; one interrupt only.
        assert core.handle(CancelRequested()) == [WITHDRAW]
    finally:
        core.close()


@pytest.mark.parametrize("live", [False, True], ids=["idle", "live"])
def test_the_sessions_close_withdraws_its_questions_and_changes_nothing_else(live: bool) -> None:
    core = SessionCore(session_id=SID, epoch=E1, capable=True)
    try:
        if live:
            core.handle(PromptSent(turn_id="t1"))
            core.handle(PromptEchoed(epoch=core.epoch, turn_id="t1"))
        state = core.turn_state
        assert core.handle(SessionClosing()) == [WITHDRAW]
        assert core.turn_state is state
    finally:
        core.close()


def test_a_broken_session_still_withdraws_on_close() -> None:
    core = SessionCore(session_id=SID, epoch=E1, capable=True)
    try:
        # A fault with no live turn breaks the session; what it asked is withdrawn at once.
        assert core.handle(InternalFaultOccurred()) == [WITHDRAW]
        assert core.handle(SessionClosing()) == [WITHDRAW]
    finally:
        core.close()


def _rows(keep: Callable[[dict[str, object]], bool]) -> list[dict[str, object]]:
    return [row for row in TRANSITIONS if keep(row)]


def _sources(row: dict[str, object]) -> list[TurnState]:
    source = row["source"]
    return list(source) if isinstance(source, list) else [source]  # type: ignore[list-item]


def test_every_row_that_ends_a_turn_goes_through_the_settle_that_withdraws() -> None:
    # The table's side of the guarantee: a row leaving a live state for IDLE or BROKEN names a
    # callback that settles the turn (`Turn._settled` withdraws, then answers), or, for a turn
    # whose prompt never answered yet, none is needed. Every cancel row withdraws, first.
    settling = ("settle_", "fail_", "escalate_warning")
    for row in _rows(lambda r: r["dest"] in (TurnState.IDLE, TurnState.BROKEN)):
        if not any(source in LIVE_STATES for source in _sources(row)):
            continue
        before = row.get("before", [])
        assert isinstance(before, list)
        assert any(str(name).startswith(settling) for name in before), row
    for row in _rows(lambda r: r["trigger"] == "cancel_requested"):
        before = row.get("before", [])
        assert isinstance(before, list) and before, row
        assert before[0] == "withdraw_questions" or any(
            str(name).startswith("settle_") for name in before
        ), row
    [closing] = _rows(lambda r: r["trigger"] == "session_closing")
    assert set(_sources(closing)) == set(TurnState) and closing["before"] == ["withdraw_questions"]
