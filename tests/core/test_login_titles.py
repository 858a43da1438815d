"""Claude Code's sign-in texts as a record title shows them: what happened stays, the
terminal-only "/login" instruction goes (docs/decisions.md#sign-in-that-leads-somewhere)."""

from __future__ import annotations

import pytest

from fsm.claude.classify import without_login_instruction
from fsm.ledger import Ledger
from fsm.vocabulary import FailureKind, Severity


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Not logged in \u00b7 Please run /login", "Not logged in"),
        ("Please run /login \u00b7 API key is invalid", "API key is invalid"),
        ("Invalid API key \u00b7 Please run /login", "Invalid API key"),
        (
            "Your session has expired. Please run /login to sign in again.",
            "Your session has expired.",
        ),
        (
            "Login expired \u00b7 Run /login to sign in again, or re-authenticate your profile",
            "Login expired",
        ),
        (
            "OAuth refresh token is no longer valid; run /login to re-authenticate",
            "OAuth refresh token is no longer valid",
        ),
        ("Please run /login", ""),
        # Nothing about /login: unchanged, a stop inside a word ends no clause.
        (
            "Failed to authenticate. API Error: 401 from claude.ai",
            "Failed to authenticate. API Error: 401 from claude.ai",
        ),
    ],
)
def test_the_terminal_step_goes_and_what_happened_stays(said: str, kept: str) -> None:
    assert without_login_instruction(said) == kept


def _ledger(turn_id: str = "t1") -> Ledger:
    ledger = Ledger(session_id="s", epoch="e")
    ledger.open_turn(turn_id)
    return ledger


def test_a_sign_in_record_is_titled_without_the_terminal_step() -> None:
    ledger = _ledger()
    record = ledger.propose_turn(
        kind=FailureKind.AUTH_REQUIRED,
        severity=Severity.ERROR,
        text="Not logged in \u00b7 Please run /login",
    )
    assert record.title == "Not logged in" and record.details is None
    bare = _ledger("t2").propose_turn(
        kind=FailureKind.AUTH_REQUIRED, severity=Severity.ERROR, text="Please run /login"
    )
    assert bare.title == "Sign in to continue using Claude."  # the kind's fallback title


def test_other_kinds_keep_their_text() -> None:
    record = _ledger().propose_turn(
        kind=FailureKind.PROVIDER_ERROR, severity=Severity.ERROR, text="Run /login did nothing."
    )
    assert record.title == "Run /login did nothing."
