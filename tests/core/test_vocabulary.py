"""The vocabulary, classification, title shaping, redaction, negotiation and wire projection.

Each is a pure function or a table; the tests read them row by row against docs/decisions.md.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from fsm.claude import classify, synthetic_messages
from fsm.claude.classify import (
    kind_for_assistant_error,
    kind_for_result_subtype,
    kind_for_retry,
    model_fallback_text,
    retry_title,
)
from fsm.claude.synthetic_messages import (
    SYNTHETIC_MODEL,
    USAGE_LIMIT_PREFIXES,
    is_login_text,
    is_synthetic_login,
    is_synthetic_usage_limit,
)
from fsm.records import TITLE_LIMIT, FailureRecord, redact, shape_title
from fsm.vocabulary import (
    KIND_POLICIES,
    Action,
    Category,
    FailureKind,
    RecoveryPolicy,
    Severity,
    policy_for,
)
from fsm.wire.dialects import (
    SESSION_FAILURE_KEYS,
    SessionFailureDialect,
    merge_meta,
    session_failure_record,
)
from fsm.wire.negotiation import session_failure_negotiated

K = FailureKind
C = Category
A = Action
R = RecoveryPolicy

REAL_MODEL = "claude-sonnet-4-5"

# --- the wire vocabulary ----------------------------------------------------------------------


def test_wire_strings_are_exactly_the_spec_vocabulary() -> None:
    assert [c.value for c in Category] == [
        "connection",
        "access",
        "limit",
        "request",
        "service",
        "unknown",
    ]
    assert [s.value for s in Severity] == ["warning", "error"]
    assert [a.value for a in Action] == ["retry", "login", "new_session"]


# --- the kind table -------------------------------------------------------------------------------
# See docs/decisions.md#auth-failure-capable-client, #auth-failure-legacy-client,
# #verification-and-cloud-credentials, #internal-errors, #actions and #recovery.

# kind: (category, actions when an error, recovery policy of a turn-scoped occurrence)
EXPECTED_KINDS: dict[FailureKind, tuple[Category, tuple[Action, ...], RecoveryPolicy]] = {
    # docs/decisions.md#actions: rate limit retries; it is a turn failure, recovered at the next
    # attempt.
    K.RATE_LIMITED: (C.LIMIT, (A.RETRY,), R.NEXT_ATTEMPT),
    # docs/decisions.md#actions: quota, billing, spend, usage: no action.
    # docs/decisions.md#recovery: until a real model answer.
    K.QUOTA_EXHAUSTED: (C.LIMIT, (), R.REAL_MODEL_SUCCESS),
    # docs/decisions.md#auth-failure-capable-client: access, login, until auth_status (or a real
    # answer, see the ledger).
    K.AUTH_REQUIRED: (C.ACCESS, (A.LOGIN,), R.AUTH_STATUS),
    # docs/decisions.md#verification-and-cloud-credentials: verification / cloud credentials:
    # access, retry, no login.
    K.ACCESS_DENIED: (C.ACCESS, (A.RETRY,), R.NEXT_ATTEMPT),
    # docs/decisions.md#actions: invalid request / model not found: no action.
    K.BAD_REQUEST: (C.REQUEST, (), R.NEXT_ATTEMPT),
    # docs/decisions.md#actions: max output tokens, turn limit, budget limit: new_session.
    K.CONTEXT_EXHAUSTED: (C.LIMIT, (A.NEW_SESSION,), R.NEXT_ATTEMPT),
    K.BUDGET_EXHAUSTED: (C.LIMIT, (A.NEW_SESSION,), R.NEXT_ATTEMPT),
    # docs/decisions.md#actions: overloaded / server / unknown provider error: retry.
    K.OVERLOADED: (C.SERVICE, (A.RETRY,), R.NEXT_ATTEMPT),
    K.PROVIDER_ERROR: (C.SERVICE, (A.RETRY,), R.NEXT_ATTEMPT),
    # docs/decisions.md#internal-errors: internal errors: service, retry.
    K.INTERNAL_ERROR: (C.SERVICE, (A.RETRY,), R.NEXT_ATTEMPT),
    # docs/decisions.md#actions and #recovery: transport loss, worker shutdown: new_session, until
    # the runtime is replaced.
    K.TRANSPORT_LOST: (C.CONNECTION, (A.NEW_SESSION,), R.RUNTIME_REBIND),
    K.WORKER_SHUTDOWN: (C.CONNECTION, (A.NEW_SESSION,), R.RUNTIME_REBIND),
    # docs/decisions.md#model-fallback: the fallback notice is unknown / warning;
    # docs/decisions.md#recovery: notices never recover.
    K.ADVISORY: (C.UNKNOWN, (), R.NEVER),
    # docs/decisions.md#mcp-server-problems: an MCP server that failed is service, one that needs
    # auth access; notices.
    K.MCP_SERVER_FAILED: (C.SERVICE, (), R.NEVER),
    K.MCP_NEEDS_AUTH: (C.ACCESS, (), R.NEVER),
}


def test_kind_table_covers_every_kind() -> None:
    assert set(KIND_POLICIES) == set(FailureKind) == set(EXPECTED_KINDS)


@pytest.mark.parametrize("kind", list(FailureKind))
def test_kind_row_matches_decisions(kind: FailureKind) -> None:
    policy = policy_for(kind)
    category, actions, recovery = EXPECTED_KINDS[kind]
    assert (policy.category, policy.actions, policy.recovery) == (category, actions, recovery)
    # The adapter's own text is only a fallback, but it must exist and read as a sentence.
    assert policy.fallback_title.strip() == policy.fallback_title
    assert policy.fallback_title.endswith(".")
    assert len(policy.fallback_title) <= TITLE_LIMIT


# --- classification: the CLI's error enum ------------------------------------------------------

CLI_ERRORS: list[tuple[str, FailureKind]] = [
    ("authentication_failed", K.AUTH_REQUIRED),
    ("oauth_org_not_allowed", K.AUTH_REQUIRED),
    ("account_on_hold", K.QUOTA_EXHAUSTED),
    ("verification_required", K.ACCESS_DENIED),
    ("billing_error", K.QUOTA_EXHAUSTED),
    ("rate_limit", K.RATE_LIMITED),
    ("overloaded", K.OVERLOADED),
    ("invalid_request", K.BAD_REQUEST),
    ("model_not_found", K.BAD_REQUEST),
    ("server_error", K.PROVIDER_ERROR),
    ("unknown", K.PROVIDER_ERROR),
    ("max_output_tokens", K.CONTEXT_EXHAUSTED),
    ("cloud_credential_error", K.ACCESS_DENIED),
]


@pytest.mark.parametrize(("error", "kind"), CLI_ERRORS)
def test_cli_error_string_maps_to_its_kind(error: str, kind: FailureKind) -> None:
    assert kind_for_assistant_error(error, usage_limit=False) is kind
    # A synthetic usage-limit text wins over whatever code the CLI put beside it.
    assert kind_for_assistant_error(error, usage_limit=True) is K.QUOTA_EXHAUSTED


def test_unknown_or_missing_error_degrades_to_provider_error() -> None:
    # Never success: an error we have never heard of is a service failure.
    assert kind_for_assistant_error("brand_new_error_2027", usage_limit=False) is K.PROVIDER_ERROR
    assert policy_for(K.PROVIDER_ERROR).category is C.SERVICE
    assert kind_for_assistant_error(None, usage_limit=False) is K.PROVIDER_ERROR
    assert kind_for_assistant_error("", usage_limit=False) is K.PROVIDER_ERROR


# --- classification: synthetic usage limits ----------------------------------------------------

# Copied from the TypeScript SDK 0.3.318.
SDK_PREFIXES = [
    "You've hit your",
    "You've reached your",
    "You're out of usage credits",
    "Your org is out of usage \u00b7 add funds to continue",
    "Your org is out of usage \u00b7 contact your admin",
    "Your seat type doesn't include usage credits",
    "Your seat type doesn't include usage",
    "Your usage allocation has been disabled by your admin",
    "Your group's usage limit is set to $0",
    "Fable 5 requires usage credits",
    "You're out of extra usage",
    "Your seat type doesn't include extra usage",
]


def test_usage_limit_prefixes_are_the_sdk_list() -> None:
    assert list(USAGE_LIMIT_PREFIXES) == SDK_PREFIXES


@pytest.mark.parametrize("prefix", SDK_PREFIXES)
def test_usage_limit_prefix_counts_only_from_the_synthetic_model(prefix: str) -> None:
    text = f"{prefix} limit \u00b7 resets 5pm"
    assert is_synthetic_usage_limit(SYNTHETIC_MODEL, text)
    # The same words from a real model are prose, not a usage limit.
    assert not is_synthetic_usage_limit(REAL_MODEL, text)
    assert not is_synthetic_usage_limit(None, text)
    # A prefix must start the text.
    assert not is_synthetic_usage_limit(SYNTHETIC_MODEL, f"Note: {text}")


def test_other_synthetic_text_is_not_a_usage_limit() -> None:
    assert not is_synthetic_usage_limit(SYNTHETIC_MODEL, "No response requested.")
    assert not is_synthetic_usage_limit(SYNTHETIC_MODEL, "")


# --- classification: login -------------------------------------------------------------------


def test_login_text_needs_the_run_login_phrase() -> None:
    assert is_login_text("Invalid API key \u00b7 Please run /login")
    assert is_login_text("RUN /LOGIN to continue")
    assert not is_login_text("Please sign in")
    assert not is_login_text("rerun /login")
    assert not is_login_text("run /logins")


def test_synthetic_login_is_one_synthetic_block_that_is_not_a_usage_limit() -> None:
    text = "Invalid API key \u00b7 Please run /login"
    assert is_synthetic_login(SYNTHETIC_MODEL, 1, text)
    # Two blocks, a real model, or no login phrase: not the CLI's login message.
    assert not is_synthetic_login(SYNTHETIC_MODEL, 2, text)
    assert not is_synthetic_login(REAL_MODEL, 1, text)
    assert not is_synthetic_login(SYNTHETIC_MODEL, 1, "Invalid API key")
    # A usage limit that mentions /login stays a usage limit.
    assert not is_synthetic_login(SYNTHETIC_MODEL, 1, "You've hit your limit \u00b7 run /login")


# --- classification: result subtypes ---------------------------------------------------------


@pytest.mark.parametrize(
    ("subtype", "kind"),
    [
        ("error_max_budget_usd", K.BUDGET_EXHAUSTED),
        ("error_max_turns", K.CONTEXT_EXHAUSTED),
        ("error_max_structured_output_retries", K.PROVIDER_ERROR),
        ("success", None),
        ("error_during_execution", None),
        ("something_new", None),
    ],
)
def test_result_subtype_fixes_the_kind_or_defers(subtype: str, kind: FailureKind | None) -> None:
    assert kind_for_result_subtype(subtype) is kind


# --- classification: api_retry ---------------------------------------------------------------


def test_retry_without_http_response_is_a_connection_problem() -> None:
    assert kind_for_retry(None, None) is K.TRANSPORT_LOST
    assert kind_for_retry(None, "overloaded") is K.TRANSPORT_LOST
    assert policy_for(K.TRANSPORT_LOST).category is C.CONNECTION


def test_retry_with_status_uses_the_error_kind() -> None:
    assert kind_for_retry(529, "overloaded") is K.OVERLOADED
    assert kind_for_retry(429, "rate_limit") is K.RATE_LIMITED
    assert kind_for_retry(500, "server_error") is K.PROVIDER_ERROR
    assert kind_for_retry(500, None) is K.PROVIDER_ERROR
    assert kind_for_retry(503, "brand_new") is K.PROVIDER_ERROR


def test_retry_of_an_auth_check_publishes_nothing() -> None:
    # docs/decisions.md#retry-progress: a 401 is a credential re-check, whatever the error says.
    assert kind_for_retry(401, "authentication_failed") is None
    assert kind_for_retry(401, "overloaded") is None
    assert kind_for_retry(401, None) is None
    # An auth kind behind another status is the same re-check.
    assert kind_for_retry(403, "oauth_org_not_allowed") is None


def test_retry_titles() -> None:
    assert retry_title(attempt=1, max_retries=10, has_status=True) == (
        "Retrying Claude, attempt 1 of 10."
    )
    assert retry_title(attempt=3, max_retries=5, has_status=False) == (
        "Reconnecting to Claude, attempt 3 of 5."
    )


# --- classification: model fallback ---------------------------------------------------------


def test_model_fallback_text_variants() -> None:
    base: dict[str, Any] = {
        "original_model": "claude-opus-4-1",
        "fallback_model": "claude-sonnet-4-5",
        "refusal_category": None,
        "explanation": None,
        "direction": None,
        "scope": None,
    }
    # The swap persists by default.
    assert model_fallback_text(**base) == (
        "claude-opus-4-1 declined this request; retried with claude-sonnet-4-5. "
        "The session will continue on claude-sonnet-4-5."
    )
    # A refusal category is named in brackets.
    assert model_fallback_text(**{**base, "refusal_category": "cyber"}) == (
        "claude-opus-4-1 declined this request (cyber); retried with claude-sonnet-4-5. "
        "The session will continue on claude-sonnet-4-5."
    )
    # A local fallback covers one response only.
    assert model_fallback_text(**{**base, "scope": "local"}) == (
        "claude-opus-4-1 declined this request; retried with claude-sonnet-4-5. "
        "Only that response came from claude-sonnet-4-5; the session stays on claude-opus-4-1."
    )
    # A reverting fallback keeps the session on the original model.
    assert model_fallback_text(**{**base, "direction": "revert"}) == (
        "claude-opus-4-1 declined this request; retried with claude-sonnet-4-5. "
        "The session stays on claude-opus-4-1."
    )
    # An explanation is a second paragraph, which shape_title moves into details.
    text = model_fallback_text(**{**base, "explanation": "The request touched a topic."})
    assert text.endswith("claude-sonnet-4-5.\n\nThe request touched a topic.")
    assert shape_title(text) == (
        "claude-opus-4-1 declined this request; retried with claude-sonnet-4-5. "
        "The session will continue on claude-sonnet-4-5.",
        "The request touched a topic.",
    )


def test_classify_exports_exist() -> None:
    assert [name for name in classify.__all__ if not hasattr(classify, name)] == []
    missing = [n for n in synthetic_messages.__all__ if not hasattr(synthetic_messages, n)]
    assert missing == []


# --- shape_title, docs/decisions.md#details -------------------------------------------------------


def test_short_single_paragraph_stays_whole() -> None:
    text = "x" * TITLE_LIMIT
    assert shape_title(text) == (text, None)
    # Surrounding whitespace is not part of the message; one line break is not a paragraph.
    assert shape_title("  API Error: 529 overloaded \n") == ("API Error: 529 overloaded", None)
    assert shape_title("Line one\nline two") == ("Line one\nline two", None)


def test_long_text_keeps_its_first_sentence_as_title() -> None:
    tail = "y" * 300
    title, details = shape_title(f"Claude hit a limit. {tail}")
    assert (title, details) == ("Claude hit a limit.", tail)


def test_long_text_without_a_sentence_is_cut_at_a_word() -> None:
    text = " ".join(["word"] * 80)
    title, details = shape_title(text)
    assert details is not None
    assert len(title) <= TITLE_LIMIT
    assert title.endswith("\u2026")
    assert text.startswith(title[:-1])
    assert title[:-1].rstrip() + " " + details == text


def test_long_unbroken_text_is_cut_at_the_limit() -> None:
    title, details = shape_title("A" * 300)
    assert (title, details) == ("A" * 255 + "\u2026", "A" * 45)
    assert len(title) == TITLE_LIMIT


def test_two_paragraphs_split_into_title_and_details() -> None:
    assert shape_title("Request failed.\n\nThe model is unavailable in your region.") == (
        "Request failed.",
        "The model is unavailable in your region.",
    )
    # A long first line and more lines: the first line's first sentence leads.
    first = "Short first. " + "z" * 300
    assert shape_title(f"{first}\n\nMore.") == ("Short first.", "z" * 300 + "\n\nMore.")


@pytest.mark.parametrize(
    "text",
    [
        "Failed.\n\nFailed.",
        "x" * 200 + "\n" + "x" * 200,
        "Same sentence here.\n\n  Same sentence here.  ",
    ],
)
def test_details_never_equal_the_title(text: str) -> None:
    title, details = shape_title(text)
    assert details != title
    assert title
    # And a record built from it is valid.
    FailureRecord(
        id="t:error",
        revision=1,
        category=C.SERVICE,
        severity=Severity.ERROR,
        title=title,
        details=details,
        actions=(A.RETRY,),
        kind=K.PROVIDER_ERROR,
    )


# --- redact -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("key sk-ant-api03-AbC_d-9xyz leaked", "key sk-ant-*** leaked"),
        ("sent Bearer abcdefgh.12345-XYZ upstream", "sent Bearer *** upstream"),
        (
            "proxy https://bob:hunter2@proxy.example.com:8080/x",
            "proxy https://***@proxy.example.com:8080/x",
        ),
        ("api_key=XYZ123 rejected", "api_key=*** rejected"),
        ("config at /home/alice/project/.env missing", "config at ~/\u2026 missing"),
        ("read /Users/bob/.claude/settings.json", "read ~/\u2026"),
        ("read /root/.claude.json failed", "read ~/\u2026 failed"),
    ],
)
def test_redact_masks_secrets_and_private_paths(text: str, masked: str) -> None:
    assert redact(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "You've hit your individual spend limit \u00b7 run /usage-credits to ask your admin",
        "Invalid API key \u00b7 Please run /login",
        'API Error: 529 {"type":"overloaded_error"}',
        "The token limit: 5 per minute was reached",
        "Mount /rootfs and /usr/local/bin are fine; see https://status.anthropic.com.",
        "claude-opus-4-1 declined this request (cyber); retried with claude-sonnet-4-5.",
    ],
)
def test_redact_leaves_ordinary_text_untouched(text: str) -> None:
    assert redact(text) == text


# --- negotiation, docs/decisions.md#negotiation ---------------------------------------------------


def _caps(air: object) -> dict[str, Any]:
    return {"jetbrains": {"air": air}}


@pytest.mark.parametrize("version", [1, 2, 1.0, 7])
def test_negotiation_accepts_an_integer_version_and_the_capability(version: object) -> None:
    assert session_failure_negotiated(
        _caps({"version": version, "capabilities": ["sessionFailure"]})
    )
    # Other capabilities beside it do not matter.
    assert session_failure_negotiated(
        _caps({"version": version, "capabilities": ["other", "sessionFailure"]})
    )


@pytest.mark.parametrize(
    "version", [True, False, "1", 1.5, 0, -1, math.nan, math.inf, -math.inf, None, [1], {}]
)
def test_negotiation_rejects_a_version_that_is_not_an_integer_of_one_or_more(
    version: object,
) -> None:
    assert not session_failure_negotiated(
        _caps({"version": version, "capabilities": ["sessionFailure"]})
    )


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {},
        [],
        "jetbrains",
        42,
        {"jetbrains": None},
        {"jetbrains": []},
        {"jetbrains": {}},
        {"jetbrains": {"air": None}},
        {"jetbrains": {"air": [1, "sessionFailure"]}},
        {"other": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}},
        _caps({"version": 1}),
        _caps({"capabilities": ["sessionFailure"]}),
        _caps({"version": 1, "capabilities": []}),
        _caps({"version": 1, "capabilities": [1]}),
        _caps({"version": 1, "capabilities": "sessionFailure"}),
        _caps({"version": 1, "capabilities": {"sessionFailure": True}}),
        _caps({"version": 1, "capabilities": ("sessionFailure",)}),
        _caps({"version": 1, "capabilities": ["sessionfailure"]}),
        _caps({"version": 1, "capabilities": [["sessionFailure"]]}),
        # The old nested form.
        _caps({"sessionFailure": {"version": 1}}),
        _caps({"version": 1, "sessionFailure": {"version": 1}}),
    ],
)
def test_negotiation_falls_back_to_legacy_silently(meta: object) -> None:
    assert session_failure_negotiated(meta) is False


# --- wire projection, docs/decisions.md#wire-record and #details ----------------------------------


def _wire_record(*, details: str | None) -> FailureRecord:
    return FailureRecord(
        id="turn-1:error",
        revision=3,
        category=C.LIMIT,
        severity=Severity.ERROR,
        title="You've hit your limit.",
        details=details,
        actions=(A.RETRY, A.NEW_SESSION),
        kind=K.RATE_LIMITED,
    )


def test_wire_record_has_exactly_the_allowed_keys() -> None:
    wire = session_failure_record(_wire_record(details=None))
    assert wire == {
        "id": "turn-1:error",
        "revision": 3,
        "category": "limit",
        "severity": "error",
        "title": "You've hit your limit.",
        "actions": ["retry", "new_session"],
    }
    # The internal kind never leaves the core.
    assert set(wire) == SESSION_FAILURE_KEYS - {"details"}


def test_wire_record_never_carries_internal_hints() -> None:
    # The kind and Claude's retry hints stay inside; the sessionFailure record has no field
    # for them (docs/decisions.md#wire-record).
    record = FailureRecord(
        id="turn-1:error",
        revision=1,
        category=C.LIMIT,
        severity=Severity.ERROR,
        title="Rate limited.",
        actions=(A.RETRY,),
        kind=K.RATE_LIMITED,
        retry_after_seconds=1.5,
        reset_at_epoch_ms=1_900_000_000_000,
    )
    assert session_failure_record(record) == {
        "id": "turn-1:error",
        "revision": 1,
        "category": "limit",
        "severity": "error",
        "title": "Rate limited.",
        "actions": ["retry"],
    }


def test_wire_record_carries_details_only_when_set() -> None:
    wire = session_failure_record(_wire_record(details="It resets at 5pm."))
    assert wire == {
        "id": "turn-1:error",
        "revision": 3,
        "category": "limit",
        "severity": "error",
        "title": "You've hit your limit.",
        "details": "It resets at 5pm.",
        "actions": ["retry", "new_session"],
    }
    assert set(wire) == SESSION_FAILURE_KEYS


def test_wire_wrapper_shape() -> None:
    record = _wire_record(details=None)
    assert SessionFailureDialect().meta_for(record) == {
        "jetbrains": {"air": {"version": 1, "sessionFailure": session_failure_record(record)}}
    }


def test_merge_meta_keeps_other_namespaces_and_copies() -> None:
    base: dict[str, Any] = {
        "quota": {"token_count": {"totalTokens": 15}},
        "jetbrains": {"other": {"x": 1}, "air": {"goal": "keep"}},
    }
    addition = SessionFailureDialect().meta_for(_wire_record(details=None))
    merged = merge_meta(base, addition)
    assert merged == {
        "quota": {"token_count": {"totalTokens": 15}},
        "jetbrains": {
            "other": {"x": 1},
            "air": {
                "goal": "keep",
                "version": 1,
                "sessionFailure": session_failure_record(_wire_record(details=None)),
            },
        },
    }
    # Neither input is changed, and the result shares nothing with them.
    assert base == {
        "quota": {"token_count": {"totalTokens": 15}},
        "jetbrains": {"other": {"x": 1}, "air": {"goal": "keep"}},
    }
    merged["jetbrains"]["air"]["sessionFailure"]["actions"].append("login")
    assert addition["jetbrains"]["air"]["sessionFailure"]["actions"] == ["retry", "new_session"]
    # No base at all is an empty base.
    assert merge_meta(None, addition) == addition
    assert merge_meta({}, addition) == addition
