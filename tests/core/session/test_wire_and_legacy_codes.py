"""docs/decisions.md#wire-record, #auth-failure-legacy-client and #legacy-clients: the wire record
on the PromptResponse, and what legacy clients get instead."""

from __future__ import annotations

from fsm import PromptEchoed
from fsm.effects import Blame, LogNotice, RejectPrompt, SendAgentText, SettlePrompt
from fsm.events import AuthStatusReported, HistoryFailureFound, PromptSent, TransportLost
from fsm.session import SessionCore
from fsm.wire.dialects import SessionFailureDialect, merge_meta
from tests.support.session_narrative import (
    AUTH_REJECTION,
    CLOSE,
    E1,
    END_TURN,
    FORWARD,
    FORWARD_MASKED,
    LOGIN_TEXT,
    OVERLOADED_TEXT,
    REAL,
    SHOWN_OWN,
    SPEND_LIMIT,
    SYN,
    T1,
    T2,
    WITHDRAW,
    result,
    retried,
    said,
    shown,
)

# --- docs/decisions.md#wire-record: the wire record on the PromptResponse -------------------------


def test_turn_failure_projects_to_exactly_the_wire_keys(capable: SessionCore) -> None:
    # An overloaded turn ...
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    owner, withdraw, settle = capable.handle(result(is_error=True, text=OVERLOADED_TEXT))
    assert (owner, withdraw) == (shown(T1), WITHDRAW)
    assert isinstance(settle, SettlePrompt) and settle.record is not None
    # ... rides on the response's _meta beside what the shell already put there.
    meta = merge_meta(
        {"quota": {"totalTokens": 15}}, SessionFailureDialect().meta_for(settle.record)
    )
    assert meta == {
        "quota": {"totalTokens": 15},
        "jetbrains": {
            "air": {
                "version": 1,
                "sessionFailure": {
                    "id": "turn-1:error",
                    "revision": 1,
                    "category": "service",
                    "severity": "error",
                    "title": OVERLOADED_TEXT,
                    "actions": ["retry"],
                },
            }
        },
    }


# --- docs/decisions.md#auth-failure-legacy-client and #legacy-clients: legacy codes ---------------


def test_legacy_error_result_rejects_with_internal_error_and_error_kind(
    legacy: SessionCore,
) -> None:
    legacy.handle(PromptSent(turn_id=T1))
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    # The usage-limit prose stays in the transcript for a legacy editor.
    assert legacy.handle(said(SPEND_LIMIT, model=SYN, error="rate_limit")) == [FORWARD_MASKED]
    # It was shown as it came: the error names the kind, not Claude's words again
    # (docs/decisions.md#legacy-error-text-once).
    assert legacy.handle(result(is_error=True, text=SPEND_LIMIT)) == [
        shown(T1),
        WITHDRAW,
        RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: The Claude account has no available quota.",
            error_kind="rate_limit",
            turn_id=T1,
        ),
    ]
    # Nothing typed, nothing active, and the next prompt is accepted.
    assert legacy.active() == []
    assert legacy.handle(PromptSent(turn_id=T2)) == []
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T2))


# A provider failure's answer to a legacy client: the kind, never Claude's words
# (docs/decisions.md#legacy-error-text-once).
PROVIDER_REJECTION = RejectPrompt(
    blame=Blame.INTERNAL,
    message="Internal error: The model provider reported an error.",
    error_kind="provider_error",
    turn_id=T1,
)


def test_legacy_error_result_without_assistant_error_names_the_kind(legacy: SessionCore) -> None:
    legacy.handle(PromptSent(turn_id=T1))
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    # Claude Code's words reached the client nowhere else: agent text first (nothing was said
    # before them, so no line break), then the short error.
    assert legacy.handle(
        result(subtype="error_during_execution", is_error=True, errors=("boom",))
    ) == [shown(T1), SendAgentText(text="boom"), WITHDRAW, PROVIDER_REJECTION]


def test_legacy_result_text_already_answered_is_not_repeated(legacy: SessionCore) -> None:
    # An error result whose text repeats what the turn answered: shown once, the error short.
    legacy.handle(PromptSent(turn_id=T1))
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    assert legacy.handle(said("Partial answer, then trouble.", model=REAL)) == [FORWARD]
    assert legacy.handle(result(is_error=True, text="Partial answer, then trouble.")) == [
        shown(T1),
        WITHDRAW,
        PROVIDER_REJECTION,
    ]


def test_the_adapters_own_words_stay_in_the_legacy_error(legacy: SessionCore) -> None:
    # Claude said nothing of the failure: the error's message is the only place it is told.
    legacy.handle(PromptSent(turn_id=T1))
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    assert legacy.handle(TransportLost(epoch=E1)) == [
        WITHDRAW,
        RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: The connection to Claude was lost.",
            error_kind="transport_lost",
            turn_id=T1,
        ),
    ]


def test_legacy_auth_rejects_with_authentication_required(legacy: SessionCore) -> None:
    legacy.handle(PromptSent(turn_id=T1))
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    assert legacy.handle(said(LOGIN_TEXT, model=SYN)) == []
    assert legacy.handle(result(is_error=True, text=LOGIN_TEXT)) == [
        shown(T1),
        WITHDRAW,
        AUTH_REJECTION,
    ]
    # An auth check later publishes nothing either.
    assert legacy.handle(AuthStatusReported(epoch=E1, is_authenticating=False)) == []


def test_legacy_failure_with_no_live_turn_is_only_logged(legacy: SessionCore) -> None:
    # Nobody to answer and no record to send: the shell logs it.
    assert legacy.handle(TransportLost(epoch=E1)) == [
        LogNotice(message="transport_lost with no live turn: The connection to Claude was lost.")
    ]
    assert legacy.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        SHOWN_OWN,
        CLOSE,
        LogNotice(message=f"provider_error with no live turn: {OVERLOADED_TEXT}"),
    ]
    assert legacy.active() == []


def test_legacy_never_publishes_retry_history_or_records(legacy: SessionCore) -> None:
    assert legacy.handle(PromptSent(turn_id=T1)) == []
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    assert legacy.handle(retried(1)) == []
    assert legacy.handle(retried(2, status=None)) == []
    assert legacy.handle(HistoryFailureFound(id="u0:error", title=SPEND_LIMIT, active=True)) == []
    assert legacy.handle(said("Done.")) == [FORWARD]
    assert legacy.handle(result(text="Done.")) == [shown(T1), WITHDRAW, END_TURN]
    assert legacy.active() == []
