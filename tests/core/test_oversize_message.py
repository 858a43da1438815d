"""The core's side of a message too large: a message over the limit fails its turn with its own
record, and the runtime's end that follows adds nothing."""

from __future__ import annotations

from fsm.effects import LogNotice, RejectPrompt, SettlePrompt, StopReason, WithdrawQuestions
from fsm.events import CancelRequested, MessageTooLarge, PromptSent, TransportLost
from fsm.session import SessionCore
from fsm.vocabulary import Category, FailureKind

E = "epoch-1"


def _core(capable: bool = True) -> SessionCore:
    # A core whose runtime is up (`started`), as after the shell's RuntimeStarted.
    return SessionCore(session_id="sess", epoch=E, capable=capable, started=True)


def test_a_message_over_the_limit_fails_the_turn_once_with_its_own_record() -> None:
    core = _core()
    core.handle(PromptSent(turn_id="P"))
    withdraw, effect = core.handle(MessageTooLarge(epoch=E, limit_bytes=1024 * 1024))
    assert withdraw == WithdrawQuestions()
    assert isinstance(effect, SettlePrompt) and effect.record is not None
    assert effect.stop_reason is StopReason.END_TURN
    assert effect.record.kind is FailureKind.CONTEXT_EXHAUSTED
    assert effect.record.category is Category.LIMIT
    assert "larger than 1 MiB" in effect.record.title
    # The runtime's end is part of the same fault: no second record, no "connection lost",
    # nothing but the log line saying why.
    assert core.handle(TransportLost(epoch=E)) == [
        LogNotice(message="the runtime's loss was already reported")
    ]
    assert core.runtime_lost


def test_a_limit_that_is_not_whole_mib_is_named_in_bytes() -> None:
    core = _core(capable=False)
    core.handle(PromptSent(turn_id="P"))
    withdraw, effect = core.handle(MessageTooLarge(epoch=E, limit_bytes=65_536))
    assert withdraw == WithdrawQuestions()
    assert isinstance(effect, RejectPrompt) and effect.error_kind == "message_too_large"
    assert effect.turn_id == "P"
    assert "65,536 bytes" in effect.message


def test_a_cancelled_turn_stays_cancelled_when_the_message_is_too_large() -> None:
    core = _core()
    core.handle(PromptSent(turn_id="P"))
    core.handle(CancelRequested())
    assert core.handle(MessageTooLarge(epoch=E, limit_bytes=10)) == [
        WithdrawQuestions(),
        SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id="P"),
    ]
