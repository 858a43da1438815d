"""The spec's mapping table ("Claude SDK conditions map to these groups") as data: for each
Claude condition, the events of a failing turn and what a capable and a legacy client must
see. `tests/core/session/test_mapping_table.py` walks it. No tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fsm import (
    TURN_NO_RESULT_TITLE,
    Action,
    Blame,
    Category,
    Effect,
    Event,
    FailureKind,
    FailureRecord,
    RejectPrompt,
    SendAgentText,
    StreamEnded,
    TransportLost,
    WorkerShuttingDown,
)
from fsm.vocabulary import policy_for
from tests.support.session_narrative import (
    AUTH_REJECTION,
    E1,
    ERROR,
    FORWARD,
    FORWARD_MASKED,
    LOGIN,
    LOGIN_TEXT,
    LOGIN_TITLE,
    NEW,
    NONE,
    OVERLOADED_TEXT,
    REAL,
    RETRY,
    SPEND_LIMIT,
    SYN,
    T1,
    C,
    K,
    rec,
    result,
    said,
)

# --- the spec's mapping table, row by row -----------------------------------------------------


@dataclass(frozen=True)
class MappingRow:
    """One Claude condition: the turn's events, and what each mode must see."""

    steps: tuple[tuple[Event, list[Effect], list[Effect]], ...]  # event, capable, legacy
    ending: Event
    record: FailureRecord  # the turn-terminal record (capable)
    legacy_answer: RejectPrompt
    # What a legacy client is told before the answer: Claude's words it has not seen yet
    # (docs/decisions.md#legacy-error-text-once).
    legacy_words: tuple[Effect, ...] = ()
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
                [FORWARD_MASKED] if legacy_says is None else legacy_says,
            ),
        ),
        ending=result(is_error=True, text=text),
        record=rec(f"{T1}:error", 1, category, ERROR, text, actions, kind),
        # Claude's words were forwarded as they came: the error names only the kind
        # (docs/decisions.md#legacy-error-text-once).
        legacy_answer=legacy_answer
        or RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {policy_for(kind).fallback_title}",
            error_kind=error,
            turn_id=T1,
        ),
    )


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
        record=rec(f"{T1}:error", 1, C.ACCESS, ERROR, LOGIN_TITLE, LOGIN, K.AUTH_REQUIRED),
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
        # The result's words reached no one yet: agent text, on a line of their own.
        legacy_words=(SendAgentText(text="\nReached maximum budget ($5)"),),
        legacy_answer=RejectPrompt(
            blame=Blame.INTERNAL,
            turn_id=T1,
            message="Internal error: This Claude session reached its configured budget.",
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
        legacy_words=(SendAgentText(text="\nReached maximum number of turns (8)"),),
        legacy_answer=RejectPrompt(
            blame=Blame.INTERNAL,
            turn_id=T1,
            message="Internal error: This Claude turn reached its configured limit.",
            error_kind="max_turns",
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
            turn_id=T1,
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
            turn_id=T1,
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
            turn_id=T1,
            message="Internal error: The Claude worker is shutting down.",
            error_kind="worker_shutdown",
        ),
    ),
}
