"""docs/decisions.md#delivery and replay: delivery reports, stale runtimes, and failures restored by
session/load."""

from __future__ import annotations

import pytest

from fsm import PromptEchoed
from fsm.effects import LogNotice
from fsm.errors import FsmError
from fsm.events import (
    AuthStatusReported,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    HistoryFailureFound,
    PromptSent,
    ResultReceived,
    RuntimeStarted,
    StreamEnded,
    TransportLost,
    WorkerShuttingDown,
)
from fsm.session import SessionCore
from fsm.turn import TurnState
from tests.support.session_narrative import (
    E1,
    E2,
    END_TURN,
    ERROR,
    FALLBACK_TEXT,
    FORWARD,
    NONE,
    OVERLOADED_TEXT,
    SHOWN_OWN,
    SID,
    SPEND_LIMIT,
    SYN,
    T1,
    T2,
    WARNING,
    WITHDRAW,
    C,
    K,
    confirm,
    fell_back,
    notice_id,
    published,
    rec,
    recovered,
    result,
    retried,
    said,
    settled,
    shown,
)

# --- docs/decisions.md#delivery: delivery and stale runtimes --------------------------------------


def test_failed_delivery_changes_nothing(capable: SessionCore) -> None:
    notice = rec(notice_id(1), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    assert capable.handle(fell_back()) == published(notice)
    confirm(capable, notice)
    # Revision 2 of the notice could not be sent: revision 1 stays current.
    repeat = rec(notice_id(1), 2, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    assert capable.handle(fell_back()) == published(repeat)
    assert capable.handle(DeliveryFailed(id=repeat.id, revision=2)) == [
        LogNotice(message=f"failed to publish {repeat.id} revision 2")
    ]
    assert capable.active() == [notice]
    # The next attempt is revision 2 again.
    assert capable.handle(fell_back()) == published(repeat)


def test_delivery_reports_must_name_the_pending_revision(capable: SessionCore) -> None:
    with pytest.raises(FsmError):
        capable.handle(DeliveryConfirmed(id="nope:error", revision=1))
    notice = rec(notice_id(1), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    capable.handle(fell_back())
    with pytest.raises(FsmError):
        capable.handle(DeliveryConfirmed(id=notice.id, revision=2))
    # The pending revision is still there to confirm.
    confirm(capable, notice)
    assert capable.active() == [notice]


def test_events_from_a_replaced_runtime_are_dropped(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    # The runtime is replaced while T1 waits (the shell re-spawned Claude).
    assert capable.handle(RuntimeStarted(epoch=E2)) == []
    # Whatever the old runtime still says is logged and dropped: no record, no answer.
    stale: list[Event] = [
        said(OVERLOADED_TEXT, model=SYN, error="overloaded"),
        retried(1),
        result(is_error=True, text=OVERLOADED_TEXT),
        fell_back(),
        AuthStatusReported(epoch=E1, is_authenticating=False),
        WorkerShuttingDown(epoch=E1),
        StreamEnded(epoch=E1),
        TransportLost(epoch=E1),
    ]
    for event in stale:
        # A replaced runtime's result is still said to be no prompt's
        # (docs/decisions.md#result-owner): its usage goes out, counted toward no turn.
        owner = [SHOWN_OWN] if isinstance(event, ResultReceived) else []
        assert capable.handle(event) == [
            *owner,
            LogNotice(message=f"dropped {type(event).__name__} from a replaced runtime"),
        ]
    assert (capable.turn_state, capable.active()) == (TurnState.PROMPT_SENT, [])
    # The new runtime answers the prompt.
    assert capable.handle(said("Hi.", epoch=E2)) == [FORWARD]
    assert capable.handle(result(epoch=E2)) == [shown(T1), WITHDRAW, END_TURN]


# --- replay: HistoryFailureFound -----------------------------------------------------------------


def test_replayed_active_usage_limit_stays_active_until_a_real_answer(capable: SessionCore) -> None:
    restored = rec("u-1:error", 1, C.LIMIT, ERROR, SPEND_LIMIT, NONE, K.QUOTA_EXHAUSTED)
    # session/load found the latest unrecovered usage limit.
    assert capable.handle(
        HistoryFailureFound(id="u-1:error", title=SPEND_LIMIT, active=True)
    ) == published(restored)
    assert capable.active() == []
    confirm(capable, restored)
    assert capable.active() == [restored]
    # A local answer does not recover it; a real one does.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("No response requested.", model=SYN))
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN]
    assert capable.active() == [restored]
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    capable.handle(said("Hello again."))
    assert capable.handle(result()) == [shown(T2), WITHDRAW, settled(T2), recovered(restored.id)]
    assert capable.active() == []


def test_replayed_inactive_usage_limit_resolves_on_delivery(capable: SessionCore) -> None:
    older = rec(f"{SID}:history-error:m-0", 1, C.LIMIT, ERROR, SPEND_LIMIT, NONE, K.QUOTA_EXHAUSTED)
    # An older, recovered occurrence is replayed as history: sent, never active.
    assert capable.handle(
        HistoryFailureFound(id=older.id, title=SPEND_LIMIT, active=False)
    ) == published(older)
    confirm(capable, older)
    assert capable.active() == []
    assert capable.ledger.history() == [older]


def test_replay_whose_delivery_failed_restores_nothing(capable: SessionCore) -> None:
    restored = rec("u-1:error", 1, C.LIMIT, ERROR, SPEND_LIMIT, NONE, K.QUOTA_EXHAUSTED)
    assert capable.handle(
        HistoryFailureFound(id="u-1:error", title=SPEND_LIMIT, active=True)
    ) == published(restored)
    assert capable.handle(DeliveryFailed(id="u-1:error", revision=1)) == [
        LogNotice(message="failed to publish u-1:error revision 1")
    ]
    assert (capable.active(), capable.ledger.history()) == ([], [])
