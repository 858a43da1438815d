"""Narratives through `SessionCore.handle`, for capable and legacy clients.

Each test is one lifecycle: the events the shell would feed, in order, with the exact effects
the core must answer and the state it must be left in. The first group walks the spec's mapping
table row by row ("Claude SDK conditions map to these groups"); the rest follow the DECISIONS
rows the core owns (3, 4, 5, 8-13, 15-21).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from fsm.effects import (
    Blame,
    Effect,
    ForwardAssistantMessage,
    InterruptClaude,
    LogNotice,
    PublishRecord,
    RejectPrompt,
    SendAgentText,
    SettlePrompt,
    StopReason,
)
from fsm.errors import FsmError, InvalidTransition
from fsm.events import (
    AssistantMessageReceived,
    AuthStatusReported,
    CancelRequested,
    ClaudeSilent,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    HistoryFailureFound,
    ModelFellBack,
    PromptSent,
    ResultReceived,
    RetryAttempted,
    RuntimeStarted,
    StreamEnded,
    TransportLost,
    TurnWentIdle,
    WorkerShuttingDown,
)
from fsm.records import FailureRecord
from fsm.session import TURN_NO_RESULT_TITLE, SessionCore
from fsm.turn import TurnOutcome, TurnState
from fsm.vocabulary import Action, Category, FailureKind, Severity
from fsm.wire import SessionFailureDialect, merge_meta

SID = "sess-1"
E1 = "epoch-1"
E2 = "epoch-2"
T1 = "turn-1"
T2 = "turn-2"
T3 = "turn-3"
REAL = "claude-sonnet-4-5"
SYN = "<synthetic>"

ERROR = Severity.ERROR
WARNING = Severity.WARNING
K = FailureKind
C = Category
RETRY = (Action.RETRY,)
LOGIN = (Action.LOGIN,)
NEW = (Action.NEW_SESSION,)
NONE: tuple[Action, ...] = ()

FORWARD = ForwardAssistantMessage()
END_TURN = SettlePrompt(stop_reason=StopReason.END_TURN)

SPEND_LIMIT = (
    "You've hit your individual spend limit \u00b7 run /usage-credits to ask your admin for a "
    "higher limit"
)
LOGIN_TEXT = "Not logged in \u00b7 Please run /login"
OVERLOADED_TEXT = "API Error: 529 Overloaded. Please try again later."


# --- building blocks ----------------------------------------------------------------------------


@pytest.fixture
def capable() -> Iterator[SessionCore]:
    core = SessionCore(session_id=SID, epoch=E1, capable=True)
    yield core
    core.close()


@pytest.fixture
def legacy() -> Iterator[SessionCore]:
    core = SessionCore(session_id=SID, epoch=E1, capable=False)
    yield core
    core.close()


def said(
    text: str,
    *,
    model: str | None = REAL,
    error: str | None = None,
    blocks: int = 1,
    epoch: str = E1,
    top_level: bool = True,
    stop_reason: str | None = None,
    refusal_explanation: str | None = None,
) -> AssistantMessageReceived:
    return AssistantMessageReceived(
        epoch=epoch,
        model=model,
        text=text,
        text_block_count=blocks,
        error=error,
        top_level=top_level,
        stop_reason=stop_reason,
        refusal_explanation=refusal_explanation,
    )


def result(
    *,
    subtype: str = "success",
    is_error: bool = False,
    text: str | None = None,
    errors: tuple[str, ...] = (),
    stop_reason: str | None = None,
    autonomous: bool = False,
    epoch: str = E1,
) -> ResultReceived:
    return ResultReceived(
        epoch=epoch,
        subtype=subtype,
        is_error=is_error,
        result=text,
        errors=errors,
        stop_reason=stop_reason,
        autonomous=autonomous,
    )


def retried(
    attempt: int,
    *,
    status: int | None = 529,
    error: str | None = "overloaded",
    max_retries: int = 10,
    epoch: str = E1,
) -> RetryAttempted:
    return RetryAttempted(
        epoch=epoch,
        attempt=attempt,
        max_retries=max_retries,
        error_status=status,
        error=error,
    )


def fell_back(explanation: str | None = None, *, epoch: str = E1) -> ModelFellBack:
    return ModelFellBack(
        epoch=epoch,
        original_model="claude-opus-4-1",
        fallback_model="claude-sonnet-4-5",
        refusal_category="cyber",
        explanation=explanation,
    )


FALLBACK_TEXT = (
    "claude-opus-4-1 declined this request (cyber); retried with claude-sonnet-4-5. "
    "The session will continue on claude-sonnet-4-5."
)


def rec(
    id: str,
    revision: int,
    category: Category,
    severity: Severity,
    title: str,
    actions: tuple[Action, ...],
    kind: FailureKind,
    details: str | None = None,
) -> FailureRecord:
    """An expected record, every field spelled out."""
    return FailureRecord(
        id=id,
        revision=revision,
        category=category,
        severity=severity,
        title=title,
        details=details,
        actions=actions,
        kind=kind,
    )


def failed_with(record: FailureRecord) -> list[Effect]:
    return [SettlePrompt(stop_reason=StopReason.END_TURN, record=record)]


def published(record: FailureRecord) -> list[Effect]:
    return [PublishRecord(record=record)]


def confirm(core: SessionCore, record: FailureRecord) -> None:
    # The shell sent the session_info_update: report it, which answers nothing.
    assert core.handle(DeliveryConfirmed(id=record.id, revision=record.revision)) == []


def session_error_id(n: int, epoch: str = E1) -> str:
    return f"{SID}:session-error:{epoch}:{n}"


def notice_id(n: int, epoch: str = E1) -> str:
    return f"{SID}:notice:{epoch}:{n}"


# --- the spec's mapping table, row by row -----------------------------------------------------


@dataclass(frozen=True)
class MappingRow:
    """One Claude condition: the turn's events, and what each mode must see."""

    steps: tuple[tuple[Event, list[Effect], list[Effect]], ...]  # event, capable, legacy
    ending: Event
    record: FailureRecord  # the turn-terminal record (capable)
    legacy_answer: RejectPrompt
    notes: dict[str, Any] = field(default_factory=dict)


def _error_row(
    text: str,
    error: str,
    category: Category,
    actions: tuple[Action, ...],
    kind: FailureKind,
    *,
    model: str = SYN,
    legacy_says: list[Effect] | None = None,
    legacy_answer: RejectPrompt | None = None,
) -> MappingRow:
    # The common shape: Claude's error message, then an error result carrying the same text.
    return MappingRow(
        steps=(
            (
                said(text, model=model, error=error),
                [],
                [FORWARD] if legacy_says is None else legacy_says,
            ),
        ),
        ending=result(is_error=True, text=text),
        record=rec(f"{T1}:error", 1, category, ERROR, text, actions, kind),
        legacy_answer=legacy_answer
        or RejectPrompt(blame=Blame.INTERNAL, message=f"Internal error: {text}", error_kind=error),
    )


AUTH_REJECTION = RejectPrompt(blame=Blame.AUTH, message="Authentication required")

MAPPING: dict[str, MappingRow] = {
    # access, login
    "authentication_failed": _error_row(
        "Invalid API key \u00b7 Fix external API key",
        "authentication_failed",
        C.ACCESS,
        LOGIN,
        K.AUTH_REQUIRED,
        legacy_answer=AUTH_REJECTION,
    ),
    "oauth_org_not_allowed": _error_row(
        "Your organization does not have access to Claude Code.",
        "oauth_org_not_allowed",
        C.ACCESS,
        LOGIN,
        K.AUTH_REQUIRED,
        legacy_answer=AUTH_REJECTION,
    ),
    "synthetic login message": MappingRow(
        # No error code at all: the CLI's one-block "/login" message is recognised by its text,
        # and legacy editors never see it as prose (they run their own sign-in flow).
        steps=((said(LOGIN_TEXT, model=SYN), [], []),),
        ending=result(is_error=True, text=LOGIN_TEXT),
        record=rec(f"{T1}:error", 1, C.ACCESS, ERROR, LOGIN_TEXT, LOGIN, K.AUTH_REQUIRED),
        legacy_answer=AUTH_REJECTION,
    ),
    # access, no login
    "verification_required": _error_row(
        "Please verify your account to continue.",
        "verification_required",
        C.ACCESS,
        RETRY,
        K.ACCESS_DENIED,
    ),
    "cloud_credential_error": _error_row(
        "Could not load credentials from any providers for Amazon Bedrock.",
        "cloud_credential_error",
        C.ACCESS,
        RETRY,
        K.ACCESS_DENIED,
    ),
    # limit
    "billing_error": _error_row(
        "Credit balance is too low",
        "billing_error",
        C.LIMIT,
        NONE,
        K.QUOTA_EXHAUSTED,
    ),
    "rate_limit": _error_row(
        "API Error: Request rejected (429) \u00b7 rate limit reached",
        "rate_limit",
        C.LIMIT,
        RETRY,
        K.RATE_LIMITED,
    ),
    "max_output_tokens": _error_row(
        "API Error: Claude's response exceeded the 32000 output token maximum.",
        "max_output_tokens",
        C.LIMIT,
        NEW,
        K.CONTEXT_EXHAUSTED,
    ),
    "usage/spend limit": _error_row(
        # The CLI labels it rate_limit; the synthetic prefix makes it quota.
        SPEND_LIMIT,
        "rate_limit",
        C.LIMIT,
        NONE,
        K.QUOTA_EXHAUSTED,
    ),
    "budget limit": MappingRow(
        steps=((said("Working on it.", model=REAL), [FORWARD], [FORWARD]),),
        ending=result(
            subtype="error_max_budget_usd", is_error=True, errors=("Reached maximum budget ($5)",)
        ),
        record=rec(
            f"{T1}:error", 1, C.LIMIT, ERROR, "Reached maximum budget ($5)", NEW, K.BUDGET_EXHAUSTED
        ),
        legacy_answer=RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: Reached maximum budget ($5)",
            error_kind="budget_exhausted",
        ),
    ),
    "turn limit": MappingRow(
        steps=((said("Working on it.", model=REAL), [FORWARD], [FORWARD]),),
        ending=result(
            subtype="error_max_turns",
            is_error=True,
            errors=("Reached maximum number of turns (8)",),
        ),
        record=rec(
            f"{T1}:error",
            1,
            C.LIMIT,
            ERROR,
            "Reached maximum number of turns (8)",
            NEW,
            K.CONTEXT_EXHAUSTED,
        ),
        legacy_answer=RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: Reached maximum number of turns (8)",
            error_kind="context_exhausted",
        ),
    ),
    # request
    "invalid_request": _error_row(
        "API Error: 400 messages.1.content: text content blocks must be non-empty",
        "invalid_request",
        C.REQUEST,
        NONE,
        K.BAD_REQUEST,
    ),
    "model_not_found": _error_row(
        "There's an issue with the selected model (claude-nope). It may not exist.",
        "model_not_found",
        C.REQUEST,
        NONE,
        K.BAD_REQUEST,
    ),
    # service
    "overloaded": _error_row(OVERLOADED_TEXT, "overloaded", C.SERVICE, RETRY, K.OVERLOADED),
    "server_error": _error_row(
        "API Error: 500 Internal server error", "server_error", C.SERVICE, RETRY, K.PROVIDER_ERROR
    ),
    "unknown": _error_row(
        "API Error: something unexpected", "unknown", C.SERVICE, RETRY, K.PROVIDER_ERROR
    ),
    "unknown provider error": _error_row(
        # A code the CLI will invent next year degrades to service, never to success.
        "API Error: the provider said something new",
        "quantum_flux_error",
        C.SERVICE,
        RETRY,
        K.PROVIDER_ERROR,
    ),
    "internal error (stream ended without result)": MappingRow(
        steps=((said("Let me look.", model=REAL), [FORWARD], [FORWARD]),),
        ending=StreamEnded(epoch=E1),
        record=rec(
            f"{T1}:error", 1, C.SERVICE, ERROR, TURN_NO_RESULT_TITLE, RETRY, K.INTERNAL_ERROR
        ),
        legacy_answer=RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {TURN_NO_RESULT_TITLE}",
            error_kind="no_result",
        ),
    ),
    # connection
    "query transport loss": MappingRow(
        steps=((said("Let me look.", model=REAL), [FORWARD], [FORWARD]),),
        ending=TransportLost(epoch=E1),
        record=rec(
            f"{T1}:error",
            1,
            C.CONNECTION,
            ERROR,
            "The connection to Claude was lost.",
            NEW,
            K.TRANSPORT_LOST,
        ),
        legacy_answer=RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: The connection to Claude was lost.",
            error_kind="transport_lost",
        ),
    ),
    "worker shutdown": MappingRow(
        steps=(
            (said("Let me look.", model=REAL), [FORWARD], [FORWARD]),
            (WorkerShuttingDown(epoch=E1), [], []),
        ),
        ending=StreamEnded(epoch=E1),
        record=rec(
            f"{T1}:error",
            1,
            C.CONNECTION,
            ERROR,
            "The Claude worker is shutting down.",
            NEW,
            K.WORKER_SHUTDOWN,
        ),
        legacy_answer=RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: The Claude worker is shutting down.",
            error_kind="worker_shutdown",
        ),
    ),
}


@pytest.mark.parametrize("condition", list(MAPPING))
def test_mapping_row_capable_turn_fails_with_a_typed_record(
    capable: SessionCore, condition: str
) -> None:
    row = MAPPING[condition]
    # The prompt goes out; nothing to show yet.
    assert capable.handle(PromptSent(turn_id=T1)) == []
    # Claude's messages: error prose is held back, it becomes the record's title (row 20).
    for event, capable_says, _legacy_says in row.steps:
        assert capable.handle(event) == capable_says
    # The turn ends: one answer, end_turn, with the record on the PromptResponse.
    assert capable.handle(row.ending) == failed_with(row.record)
    assert (capable.turn_state, capable.turn.outcome) == (TurnState.IDLE, TurnOutcome.FAILED)
    assert capable.active() == [row.record]


@pytest.mark.parametrize("condition", list(MAPPING))
def test_mapping_row_legacy_turn_is_rejected_without_a_record(
    legacy: SessionCore, condition: str
) -> None:
    row = MAPPING[condition]
    assert legacy.handle(PromptSent(turn_id=T1)) == []
    # Claude's prose stays in the transcript (except the login prompt).
    for event, _capable_says, legacy_says in row.steps:
        assert legacy.handle(event) == legacy_says
    # The prompt is rejected with a JSON-RPC error; no record exists anywhere.
    assert legacy.handle(row.ending) == [row.legacy_answer]
    assert (legacy.turn_state, legacy.turn.outcome) == (TurnState.IDLE, TurnOutcome.FAILED)
    assert legacy.active() == []


def test_mapping_row_retry_without_http_response_is_a_connection_warning(
    capable: SessionCore, legacy: SessionCore
) -> None:
    warning = rec(
        f"{T1}:error",
        1,
        C.CONNECTION,
        WARNING,
        "Reconnecting to Claude, attempt 1 of 10.",
        NONE,
        K.TRANSPORT_LOST,
    )
    # Capable: a warning under the live turn's id, sent as a session_info_update.
    assert capable.handle(PromptSent(turn_id=T1)) == []
    assert capable.handle(retried(1, status=None, error="unknown")) == published(warning)
    confirm(capable, warning)
    # A warning does not end the turn.
    assert capable.turn_state is TurnState.RETRYING
    assert capable.active() == [warning]
    # Legacy: nothing at all.
    assert legacy.handle(PromptSent(turn_id=T1)) == []
    assert legacy.handle(retried(1, status=None, error="unknown")) == []
    assert legacy.turn_state is TurnState.RUNNING


def test_mapping_row_model_fallback_is_an_unknown_warning(
    capable: SessionCore, legacy: SessionCore
) -> None:
    notice = rec(notice_id(1), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    # Capable: a notice record, whether or not a turn is live (row 16).
    assert capable.handle(PromptSent(turn_id=T1)) == []
    assert capable.handle(fell_back()) == published(notice)
    confirm(capable, notice)
    # The turn goes on and succeeds; the notice stays.
    assert capable.handle(said("Here you go.")) == [FORWARD]
    assert capable.handle(result(text="Here you go.")) == [END_TURN]
    assert capable.active() == [notice]
    # Legacy: the notice is agent text.
    assert legacy.handle(PromptSent(turn_id=T1)) == []
    assert legacy.handle(fell_back()) == [
        SendAgentText(text=f"**Model fallback:** {FALLBACK_TEXT}")
    ]
    assert legacy.turn_state is TurnState.RUNNING


# --- row 3: the wire record on the PromptResponse -------------------------------------------------


def test_turn_failure_projects_to_exactly_the_wire_keys(capable: SessionCore) -> None:
    # An overloaded turn ...
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    [settle] = capable.handle(result(is_error=True, text=OVERLOADED_TEXT))
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


# --- row 4: auth for capable clients --------------------------------------------------------------


def test_auth_failure_with_no_live_turn_is_session_scoped(capable: SessionCore) -> None:
    auth = rec(session_error_id(1), 1, C.ACCESS, ERROR, LOGIN_TEXT, LOGIN, K.AUTH_REQUIRED)
    # A login result arrives while no prompt waits: it goes out as a session_info_update.
    assert capable.handle(result(is_error=True, text=LOGIN_TEXT)) == published(auth)
    assert capable.active() == []
    confirm(capable, auth)
    assert capable.active() == [auth]
    assert capable.turn_state is TurnState.IDLE


def test_auth_stays_active_until_a_successful_auth_status(capable: SessionCore) -> None:
    auth = rec(f"{T1}:error", 1, C.ACCESS, ERROR, LOGIN_TEXT, LOGIN, K.AUTH_REQUIRED)
    # T1 fails: sign in.
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(said(LOGIN_TEXT, model=SYN)) == []
    assert capable.handle(result(is_error=True, text=LOGIN_TEXT)) == failed_with(auth)
    # The next attempt's result is not a fix for auth (it is not a next_attempt failure).
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(said("No response requested.", model=SYN)) == [FORWARD]
    assert capable.handle(result(text="No response requested.")) == [END_TURN]
    assert capable.active() == [auth]
    # Authentication in progress, or failed: still active.
    assert capable.handle(AuthStatusReported(epoch=E1, is_authenticating=True)) == []
    assert (
        capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False, error="cancelled"))
        == []
    )
    assert capable.active() == [auth]
    # Success: it recovers, and nothing is published.
    assert capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False)) == []
    assert capable.active() == []
    assert capable.ledger.history() == [auth]


def test_auth_recovers_at_a_real_model_answer(capable: SessionCore) -> None:
    auth = rec(f"{T1}:error", 1, C.ACCESS, ERROR, LOGIN_TEXT, LOGIN, K.AUTH_REQUIRED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said(LOGIN_TEXT, model=SYN))
    assert capable.handle(result(is_error=True, text=LOGIN_TEXT)) == failed_with(auth)
    # The user signed in elsewhere; the next turn gets a real answer.
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(said("Hello!")) == [FORWARD]
    assert capable.handle(result(text="Hello!")) == [END_TURN]
    assert capable.active() == []


def test_synthetic_login_fails_the_turn_even_with_a_clean_result(capable: SessionCore) -> None:
    auth = rec(f"{T1}:error", 1, C.ACCESS, ERROR, LOGIN_TEXT, LOGIN, K.AUTH_REQUIRED)
    # The CLI answered locally with its login message and reported no error.
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(said(LOGIN_TEXT, model=SYN)) == []
    assert capable.handle(result(text=LOGIN_TEXT)) == failed_with(auth)
    assert capable.active() == [auth]


def test_login_after_a_real_answer_revises_the_turns_retry_warning(capable: SessionCore) -> None:
    # Regression: the real answer used to count as success before the login prompt was seen,
    # retiring the turn's retry warning and then crashing on revising it (row 18: the prompt
    # was never answered).
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
    assert capable.handle(retried(1)) == published(warning)
    confirm(capable, warning)
    assert capable.handle(said("Sure, one moment.")) == [FORWARD]
    assert capable.handle(said(LOGIN_TEXT, model=SYN)) == []
    auth = rec(f"{T1}:error", 2, C.ACCESS, ERROR, LOGIN_TEXT, LOGIN, K.AUTH_REQUIRED)
    assert capable.handle(result(text=LOGIN_TEXT)) == failed_with(auth)
    assert (capable.turn_state, capable.turn.outcome, capable.active()) == (
        TurnState.IDLE,
        TurnOutcome.FAILED,
        [auth],
    )


def test_login_result_text_alone_is_an_auth_failure(capable: SessionCore) -> None:
    # No assistant message at all: the result's text asks to run /login.
    text = "OAuth token has expired. Please run /login"
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(result(is_error=True, text=text)) == failed_with(
        rec(f"{T1}:error", 1, C.ACCESS, ERROR, text, LOGIN, K.AUTH_REQUIRED)
    )


# --- row 5 and 19: legacy codes -------------------------------------------------------------------


def test_legacy_error_result_rejects_with_internal_error_and_error_kind(
    legacy: SessionCore,
) -> None:
    legacy.handle(PromptSent(turn_id=T1))
    # The usage-limit prose stays in the transcript for a legacy editor.
    assert legacy.handle(said(SPEND_LIMIT, model=SYN, error="rate_limit")) == [FORWARD]
    assert legacy.handle(result(is_error=True, text=SPEND_LIMIT)) == [
        RejectPrompt(
            blame=Blame.INTERNAL, message=f"Internal error: {SPEND_LIMIT}", error_kind="rate_limit"
        )
    ]
    # Nothing typed, nothing active, and the next prompt is accepted.
    assert legacy.active() == []
    assert legacy.handle(PromptSent(turn_id=T2)) == []


def test_legacy_error_result_without_assistant_error_names_the_kind(legacy: SessionCore) -> None:
    legacy.handle(PromptSent(turn_id=T1))
    assert legacy.handle(
        result(subtype="error_during_execution", is_error=True, errors=("boom",))
    ) == [
        RejectPrompt(
            blame=Blame.INTERNAL, message="Internal error: boom", error_kind="provider_error"
        )
    ]


def test_legacy_auth_rejects_with_authentication_required(legacy: SessionCore) -> None:
    legacy.handle(PromptSent(turn_id=T1))
    assert legacy.handle(said(LOGIN_TEXT, model=SYN)) == []
    assert legacy.handle(result(is_error=True, text=LOGIN_TEXT)) == [AUTH_REJECTION]
    # An auth check later publishes nothing either.
    assert legacy.handle(AuthStatusReported(epoch=E1, is_authenticating=False)) == []


def test_legacy_failure_with_no_live_turn_is_only_logged(legacy: SessionCore) -> None:
    # Nobody to answer and no record to send: the shell logs it.
    assert legacy.handle(TransportLost(epoch=E1)) == [
        LogNotice(message="transport_lost with no live turn: The connection to Claude was lost.")
    ]
    assert legacy.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        LogNotice(message=f"provider_error with no live turn: {OVERLOADED_TEXT}")
    ]
    assert legacy.active() == []


def test_legacy_never_publishes_retry_history_or_records(legacy: SessionCore) -> None:
    assert legacy.handle(PromptSent(turn_id=T1)) == []
    assert legacy.handle(retried(1)) == []
    assert legacy.handle(retried(2, status=None)) == []
    assert legacy.handle(HistoryFailureFound(id="u0:error", title=SPEND_LIMIT, active=True)) == []
    assert legacy.handle(said("Done.")) == [FORWARD]
    assert legacy.handle(result(text="Done.")) == [END_TURN]
    assert legacy.active() == []


# --- row 9: titles --------------------------------------------------------------------------------


def test_title_is_claude_text_with_credentials_masked(capable: SessionCore) -> None:
    leaked = "API Error: 401 key sk-ant-api03-AAAA rejected for /home/alice/.claude"
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(said(leaked, model=SYN, error="server_error")) == []
    assert capable.handle(result(is_error=True, text=leaked)) == failed_with(
        rec(
            f"{T1}:error",
            1,
            C.SERVICE,
            ERROR,
            "API Error: 401 key sk-ant-*** rejected for ~/\u2026",
            RETRY,
            K.PROVIDER_ERROR,
        )
    )


def test_title_is_never_a_bare_subtype_code(capable: SessionCore) -> None:
    # A turn limit with no words from Claude gets the adapter's sentence, not "error_max_turns".
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(result(subtype="error_max_turns", is_error=True)) == failed_with(
        rec(
            f"{T1}:error",
            1,
            C.LIMIT,
            ERROR,
            "This Claude turn reached its configured limit.",
            NEW,
            K.CONTEXT_EXHAUSTED,
        )
    )
    # Same for an execution error with nothing said at all.
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(result(subtype="error_during_execution", is_error=True)) == failed_with(
        rec(
            f"{T2}:error",
            1,
            C.SERVICE,
            ERROR,
            "The model provider reported an error.",
            RETRY,
            K.PROVIDER_ERROR,
        )
    )


def test_assistant_error_text_wins_over_result_text(capable: SessionCore) -> None:
    # Claude's own message is first in the spec's order; the result text comes second.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text="API Error")) == failed_with(
        rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    )


# --- row 10: details ------------------------------------------------------------------------------


def test_long_claude_text_splits_into_title_and_details(capable: SessionCore) -> None:
    explanation = "Your request was rejected because " + "it was long " * 30
    text = f"API Error: 400 invalid request.\n\n{explanation.strip()}"
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said(text, model=SYN, error="invalid_request"))
    assert capable.handle(result(is_error=True, text=text)) == failed_with(
        rec(
            f"{T1}:error",
            1,
            C.REQUEST,
            ERROR,
            "API Error: 400 invalid request.",
            NONE,
            K.BAD_REQUEST,
            details=explanation.strip(),
        )
    )


def test_fallback_explanation_goes_to_details(capable: SessionCore) -> None:
    assert capable.handle(fell_back("The request touched a restricted topic.")) == published(
        rec(
            notice_id(1),
            1,
            C.UNKNOWN,
            WARNING,
            FALLBACK_TEXT,
            NONE,
            K.ADVISORY,
            details="The request touched a restricted topic.",
        )
    )


# --- row 11: retry progress ---------------------------------------------------------------------


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
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == failed_with(terminal)
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
    assert capable.handle(retried(1)) == published(first)
    confirm(capable, first)
    # Revision 2 could not be sent: logged, and nothing moves (row 21).
    assert capable.handle(retried(2)) == published(lost)
    assert capable.handle(DeliveryFailed(id=lost.id, revision=2)) == [
        LogNotice(message="failed to publish turn-1:error revision 2")
    ]
    assert capable.active() == [first]
    # Attempt 3 takes revision 2, which the client has never seen.
    assert capable.handle(retried(3)) == published(third)
    confirm(capable, third)
    # The terminal error follows the last delivered revision.
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == failed_with(
        rec(f"{T1}:error", 3, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
    )


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
    assert capable.handle(retried(1)) == published(lost)
    capable.handle(DeliveryFailed(id=lost.id, revision=1))
    assert capable.active() == []
    # The client never saw revision 1, so the terminal error is revision 1.
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == failed_with(
        rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    )


def test_retry_of_a_401_publishes_nothing(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(retried(1, status=401, error="authentication_failed")) == []
    assert capable.handle(retried(2, status=403, error="oauth_org_not_allowed")) == []
    assert (capable.turn_state, capable.active()) == (TurnState.RUNNING, [])


def test_retry_title_is_exactly_row_11_even_with_no_response_details(
    capable: SessionCore,
) -> None:
    # Claude says how long it waited; DECISIONS row 11 fixes the title's wording regardless.
    capable.handle(PromptSent(turn_id=T1))
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
    assert capable.handle(retried(1, status=429, error="rate_limit")) == published(warning)
    confirm(capable, warning)
    # The retry worked: the answer settles the turn, and the warning stops being active
    # without anything published (the entry stays on the client as history).
    assert capable.handle(said("Done.")) == [FORWARD]
    assert capable.handle(result(text="Done.")) == [END_TURN]
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


# --- rows 12-13: ids ------------------------------------------------------------------------------


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
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == published(overloaded)
    confirm(capable, overloaded)
    assert capable.active() == [tl, overloaded]
    # A new runtime: the transport loss recovers (nothing published), the other stays, and
    # the counter starts again under the new epoch.
    assert capable.handle(RuntimeStarted(epoch=E2)) == []
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
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == published(
        rec(session_error_id(2), 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
    )


def test_each_turn_fails_under_its_own_id(capable: SessionCore) -> None:
    # Identical failures in two turns are two occurrences: two ids, both revision 1.
    for turn in (T1, T2):
        capable.handle(PromptSent(turn_id=turn))
        capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
        assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == failed_with(
            rec(f"{turn}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
        )
    # T2's result was the attempt boundary for T1.
    assert capable.active() == [
        rec(f"{T2}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    ]


# --- row 15: recovery ----------------------------------------------------------------------------


def test_turn_failure_recovers_at_the_next_result_not_at_the_next_prompt(
    capable: SessionCore,
) -> None:
    failure = rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == failed_with(failure)
    # Sending the next prompt proves nothing yet.
    assert capable.handle(PromptSent(turn_id=T2)) == []
    assert capable.active() == [failure]
    # Its result is the confirmed attempt boundary: T1 stops being active, silently.
    assert capable.handle(said("Fine now.")) == [FORWARD]
    assert capable.handle(result(text="Fine now.")) == [END_TURN]
    assert (capable.turn_state, capable.turn.outcome, capable.active()) == (
        TurnState.IDLE,
        TurnOutcome.SUCCEEDED,
        [],
    )
    assert capable.ledger.history() == [failure]


@pytest.mark.parametrize(
    ("events", "answer"),
    [
        # An error result of the next turn is a boundary too (its own failure is active).
        (
            [said("API Error: 500", model=SYN, error="server_error"), result(is_error=True)],
            None,
        ),
        # So is a refusal ...
        (
            [said("No.", stop_reason="refusal"), result(stop_reason="refusal")],
            [SettlePrompt(stop_reason=StopReason.REFUSAL)],
        ),
        # ... and a cancelled turn's result.
        (
            [CancelRequested(), result(subtype="error_during_execution", is_error=True)],
            [SettlePrompt(stop_reason=StopReason.CANCELLED)],
        ),
        # ... and a synthetic local answer (it is a result of a user turn).
        (
            [said("No response requested.", model=SYN), result()],
            [END_TURN],
        ),
    ],
    ids=["error", "refusal", "cancelled", "synthetic"],
)
def test_any_later_result_is_the_attempt_boundary(
    capable: SessionCore, events: list[Event], answer: list[Effect] | None
) -> None:
    failure = rec(f"{T1}:error", 1, C.REQUEST, ERROR, "Bad request.", NONE, K.BAD_REQUEST)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said("Bad request.", model=SYN, error="invalid_request"))
    assert capable.handle(result(is_error=True, text="Bad request.")) == failed_with(failure)
    # The next turn ends, however it ends.
    capable.handle(PromptSent(turn_id=T2))
    for event in events[:-1]:
        capable.handle(event)
    effects = capable.handle(events[-1])
    assert not any(isinstance(e, PublishRecord) for e in effects)
    if answer is None:
        t2 = rec(f"{T2}:error", 1, C.SERVICE, ERROR, "API Error: 500", RETRY, K.PROVIDER_ERROR)
        assert effects == failed_with(t2)
        assert capable.active() == [t2]
    else:
        assert effects == answer
        assert capable.active() == []


def test_autonomous_result_is_not_an_attempt_boundary(capable: SessionCore) -> None:
    failure = rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == failed_with(failure)
    # A background task's result touches no user turn and recovers nothing.
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(result(autonomous=True, is_error=True)) == []
    assert (capable.turn_state, capable.active()) == (TurnState.RUNNING, [failure])


def test_quota_stays_active_until_a_real_answer(capable: SessionCore) -> None:
    quota = rec(f"{T1}:error", 1, C.LIMIT, ERROR, SPEND_LIMIT, NONE, K.QUOTA_EXHAUSTED)
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(said(SPEND_LIMIT, model=SYN, error="rate_limit")) == []
    assert capable.handle(result(is_error=True, text=SPEND_LIMIT)) == failed_with(quota)
    # A <synthetic> local answer does not count, although the turn succeeds.
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(said("No response requested.", model=SYN)) == [FORWARD]
    assert capable.handle(result(text="No response requested.")) == [END_TURN]
    assert capable.active() == [quota]
    # A real answer that ends in an error does not count either; that failure is new.
    capable.handle(PromptSent(turn_id=T3))
    capable.handle(said("Partial answer"))
    t3 = rec(f"{T3}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == failed_with(t3)
    assert capable.active() == [quota, t3]
    # A real, successful answer: quota recovers (and so does T3, an earlier turn).
    capable.handle(PromptSent(turn_id="turn-4"))
    assert capable.handle(said("Here it is.")) == [FORWARD]
    assert capable.handle(result(text="Here it is.")) == [END_TURN]
    assert capable.active() == []


def test_transport_loss_stays_active_until_the_runtime_is_replaced(capable: SessionCore) -> None:
    lost = rec(
        f"{T1}:error",
        1,
        C.CONNECTION,
        ERROR,
        "The connection to Claude was lost.",
        NEW,
        K.TRANSPORT_LOST,
    )
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(TransportLost(epoch=E1)) == failed_with(lost)
    # Neither an auth success nor a later turn's real answer proves the old runtime is back.
    # (The recovery policy is what is under test here, not the plausibility of the events.)
    assert capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False)) == []
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(said("Hello."))
    assert capable.handle(result(text="Hello.")) == [END_TURN]
    assert capable.active() == [lost]
    # Only a replacement runtime does; nothing is published.
    assert capable.handle(RuntimeStarted(epoch=E2)) == []
    assert capable.active() == []


def test_worker_shutdown_stays_active_until_the_runtime_is_replaced(capable: SessionCore) -> None:
    shutdown = rec(
        session_error_id(1),
        1,
        C.CONNECTION,
        ERROR,
        "The Claude worker is shutting down.",
        NEW,
        K.WORKER_SHUTDOWN,
    )
    # Idle: the worker announces its shutdown, then its stream ends.
    assert capable.handle(WorkerShuttingDown(epoch=E1)) == []
    assert capable.handle(StreamEnded(epoch=E1)) == published(shutdown)
    confirm(capable, shutdown)
    assert capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False)) == []
    assert capable.active() == [shutdown]
    assert capable.handle(RuntimeStarted(epoch=E2)) == []
    assert capable.active() == []
    # The new runtime's clean end while idle is no failure: the shutdown flag went with E1.
    assert capable.handle(StreamEnded(epoch=E2)) == []


def test_notices_never_recover(capable: SessionCore) -> None:
    notice = rec(notice_id(1), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    assert capable.handle(fell_back()) == published(notice)
    confirm(capable, notice)
    # Real answers, auth success and a new runtime: the notice stays active.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said("Hello."))
    assert capable.handle(result(text="Hello.")) == [END_TURN]
    capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False))
    capable.handle(RuntimeStarted(epoch=E2))
    assert capable.active() == [notice]


def test_publishing_a_new_incident_never_recovers_an_old_one(capable: SessionCore) -> None:
    first = rec(session_error_id(1), 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
    second = rec(
        session_error_id(2), 1, C.LIMIT, ERROR, "Reached maximum budget", NEW, K.BUDGET_EXHAUSTED
    )
    notice = rec(notice_id(3), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    turn = rec(f"{T1}:error", 1, C.REQUEST, ERROR, "Bad request.", NONE, K.BAD_REQUEST)
    # Two session-scoped failures, a notice and a turn failure pile up; none clears another.
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == published(first)
    confirm(capable, first)
    assert capable.handle(
        result(subtype="error_max_budget_usd", is_error=True, errors=("Reached maximum budget",))
    ) == published(second)
    confirm(capable, second)
    assert capable.handle(fell_back()) == published(notice)
    confirm(capable, notice)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said("Bad request.", model=SYN, error="invalid_request"))
    assert capable.handle(result(is_error=True, text="Bad request.")) == failed_with(turn)
    assert capable.active() == [first, second, notice, turn]


def test_session_scoped_turn_kinds_wait_for_a_real_answer(capable: SessionCore) -> None:
    # With no turn whose successor could confirm it, an overload waits for a real answer.
    idle = rec(session_error_id(1), 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == published(idle)
    confirm(capable, idle)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said("No response requested.", model=SYN))
    assert capable.handle(result()) == [END_TURN]
    assert capable.active() == [idle]
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(said("Hello."))
    assert capable.handle(result()) == [END_TURN]
    assert capable.active() == []


# --- row 16: model fallback ----------------------------------------------------------------------


def test_model_fallback_with_no_live_turn_is_still_a_notice(capable: SessionCore) -> None:
    notice = rec(notice_id(1), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    assert capable.handle(fell_back()) == published(notice)
    confirm(capable, notice)
    assert (capable.turn_state, capable.active()) == (TurnState.IDLE, [notice])


# --- row 17: refusal and cancellation ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["capable", "legacy"])
def test_refusal_settles_refusal_with_its_explanation_as_text(mode: str) -> None:
    core = SessionCore(session_id=SID, epoch=E1, capable=mode == "capable")
    try:
        core.handle(PromptSent(turn_id=T1))
        # The refusing message is ordinary prose; its explanation is kept for later.
        refusing = said(
            "I can't help with that.",
            stop_reason="refusal",
            refusal_explanation="This request may violate our usage policy.",
        )
        assert core.handle(refusing) == [FORWARD]
        # The result says refusal (even flagged as an error): text, then stopReason refusal.
        assert core.handle(result(is_error=True, stop_reason="refusal")) == [
            SendAgentText(text="This request may violate our usage policy."),
            SettlePrompt(stop_reason=StopReason.REFUSAL),
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
    assert capable.handle(result(stop_reason="refusal")) == [
        SettlePrompt(stop_reason=StopReason.REFUSAL)
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
        assert core.handle(said("Working...")) == [FORWARD]
        # The client cancels; the core tells the shell to interrupt Claude, once.
        assert core.handle(CancelRequested()) == [InterruptClaude()]
        assert core.turn_state is TurnState.CANCELLING
        assert core.handle(CancelRequested()) == []
        # Whatever ends the turn now, the answer is cancelled and nothing is typed.
        assert core.handle(ending) == [SettlePrompt(stop_reason=StopReason.CANCELLED)]
        assert (core.turn_state, core.turn.outcome, core.active()) == (
            TurnState.IDLE,
            TurnOutcome.CANCELLED,
            [],
        )
    finally:
        core.close()


def test_cancel_with_no_live_turn_is_forgotten(capable: SessionCore) -> None:
    assert capable.handle(CancelRequested()) == []
    # The next turn is not cancelled by it.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said("Hi."))
    assert capable.handle(result()) == [END_TURN]


# --- row 18: never silent -------------------------------------------------------------------------


def test_every_prompt_gets_exactly_one_answer(capable: SessionCore) -> None:
    failure = rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == failed_with(failure)
    # A duplicate error result after the answer cannot answer again: it is session-scoped,
    # and judged on its own (the finished turn's notes do not carry over): its text, and an
    # unknown provider error since no assistant error came with it.
    late = rec(session_error_id(1), 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == published(late)
    # A duplicate success result answers nothing.
    assert capable.handle(result()) == []
    # A second prompt while one is live is the shell's bug: loud, and nothing changes.
    capable.handle(PromptSent(turn_id=T2))
    with pytest.raises(InvalidTransition):
        capable.handle(PromptSent(turn_id=T3))
    assert (capable.turn_state, capable.turn.turn_id) == (TurnState.PROMPT_SENT, T2)


def test_claude_going_idle_without_a_result_fails_the_turn(
    capable: SessionCore, legacy: SessionCore
) -> None:
    internal = rec(
        f"{T1}:error", 1, C.SERVICE, ERROR, TURN_NO_RESULT_TITLE, RETRY, K.INTERNAL_ERROR
    )
    for core in (capable, legacy):
        core.handle(PromptSent(turn_id=T1))
        # An idle report before Claude said anything for this turn is the previous turn's.
        assert core.handle(TurnWentIdle(epoch=E1)) == []
        assert core.turn_state is TurnState.PROMPT_SENT
        core.handle(said("Working."))
    # Once this turn is running, idle without a result means the result will never come.
    assert capable.handle(TurnWentIdle(epoch=E1)) == failed_with(internal)
    assert legacy.handle(TurnWentIdle(epoch=E1)) == [
        RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {TURN_NO_RESULT_TITLE}",
            error_kind="no_result",
        )
    ]
    # After the answer, idle is routine.
    assert capable.handle(TurnWentIdle(epoch=E1)) == []


def test_silent_claude_gets_a_revised_connection_warning(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    # The watchdog reports silence: a warning under the turn id, revised as the wait grows.
    first = rec(
        f"{T1}:error",
        1,
        C.CONNECTION,
        WARNING,
        "Claude has not responded for 30 seconds. Still waiting; you can cancel this prompt.",
        NONE,
        K.TRANSPORT_LOST,
    )
    assert capable.handle(ClaudeSilent(epoch=E1, waited_seconds=30)) == published(first)
    confirm(capable, first)
    second = rec(
        f"{T1}:error",
        2,
        C.CONNECTION,
        WARNING,
        "Claude has not responded for 2 minutes. Still waiting; you can cancel this prompt.",
        NONE,
        K.TRANSPORT_LOST,
    )
    assert capable.handle(ClaudeSilent(epoch=E1, waited_seconds=120)) == published(second)
    confirm(capable, second)
    assert (capable.turn_state, capable.active()) == (TurnState.RETRYING, [second])
    # Claude comes back and answers: the warning recovers silently.
    assert capable.handle(said("Sorry, here.")) == [FORWARD]
    assert capable.handle(result()) == [END_TURN]
    assert capable.active() == []
    # After a cancel, or with no live turn, silence publishes nothing.
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(CancelRequested())
    assert capable.handle(ClaudeSilent(epoch=E1, waited_seconds=30)) == []
    assert capable.handle(result()) == [SettlePrompt(stop_reason=StopReason.CANCELLED)]
    assert capable.handle(ClaudeSilent(epoch=E1, waited_seconds=30)) == []


def test_idle_runtime_ending_cleanly_breaks_no_promise(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(said("Hi."))
    assert capable.handle(result()) == [END_TURN]
    # The stream ends with no prompt waiting: nothing to report.
    assert capable.handle(StreamEnded(epoch=E1)) == []
    assert (capable.turn_state, capable.turn.outcome, capable.active(), capable.runtime_lost) == (
        TurnState.IDLE,
        TurnOutcome.SUCCEEDED,
        [],
        True,
    )


def test_non_failure_endings(capable: SessionCore) -> None:
    # max_tokens is a stop reason, not a failure, even flagged as an error.
    capable.handle(PromptSent(turn_id=T1))
    assert capable.handle(result(is_error=True, stop_reason="max_tokens")) == [
        SettlePrompt(stop_reason=StopReason.MAX_TOKENS)
    ]
    # A limit subtype without is_error is max_turn_requests.
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(result(subtype="error_max_turns")) == [
        SettlePrompt(stop_reason=StopReason.MAX_TURN_REQUESTS)
    ]
    # An execution "error" without is_error is a normal end.
    capable.handle(PromptSent(turn_id=T3))
    assert capable.handle(result(subtype="error_during_execution")) == [END_TURN]
    assert capable.active() == []


# --- row 20: prose suppression -------------------------------------------------------------------


def test_error_prose_is_forwarded_only_to_legacy_clients(
    capable: SessionCore, legacy: SessionCore
) -> None:
    for core in (capable, legacy):
        core.handle(PromptSent(turn_id=T1))
    message = said(SPEND_LIMIT, model=SYN, error="rate_limit")
    assert capable.handle(message) == []
    assert legacy.handle(message) == [FORWARD]


def test_usage_limit_words_from_a_real_model_are_prose(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    # Not <synthetic>: the model is quoting, not the CLI reporting.
    assert capable.handle(said(SPEND_LIMIT)) == [FORWARD]
    assert capable.handle(result(text=SPEND_LIMIT)) == [END_TURN]
    assert capable.active() == []


def test_subagent_errors_are_prose(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    # A subagent's error message is its parent's business, not the turn's failure.
    assert capable.handle(said(OVERLOADED_TEXT, error="overloaded", top_level=False)) == [FORWARD]
    assert capable.handle(said("Done anyway.")) == [FORWARD]
    assert capable.handle(result()) == [END_TURN]


# --- row 21: delivery and stale runtimes ----------------------------------------------------------


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
        assert capable.handle(event) == [
            LogNotice(message=f"dropped {type(event).__name__} from a replaced runtime")
        ]
    assert (capable.turn_state, capable.active()) == (TurnState.PROMPT_SENT, [])
    # The new runtime answers the prompt.
    assert capable.handle(said("Hi.", epoch=E2)) == [FORWARD]
    assert capable.handle(result(epoch=E2)) == [END_TURN]


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
    capable.handle(said("No response requested.", model=SYN))
    assert capable.handle(result()) == [END_TURN]
    assert capable.active() == [restored]
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(said("Hello again."))
    assert capable.handle(result()) == [END_TURN]
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
