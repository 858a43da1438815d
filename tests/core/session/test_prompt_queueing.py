"""Prompt queueing, as the reference adapter does it (docs/decisions.md#turns-that-wait): a
prompt that comes while a turn runs goes to Claude at once; Claude taking it up (its echo)
answers the turn before it `end_turn` and begins its own. Every prompt is answered once."""

from __future__ import annotations

from fsm.effects import (
    InterruptClaude,
    SendPrompt,
    SettlePrompt,
    StopReason,
    TurnTakenUp,
    WithdrawPrompt,
)
from fsm.events import (
    CancelRequested,
    PromptEchoed,
    PromptReceived,
    PromptSent,
    StreamEnded,
    TurnWentIdle,
)
from fsm.session import SessionCore
from tests.support.session_narrative import (
    E1,
    END_TURN,
    FORWARD,
    T1,
    T2,
    WITHDRAW,
    result,
    said,
    settled,
    shown,
)

HANDED_OFF = SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=T1, handed_off=True)


def _running(core: SessionCore) -> None:
    core.handle(PromptReceived(turn_id=T1))
    core.handle(PromptSent(turn_id=T1))
    assert core.handle(said("Formatting the file.")) == [FORWARD]


def test_a_prompt_during_a_turn_goes_to_claude_at_once_and_its_echo_hands_off(
    capable: SessionCore,
) -> None:
    _running(capable)
    assert capable.handle(PromptReceived(turn_id=T2)) == [SendPrompt(turn_id=T2, pushed=True)]
    assert capable.handle(PromptSent(turn_id=T2)) == []  # sent, not yet taken up
    assert capable.handle(PromptEchoed(epoch=E1, turn_id=T1)) == []  # the running turn's own
    # Claude takes it up mid-turn: the first prompt is answered, the rest is the second's.
    assert capable.handle(PromptEchoed(epoch=E1, turn_id=T2)) == [
        HANDED_OFF,
        TurnTakenUp(turn_id=T2),
    ]
    assert capable.turn.turn_id == T2 and capable.turn_state.name == "RUNNING"
    assert capable.handle(said("Using tabs now.")) == [FORWARD]
    assert capable.handle(result()) == [shown(T2), WITHDRAW, settled(T2)]
    assert capable.handle(PromptEchoed(epoch=E1, turn_id=T2)) == []  # a late echo: nothing


def test_a_pushed_prompt_taken_up_after_the_turn_ended_opens_its_own(legacy: SessionCore) -> None:
    _running(legacy)
    legacy.handle(PromptReceived(turn_id=T2))
    legacy.handle(PromptSent(turn_id=T2))
    assert legacy.handle(result()) == [
        shown(T1),
        WITHDRAW,
        END_TURN,
    ]  # the first ends at its own result
    assert legacy.handle(TurnWentIdle(epoch=E1)) == []
    assert legacy.turn_state.name == "IDLE"
    # A third prompt joins Claude's queue too while the second waits to be taken up.
    assert legacy.handle(PromptReceived(turn_id="t3")) == [SendPrompt(turn_id="t3", pushed=True)]
    assert legacy.handle(PromptEchoed(epoch=E1, turn_id=T2)) == [TurnTakenUp(turn_id=T2)]
    assert legacy.handle(result()) == [shown(T2), WITHDRAW, settled(T2)]
    assert legacy.handle(PromptEchoed(epoch=E1, turn_id="t3")) == [TurnTakenUp(turn_id="t3")]
    assert legacy.handle(result()) == [shown("t3"), WITHDRAW, settled("t3")]


def test_a_cancel_answers_and_withdraws_what_claude_did_not_take_up(capable: SessionCore) -> None:
    _running(capable)
    capable.handle(PromptReceived(turn_id=T2))
    assert capable.handle(CancelRequested(now=1.0)) == [
        WITHDRAW,
        SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id=T2, ran=False),
        WithdrawPrompt(turn_id=T2),
        WithdrawPrompt(turn_id=T1),  # not started yet either
        InterruptClaude(),
    ]
    # While the turn is being cancelled, a prompt waits for it (Claude is being stopped).
    assert capable.handle(PromptReceived(turn_id="t3")) == []
    interrupted = result(is_error=True, subtype="error_during_execution")
    assert capable.handle(interrupted) == [
        shown(T1),
        WITHDRAW,
        settled(T1, StopReason.CANCELLED),
        SendPrompt(turn_id="t3"),
    ]
    # Its report of being sent, late, is nothing; the withdrawn prompt's echo is nothing.
    assert capable.handle(PromptSent(turn_id=T2)) == []
    assert capable.handle(PromptEchoed(epoch=E1, turn_id=T2)) == []


def test_a_pushed_prompt_goes_to_the_fresh_claude_when_the_process_is_lost(
    capable: SessionCore,
) -> None:
    _running(capable)
    capable.handle(PromptReceived(turn_id=T2))
    capable.handle(PromptSent(turn_id=T2))
    effects = capable.handle(StreamEnded(epoch=E1))
    failed = [e for e in effects if isinstance(e, SettlePrompt)]
    assert [(e.turn_id, e.record is not None) for e in failed] == [(T1, True)]
    assert effects[-1] == SendPrompt(turn_id=T2, replace_runtime=True)


def test_a_pushed_prompt_lost_between_turns_is_sent_again(capable: SessionCore) -> None:
    _running(capable)
    capable.handle(PromptReceived(turn_id=T2))
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN]
    assert capable.handle(StreamEnded(epoch=E1)) == [SendPrompt(turn_id=T2, replace_runtime=True)]


def test_without_prompt_queueing_a_prompt_waits_for_the_turn() -> None:
    core = SessionCore(session_id="s", epoch=E1, capable=True, prompt_queueing=False)
    try:
        _running(core)
        assert core.handle(PromptReceived(turn_id=T2)) == []
        assert core.handle(result()) == [shown(T1), WITHDRAW, END_TURN, SendPrompt(turn_id=T2)]
    finally:
        core.close()
