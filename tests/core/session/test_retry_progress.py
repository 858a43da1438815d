"""docs/decisions.md#retry-progress: retry warnings, their revisions, and their escalation to an
error."""

from __future__ import annotations

from fsm import PromptEchoed
from fsm.effects import LogNotice
from fsm.events import DeliveryFailed, PromptSent
from fsm.session import SessionCore
from fsm.turn import TurnOutcome, TurnState
from tests.support.session_narrative import (
    END_TURN,
    ERROR,
    FORWARD,
    NONE,
    OVERLOADED_TEXT,
    RETRY,
    SYN,
    T1,
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
    retried,
    said,
    session_error_id,
    shown,
)

# --- docs/decisions.md#retry-progress: retry progress ---------------------------------------------


def test_retry_warnings_escalate_to_an_error_on_the_prompt_response(capable: SessionCore) -> None:
    first = rec(
        f"{T1}:error",
        1,
        C.SERVICE,
        WARNING,
        "Retrying Claude, attempt 1 of 10.",
        NONE,
        K.OVERLOADED,
    )
    second = rec(
        f"{T1}:error",
        2,
        C.SERVICE,
        WARNING,
        "Retrying Claude, attempt 2 of 10.",
        NONE,
        K.OVERLOADED,
    )
    terminal = rec(f"{T1}:error", 3, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    # Attempt 1: a warning, revision 1, under the turn's id.
    assert capable.handle(retried(1)) == published(first)
    confirm(capable, first)
    assert (capable.turn_state, capable.active()) == (TurnState.RETRYING, [first])
    # Attempt 2: the same entry, revision 2.
    assert capable.handle(retried(2)) == published(second)
    confirm(capable, second)
    assert (capable.turn_state, capable.active()) == (TurnState.RETRYING, [second])
    # Claude gives up: the same id, revision 3, now an error, on the PromptResponse.
    assert capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded")) == []
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        shown(T1),
        *failed_with(terminal),
    ]
    assert (capable.turn_state, capable.turn.outcome, capable.active()) == (
        TurnState.IDLE,
        TurnOutcome.FAILED,
        [terminal],
    )


def test_retry_whose_delivery_failed_is_not_counted(capable: SessionCore) -> None:
    first = rec(
        f"{T1}:error",
        1,
        C.SERVICE,
        WARNING,
        "Retrying Claude, attempt 1 of 10.",
        NONE,
        K.OVERLOADED,
    )
    lost = rec(
        f"{T1}:error",
        2,
        C.SERVICE,
        WARNING,
        "Retrying Claude, attempt 2 of 10.",
        NONE,
        K.OVERLOADED,
    )
    third = rec(
        f"{T1}:error",
        2,
        C.SERVICE,
        WARNING,
        "Retrying Claude, attempt 3 of 10.",
        NONE,
        K.OVERLOADED,
    )
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(retried(1)) == published(first)
    confirm(capable, first)
    # Revision 2 could not be sent: logged, and nothing moves (docs/decisions.md#delivery).
    assert capable.handle(retried(2)) == published(lost)
    assert capable.handle(DeliveryFailed(id=lost.id, revision=2)) == [
        LogNotice(message="failed to publish turn-1:error revision 2")
    ]
    assert capable.active() == [first]
    # Attempt 3 takes revision 2, which the client has never seen.
    assert capable.handle(retried(3)) == published(third)
    confirm(capable, third)
    # The terminal error follows the last delivered revision.
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        shown(T1),
        *failed_with(
            rec(f"{T1}:error", 3, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
        ),
    ]


def test_first_retry_lost_leaves_the_turn_error_at_revision_one(capable: SessionCore) -> None:
    lost = rec(
        f"{T1}:error",
        1,
        C.SERVICE,
        WARNING,
        "Retrying Claude, attempt 1 of 10.",
        NONE,
        K.OVERLOADED,
    )
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(retried(1)) == published(lost)
    capable.handle(DeliveryFailed(id=lost.id, revision=1))
    assert capable.active() == []
    # The client never saw revision 1, so the terminal error is revision 1.
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        shown(T1),
        *failed_with(rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)),
    ]


def test_retry_of_a_401_publishes_nothing(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(retried(1, status=401, error="authentication_failed")) == []
    assert capable.handle(retried(2, status=403, error="oauth_org_not_allowed")) == []
    assert (capable.turn_state, capable.active()) == (TurnState.RUNNING, [])


def test_retry_title_is_exactly_row_11_even_with_no_response_details(
    capable: SessionCore,
) -> None:
    # Claude says how long it waited; docs/decisions.md#retry-progress fixes the title's wording
    # regardless.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(retried(2, status=None, error=None)) == published(
        rec(
            f"{T1}:error",
            1,
            C.CONNECTION,
            WARNING,
            "Reconnecting to Claude, attempt 2 of 10.",
            NONE,
            K.TRANSPORT_LOST,
        )
    )


def test_retry_warnings_recover_when_the_turn_succeeds(capable: SessionCore) -> None:
    warning = rec(
        f"{T1}:error",
        1,
        C.LIMIT,
        WARNING,
        "Retrying Claude, attempt 1 of 10.",
        NONE,
        K.RATE_LIMITED,
    )
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(retried(1, status=429, error="rate_limit")) == published(warning)
    confirm(capable, warning)
    # The retry worked: the answer settles the turn, and the warning stops being active
    # without anything published (the entry stays on the client as history).
    assert capable.handle(said("Done.")) == [FORWARD]
    assert capable.handle(result(text="Done.")) == [
        shown(T1),
        WITHDRAW,
        END_TURN,
        recovered(warning.id),
    ]
    assert (capable.turn_state, capable.turn.outcome, capable.active()) == (
        TurnState.IDLE,
        TurnOutcome.SUCCEEDED,
        [],
    )
    assert capable.ledger.history() == [warning]


def test_retry_with_no_live_turn_is_a_session_warning(capable: SessionCore) -> None:
    warning = rec(
        session_error_id(1),
        1,
        C.SERVICE,
        WARNING,
        "Retrying Claude, attempt 1 of 3.",
        NONE,
        K.OVERLOADED,
    )
    assert capable.handle(retried(1, max_retries=3)) == published(warning)
    confirm(capable, warning)
    assert (capable.turn_state, capable.active()) == (TurnState.IDLE, [warning])
