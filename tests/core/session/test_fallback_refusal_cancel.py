"""docs/decisions.md#model-fallback and #refusal-and-cancellation: model fallback notices, refusals
and cancellation."""

from __future__ import annotations

import pytest

from fsm import PromptEchoed
from fsm.effects import InterruptClaude, SendAgentText, StopReason
from fsm.events import (
    CancelRequested,
    Event,
    PromptSent,
    ResultReceived,
    StreamEnded,
    TransportLost,
)
from fsm.session import SessionCore
from fsm.turn import TurnOutcome, TurnState
from tests.support.session_narrative import (
    E1,
    END_TURN,
    FALLBACK_TEXT,
    FORWARD,
    NONE,
    SID,
    T1,
    WARNING,
    WITHDRAW,
    C,
    K,
    confirm,
    fell_back,
    notice_id,
    published,
    rec,
    result,
    said,
    settled,
    shown,
)

# --- docs/decisions.md#model-fallback: model fallback ---------------------------------------------


def test_model_fallback_with_no_live_turn_is_still_a_notice(capable: SessionCore) -> None:
    notice = rec(notice_id(1), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    assert capable.handle(fell_back()) == published(notice)
    confirm(capable, notice)
    assert (capable.turn_state, capable.active()) == (TurnState.IDLE, [notice])


# --- docs/decisions.md#refusal-and-cancellation: refusal and cancellation -------------------------


@pytest.mark.parametrize("mode", ["capable", "legacy"])
def test_refusal_settles_refusal_with_its_explanation_as_text(mode: str) -> None:
    core = SessionCore(session_id=SID, epoch=E1, capable=mode == "capable")
    try:
        core.handle(PromptSent(turn_id=T1))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
        # The refusing message is ordinary prose; its explanation is kept for later.
        refusing = said(
            "I can't help with that.",
            stop_reason="refusal",
            refusal_explanation="This request may violate our usage policy.",
        )
        assert core.handle(refusing) == [FORWARD]
        # The result says refusal (even flagged as an error): text, then stopReason refusal.
        assert core.handle(result(is_error=True, stop_reason="refusal")) == [
            shown(T1),
            SendAgentText(text="This request may violate our usage policy."),
            WITHDRAW,
            settled(T1, StopReason.REFUSAL),
        ]
        assert (core.turn_state, core.turn.outcome, core.active()) == (
            TurnState.IDLE,
            TurnOutcome.REFUSED,
            [],
        )
    finally:
        core.close()


def test_refusal_without_explanation_sends_no_text(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(result(stop_reason="refusal")) == [
        shown(T1),
        WITHDRAW,
        settled(T1, StopReason.REFUSAL),
    ]


@pytest.mark.parametrize("mode", ["capable", "legacy"])
@pytest.mark.parametrize(
    "ending",
    [
        result(subtype="error_during_execution", is_error=True, errors=("interrupted",)),
        result(),
        TransportLost(epoch=E1),
        StreamEnded(epoch=E1),
    ],
    ids=["error-result", "result", "transport-lost", "stream-ended"],
)
def test_cancelled_turn_settles_cancelled_without_a_record(mode: str, ending: Event) -> None:
    core = SessionCore(session_id=SID, epoch=E1, capable=mode == "capable")
    try:
        core.handle(PromptSent(turn_id=T1))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
        assert core.handle(said("Working...")) == [FORWARD]
        # The client cancels: its open questions are withdrawn and Claude interrupted, once.
        assert core.handle(CancelRequested()) == [WITHDRAW, InterruptClaude()]
        assert core.turn_state is TurnState.CANCELLING
        assert core.handle(CancelRequested()) == [WITHDRAW]
        # Whatever ends the turn now, the answer is cancelled and nothing is typed.
        # A result that ends it is the turn's (docs/decisions.md#result-owner).
        owner = [shown(T1)] if isinstance(ending, ResultReceived) else []
        assert core.handle(ending) == [*owner, WITHDRAW, settled(T1, StopReason.CANCELLED)]
        assert (core.turn_state, core.turn.outcome, core.active()) == (
            TurnState.IDLE,
            TurnOutcome.CANCELLED,
            [],
        )
    finally:
        core.close()


def test_cancel_with_no_live_turn_is_forgotten(capable: SessionCore) -> None:
    # Only a question asked between turns could be open: it is withdrawn.
    assert capable.handle(CancelRequested()) == [WITHDRAW]
    # The next turn is not cancelled by it.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Hi."))
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN]
