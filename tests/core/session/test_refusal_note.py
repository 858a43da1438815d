"""docs/decisions.md#refusal-explanation: an explanation Claude Code says ahead of the refusal (a
`system/model_refusal_no_fallback` frame, `RefusalExplained`) is the core's to keep and to hand
to the refusal message or the result it was for."""

from __future__ import annotations

import pytest

from fsm import (
    LogNotice,
    PeerViolation,
    PromptEchoed,
    PromptSent,
    RefusalExplained,
    SendAgentText,
    SessionCore,
    StopReason,
)
from fsm.session import RefusalNote
from tests.support.session_narrative import (
    E1,
    E2,
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

WHY = "This request looks like malware development."


def explained(text: str = WHY, *, epoch: str = E1) -> RefusalExplained:
    return RefusalExplained(epoch=epoch, explanation=text)


def test_the_note_goes_with_the_refusal_message_that_follows_it(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(explained()) == []
    assert capable.handle(said("I can't help with that.", stop_reason="refusal")) == [FORWARD]
    # The message carried it: the explanation goes out once, before `refusal`.
    assert capable.handle(result(stop_reason="refusal")) == [
        shown(T1),
        SendAgentText(text=WHY),
        WITHDRAW,
        settled(T1, StopReason.REFUSAL),
    ]
    assert capable.refusal.kept is None


def test_the_note_goes_with_a_refusal_result_no_message_came_ahead_of(
    capable: SessionCore,
) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(explained())
    assert capable.handle(result(is_error=True, stop_reason="refusal")) == [
        shown(T1),
        SendAgentText(text=WHY),
        WITHDRAW,
        settled(T1, StopReason.REFUSAL),
    ]
    assert capable.refusal.kept is None


def test_a_refusal_message_that_explains_itself_keeps_its_own_words(
    capable: SessionCore,
) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(explained("The notice's words."))
    own = said("No.", stop_reason="refusal", refusal_explanation="The message's words.")
    capable.handle(own)
    # The message took the note all the same: the result does not bring it back.
    assert capable.handle(result(stop_reason="refusal")) == [
        shown(T1),
        SendAgentText(text="The message's words."),
        WITHDRAW,
        settled(T1, StopReason.REFUSAL),
    ]


def test_a_note_no_refusal_came_to_use_is_not_carried_into_the_next_turn(
    capable: SessionCore,
) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(explained())
    # An answer that is no refusal: neither the message nor the result carries the note ...
    assert capable.handle(said("Here you go.")) == [FORWARD]
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN]
    assert capable.refusal.kept is None
    # ... and the next turn's refusal, which Claude Code explained nowhere, says nothing.
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    assert capable.handle(result(stop_reason="refusal")) == [
        shown(T2),
        WITHDRAW,
        settled(T2, StopReason.REFUSAL),
    ]


def test_a_later_note_replaces_an_earlier_one(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(explained("First."))
    capable.handle(explained("Second."))
    assert capable.handle(result(stop_reason="refusal"))[:2] == [
        shown(T1),
        SendAgentText(text="Second."),
    ]


def test_a_replaced_runtimes_note_is_dropped(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(explained(epoch=E2)) == [
        LogNotice(message="dropped RefusalExplained from a replaced runtime")
    ]
    assert capable.refusal.kept is None


def test_the_note_is_attached_only_to_a_refusal_or_a_result() -> None:
    note = RefusalNote()
    note.note(WHY)
    # Another message passes unchanged and leaves the note kept.
    plain = said("Thinking.")
    assert note.attach(plain) is plain
    assert note.kept == WHY
    refusing = note.attach(said("No.", stop_reason="refusal"))
    assert refusing == said("No.", stop_reason="refusal", refusal_explanation=WHY)
    assert note.kept is None


@pytest.mark.parametrize("text", ["", "   \n"])
def test_an_explanation_that_says_nothing_is_a_peer_violation(text: str) -> None:
    with pytest.raises(PeerViolation):
        RefusalExplained(epoch=E1, explanation=text)
