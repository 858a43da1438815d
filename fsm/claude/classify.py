"""Pure functions from Claude's signals to failure kinds and adapter-authored titles.

Theory of operation: Claude reports trouble in several shapes (an assistant message's `error`
string, a `<synthetic>` message whose text Claude Code composed locally, a result subtype with
`is_error`, an `api_retry` progress frame, a model-fallback notice); which messages Claude Code
composed is `synthetic_messages.py`'s. Each function here takes the
plain values the shell read off one message and answers with a `FailureKind` (or `None` where
the signal is not a failure). Nothing here keeps state: the per-turn memory of which signals
were seen lives on the turn machine's model (`turn.py`).

Invariant: an error string we have never heard of degrades to `PROVIDER_ERROR` (category
`service`), never to success.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from fsm.claude.synthetic_messages import is_login_text
from fsm.vocabulary import FailureKind

__all__ = [
    "AUTONOMOUS_ORIGINS",
    "error_kind_for_result_subtype",
    "is_autonomous_origin",
    "kind_for_assistant_error",
    "kind_for_result_subtype",
    "kind_for_retry",
    "model_fallback_text",
    "recovers_a_usage_limit",
    "result_failure",
    "retry_title",
    "stall_title",
    "without_login_instruction",
]

# The CLI's own error enum (wider than the Python SDK's Literal, which passes any string).
_ERROR_KINDS: dict[str, FailureKind] = {
    "authentication_failed": FailureKind.AUTH_REQUIRED,
    "oauth_org_not_allowed": FailureKind.AUTH_REQUIRED,
    "billing_error": FailureKind.QUOTA_EXHAUSTED,
    "account_on_hold": FailureKind.QUOTA_EXHAUSTED,
    "verification_required": FailureKind.ACCESS_DENIED,
    "cloud_credential_error": FailureKind.ACCESS_DENIED,
    "rate_limit": FailureKind.RATE_LIMITED,
    "overloaded": FailureKind.OVERLOADED,
    "invalid_request": FailureKind.BAD_REQUEST,
    "model_not_found": FailureKind.BAD_REQUEST,
    "max_output_tokens": FailureKind.CONTEXT_EXHAUSTED,
    "server_error": FailureKind.PROVIDER_ERROR,
    "unknown": FailureKind.PROVIDER_ERROR,
}

_RESULT_SUBTYPES: dict[str, FailureKind] = {
    "error_max_budget_usd": FailureKind.BUDGET_EXHAUSTED,
    "error_max_turns": FailureKind.CONTEXT_EXHAUSTED,
    "error_max_structured_output_retries": FailureKind.PROVIDER_ERROR,
}


# The `origin.kind` of a result Claude Code produced on its own: a background task's
# notification, another agent (a peer, the coordinator), an observer. No user turn asked for
# it, so it ends no turn by itself and is no recovery boundary.
AUTONOMOUS_ORIGINS = frozenset(
    {"task-notification", "peer", "coordinator", "observer", "observer-activity"}
)


def is_autonomous_origin(kind: object) -> bool:
    """Whether a result whose `origin.kind` is `kind` (as read: any JSON value, or None when
    absent) is Claude Code's own work, not a user turn's."""
    return isinstance(kind, str) and kind in AUTONOMOUS_ORIGINS


def is_own_work(origin_kind: object, prompts: Collection[str], prompt: str | None) -> bool:
    """Whether a result is of work Claude Code began on its own (`is_autonomous_origin`) that
    did not take up the user's prompt `prompt` (None: no prompt is open): a cycle that took
    the prompt up (`user_message_uuids`, `prompts`) is that prompt's, as the reference's
    `answersPendingPrompt` (docs/reference-adapter.md#autonomous-turns)."""
    taken_up = prompt is not None and prompt in prompts
    return is_autonomous_origin(origin_kind) and not taken_up


def recovers_a_usage_limit(*, real_answer: bool, turn_failed: bool) -> bool:
    """A usage limit is over once a real model answered (docs/decisions.md#recovery), counted only
    in a turn that did not fail: the live turn applies it at its result, replay at the turn's
    `isApiErrorMessage` entry (`replay.py`'s header says what a transcript cannot show)."""
    return real_answer and not turn_failed


# One clause of Claude Code's text: up to a sentence end (a stop followed by space), a `;`, a
# ` · ` separator, or the end. A stop inside a word (`claude.ai`) ends nothing.
_CLAUSE = re.compile(r".*?(?:[.!?;](?=\s|$)|\s\u00b7(?=\s)|$)", re.S)
_MENTIONS_LOGIN = re.compile(r"/login\b", re.IGNORECASE)


def without_login_instruction(text: str) -> str:
    """Claude Code's sign-in text without the clauses that name `/login`, a step that exists
    only in its own terminal interface (docs/decisions.md#sign-in-that-leads-somewhere): "Not
    logged in \u00b7 Please run /login" keeps "Not logged in". Empty when nothing else is left
    (the record's fallback title then speaks)."""
    if not _MENTIONS_LOGIN.search(text):
        return text
    kept = [c for c in _CLAUSE.findall(text) if c and not _MENTIONS_LOGIN.search(c)]
    return "".join(kept).strip().rstrip("\u00b7;,: ").strip()


def kind_for_assistant_error(error: str | None, *, usage_limit: bool) -> FailureKind:
    """The kind of a turn whose last top-level assistant message carried `error`.

    A synthetic usage-limit text wins over the error code (the CLI labels it `rate_limit`).
    """
    if usage_limit:
        return FailureKind.QUOTA_EXHAUSTED
    if error is None:
        return FailureKind.PROVIDER_ERROR
    return _ERROR_KINDS.get(error, FailureKind.PROVIDER_ERROR)


def kind_for_result_subtype(subtype: str) -> FailureKind | None:
    """Kinds fixed by the result subtype alone; `None` means "use the assistant error"."""
    return _RESULT_SUBTYPES.get(subtype)


# A legacy client's `errorKind` for a result subtype whose failure kind is broader than what
# happened: the turn limit is no exhausted context, whatever record kind it shares with one.
_RESULT_ERROR_KINDS: dict[str, str] = {"error_max_turns": "max_turns"}


def error_kind_for_result_subtype(subtype: str) -> str | None:
    """The legacy `errorKind` a result subtype names by itself, if it names one."""
    return _RESULT_ERROR_KINDS.get(subtype)


def kind_for_retry(error_status: int | None, error: str | None) -> FailureKind | None:
    """The kind an `api_retry` frame warns about, or `None` when it publishes nothing.

    Without an HTTP response it is a connection problem; a 401 re-check is not worth a warning
    (docs/decisions.md#retry-progress).
    """
    if error_status is None:
        return FailureKind.TRANSPORT_LOST
    kind = kind_for_assistant_error(error, usage_limit=False)
    if error_status == 401 or kind is FailureKind.AUTH_REQUIRED:
        return None
    return kind


def retry_title(*, attempt: int, max_retries: int, has_status: bool) -> str:
    """The progress text of docs/decisions.md#retry-progress, exactly (the reference's no-response
    suffix is not part of it)."""
    if has_status:
        return f"Retrying Claude, attempt {attempt} of {max_retries}."
    return f"Reconnecting to Claude, attempt {attempt} of {max_retries}."


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    minutes = seconds // 60
    return f"{minutes} minutes"


def stall_title(waited_seconds: int) -> str:
    """Adapter-authored: Claude supplied no words while it was silent."""
    return (
        f"Claude has not responded for {_duration(waited_seconds)}. "
        "Still waiting; you can cancel this prompt."
    )


def model_fallback_text(
    *,
    original_model: str,
    fallback_model: str,
    refusal_category: str | None,
    explanation: str | None,
    direction: str | None,
    scope: str | None,
) -> str:
    """The model-fallback notice, composed as the reference does
    (docs/reference-adapter.md#model-switches).

    The explanation, when present, follows as a second paragraph; `records.shape_title` then
    moves it into `details` (docs/decisions.md#details).
    """
    category = f" ({refusal_category})" if refusal_category else ""
    if scope == "local":
        outcome = (
            f"Only that response came from {fallback_model}; the session stays on {original_model}."
        )
    elif direction != "revert":
        outcome = f"The session will continue on {fallback_model}."
    else:
        outcome = f"The session stays on {original_model}."
    summary = (
        f"{original_model} declined this request{category}; retried with {fallback_model}. "
        f"{outcome}"
    )
    if explanation:
        return f"{summary}\n\n{explanation}"
    return summary


# Claude Code's own diagnostics on an error result: internal lines it never shows its user
# (its own renderer drops them), so they never become a title either.
_DIAGNOSTIC_PREFIXES = ("[ede_diagnostic]", "[session_crash]")


def is_diagnostic(line: str) -> bool:
    """An internal diagnostic line of Claude Code's, never shown to a person."""
    return line.lstrip().startswith(_DIAGNOSTIC_PREFIXES)


def stopped_by_the_user(errors: tuple[str, ...], result: str | None) -> bool:
    """Whether an error result is the one Claude Code writes for a cycle the user's own answer
    stopped (a denial with `interrupt`: "No, keep planning"): its diagnostic says the last
    message was the user's and the model had stopped to use a tool."""
    lines = [*errors, result or ""]
    for line in lines:
        if line.startswith("[ede_diagnostic]"):
            words = line.split()
            if "result_type=user" in words and "stop_reason=tool_use" in words:
                return True
    return False


def result_failure(
    *,
    subtype: str,
    errors: tuple[str, ...],
    result: str | None,
    failure_error: str | None,
    failure_text: str | None,
    usage_limit: bool,
    login: bool,
) -> tuple[FailureKind, str]:
    """The kind and Claude's words for a result that fails the turn.

    Claude's own error message (`failure_text`, the turn's last top-level assistant error)
    names the failure for every subtype (docs/decisions.md#title-source-order); a subtype that fixes
    the kind (`error_max_turns`, `error_max_budget_usd`) keeps its kind.
    """
    fixed = kind_for_result_subtype(subtype)
    joined = ", ".join(e for e in errors if e and not is_diagnostic(e))
    if result is not None and is_diagnostic(result):
        result = None
    if fixed is not None:
        return fixed, failure_text or joined
    result_text = result or ""
    if login or is_login_text(result_text):
        return FailureKind.AUTH_REQUIRED, failure_text or result_text
    kind = kind_for_assistant_error(failure_error, usage_limit=usage_limit)
    if subtype == "success":
        return kind, failure_text or result_text
    return kind, failure_text or joined
