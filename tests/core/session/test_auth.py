"""docs/decisions.md#auth-failure-capable-client: authentication failures for capable clients, and
when they recover."""

from __future__ import annotations

from fsm import PromptEchoed
from fsm.events import AuthStatusReported, PromptSent
from fsm.session import SessionCore
from fsm.turn import TurnOutcome, TurnState
from tests.support.session_narrative import (
    CLOSE,
    E1,
    ERROR,
    FORWARD,
    FORWARD_MASKED,
    LOGIN,
    LOGIN_TEXT,
    LOGIN_TITLE,
    NONE,
    SHOWN_OWN,
    SYN,
    T1,
    T2,
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
    settled,
    shown,
)

# --- docs/decisions.md#auth-failure-capable-client: auth for capable clients ----------------------


def test_auth_failure_with_no_live_turn_is_session_scoped(capable: SessionCore) -> None:
    auth = rec(session_error_id(1), 1, C.ACCESS, ERROR, LOGIN_TITLE, LOGIN, K.AUTH_REQUIRED)
    # A login result arrives while no prompt waits: it goes out as a session_info_update.
    assert capable.handle(result(is_error=True, text=LOGIN_TEXT)) == [
        SHOWN_OWN,
        CLOSE,
        *published(auth),
    ]
    assert capable.active() == []
    confirm(capable, auth)
    assert capable.active() == [auth]
    assert capable.turn_state is TurnState.IDLE


def test_auth_stays_active_until_a_successful_auth_status(capable: SessionCore) -> None:
    auth = rec(f"{T1}:error", 1, C.ACCESS, ERROR, LOGIN_TITLE, LOGIN, K.AUTH_REQUIRED)
    # T1 fails: sign in.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(said(LOGIN_TEXT, model=SYN)) == []
    assert capable.handle(result(is_error=True, text=LOGIN_TEXT)) == [shown(T1), *failed_with(auth)]
    # The next attempt's result is not a fix for auth (it is not a next_attempt failure).
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    assert capable.handle(said("No response requested.", model=SYN)) == [FORWARD_MASKED]
    assert capable.handle(result(text="No response requested.")) == [
        shown(T2),
        WITHDRAW,
        settled(T2),
    ]
    assert capable.active() == [auth]
    # Authentication in progress, or failed: still active.
    assert capable.handle(AuthStatusReported(epoch=E1, is_authenticating=True)) == []
    assert (
        capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False, error="cancelled"))
        == []
    )
    assert capable.active() == [auth]
    # Success: it recovers, and nothing is published (the log says so).
    assert capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False)) == [
        recovered(auth.id)
    ]
    assert capable.active() == []
    assert capable.ledger.history() == [auth]


def test_auth_recovers_at_a_real_model_answer(capable: SessionCore) -> None:
    auth = rec(f"{T1}:error", 1, C.ACCESS, ERROR, LOGIN_TITLE, LOGIN, K.AUTH_REQUIRED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said(LOGIN_TEXT, model=SYN))
    assert capable.handle(result(is_error=True, text=LOGIN_TEXT)) == [shown(T1), *failed_with(auth)]
    # The user signed in elsewhere; the next turn gets a real answer.
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    assert capable.handle(said("Hello!")) == [FORWARD]
    # It recovers: nothing is published, the log says so.
    assert capable.handle(result(text="Hello!")) == [
        shown(T2),
        WITHDRAW,
        settled(T2),
        recovered(auth.id),
    ]
    assert capable.active() == []


def test_synthetic_login_fails_the_turn_even_with_a_clean_result(capable: SessionCore) -> None:
    auth = rec(f"{T1}:error", 1, C.ACCESS, ERROR, LOGIN_TITLE, LOGIN, K.AUTH_REQUIRED)
    # The CLI answered locally with its login message and reported no error.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(said(LOGIN_TEXT, model=SYN)) == []
    assert capable.handle(result(text=LOGIN_TEXT)) == [shown(T1), *failed_with(auth)]
    assert capable.active() == [auth]


def test_login_after_a_real_answer_revises_the_turns_retry_warning(capable: SessionCore) -> None:
    # Regression: the real answer used to count as success before the login prompt was seen,
    # retiring the turn's retry warning and then crashing on revising it
    # (docs/decisions.md#never-silent: the prompt was never answered).
    warning = rec(
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
    assert capable.handle(retried(1)) == published(warning)
    confirm(capable, warning)
    assert capable.handle(said("Sure, one moment.")) == [FORWARD]
    assert capable.handle(said(LOGIN_TEXT, model=SYN)) == []
    auth = rec(f"{T1}:error", 2, C.ACCESS, ERROR, LOGIN_TITLE, LOGIN, K.AUTH_REQUIRED)
    assert capable.handle(result(text=LOGIN_TEXT)) == [shown(T1), *failed_with(auth)]
    assert (capable.turn_state, capable.turn.outcome, capable.active()) == (
        TurnState.IDLE,
        TurnOutcome.FAILED,
        [auth],
    )


def test_login_result_text_alone_is_an_auth_failure(capable: SessionCore) -> None:
    # No assistant message at all: the result's text asks to run /login.
    text = "OAuth token has expired. Please run /login"
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(result(is_error=True, text=text)) == [
        shown(T1),
        *failed_with(
            rec(
                f"{T1}:error",
                1,
                C.ACCESS,
                ERROR,
                "OAuth token has expired.",
                LOGIN,
                K.AUTH_REQUIRED,
            )
        ),
    ]
