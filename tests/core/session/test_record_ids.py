"""docs/decisions.md#turn-ids and #session-scoped-ids: how records are numbered, per turn and per
runtime."""

from __future__ import annotations

from fsm import PromptEchoed
from fsm.effects import LogNotice
from fsm.events import DeliveryFailed, ModelFellBack, PromptSent, RuntimeStarted, TransportLost
from fsm.session import SessionCore
from tests.support.session_narrative import (
    CLOSE,
    E1,
    E2,
    ERROR,
    FALLBACK_TEXT,
    NEW,
    NONE,
    OVERLOADED_TEXT,
    RETRY,
    SHOWN_OWN,
    SYN,
    T1,
    T2,
    WARNING,
    C,
    K,
    confirm,
    failed_with,
    fell_back,
    notice_id,
    published,
    rec,
    recovered,
    result,
    said,
    session_error_id,
    shown,
)

# --- docs/decisions.md#turn-ids and #session-scoped-ids: ids --------------------------------------


def test_session_scoped_ids_count_per_runtime(capable: SessionCore) -> None:
    tl = rec(
        session_error_id(1),
        1,
        C.CONNECTION,
        ERROR,
        "The connection to Claude was lost.",
        NEW,
        K.TRANSPORT_LOST,
    )
    overloaded = rec(
        session_error_id(2), 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR
    )
    # The runtime dies while idle: a session-scoped record, n = 1.
    assert capable.handle(TransportLost(epoch=E1)) == published(tl)
    confirm(capable, tl)
    # A late error result while idle: n = 2, an independent occurrence with its own id.
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        SHOWN_OWN,
        CLOSE,
        *published(overloaded),
    ]
    confirm(capable, overloaded)
    assert capable.active() == [tl, overloaded]
    # A new runtime: the transport loss recovers (nothing published), the other stays, and
    # the counter starts again under the new epoch.
    assert capable.handle(RuntimeStarted(epoch=E2)) == [recovered(tl.id)]
    assert capable.active() == [overloaded]
    assert capable.epoch == E2
    again = rec(
        session_error_id(1, E2),
        1,
        C.CONNECTION,
        ERROR,
        "The connection to Claude was lost.",
        NEW,
        K.TRANSPORT_LOST,
    )
    assert capable.handle(TransportLost(epoch=E2)) == published(again)


def test_notice_reuses_its_id_while_the_title_repeats(capable: SessionCore) -> None:
    other_text = FALLBACK_TEXT.replace("(cyber)", "(bio)")
    first = rec(notice_id(1), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    repeat = rec(notice_id(1), 2, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    other = rec(notice_id(2), 1, C.UNKNOWN, WARNING, other_text, NONE, K.ADVISORY)
    # The same notice twice in a row is one entry, revised.
    assert capable.handle(fell_back()) == published(first)
    confirm(capable, first)
    assert capable.handle(fell_back()) == published(repeat)
    confirm(capable, repeat)
    # A different notice is a new entry; the counter is shared with session errors.
    bio = ModelFellBack(
        epoch=E1,
        original_model="claude-opus-4-1",
        fallback_model="claude-sonnet-4-5",
        refusal_category="bio",
    )
    assert capable.handle(bio) == published(other)
    confirm(capable, other)
    tl = rec(
        session_error_id(3),
        1,
        C.CONNECTION,
        ERROR,
        "The connection to Claude was lost.",
        NEW,
        K.TRANSPORT_LOST,
    )
    assert capable.handle(TransportLost(epoch=E1)) == published(tl)
    confirm(capable, tl)
    # The first title again, no longer consecutive: a new occurrence, a new id.
    assert capable.handle(fell_back()) == published(
        rec(notice_id(4), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    )


def test_failed_delivery_still_consumes_its_number(capable: SessionCore) -> None:
    lost = rec(
        session_error_id(1),
        1,
        C.CONNECTION,
        ERROR,
        "The connection to Claude was lost.",
        NEW,
        K.TRANSPORT_LOST,
    )
    assert capable.handle(TransportLost(epoch=E1)) == published(lost)
    assert capable.handle(DeliveryFailed(id=lost.id, revision=1)) == [
        LogNotice(message=f"failed to publish {lost.id} revision 1")
    ]
    assert capable.active() == []
    # The next occurrence never reuses the id the client may or may not have seen.
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        SHOWN_OWN,
        CLOSE,
        *published(
            rec(session_error_id(2), 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
        ),
    ]


def test_each_turn_fails_under_its_own_id(capable: SessionCore) -> None:
    # Identical failures in two turns are two occurrences: two ids, both revision 1.
    for turn, recovers in ((T1, []), (T2, [recovered(f"{T1}:error")])):
        capable.handle(PromptSent(turn_id=turn))
        capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=turn))
        capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
        assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
            shown(turn),
            *failed_with(
                rec(f"{turn}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED),
                turn,
            ),
            *recovers,
        ]
    # T2's result was the attempt boundary for T1.
    assert capable.active() == [
        rec(f"{T2}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    ]
