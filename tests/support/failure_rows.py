"""The failure matrix: for each failure scenario of the scripted Claude, what a capable client must
receive and what a legacy client must receive, stated from the contract and docs/decisions.md (never
from what the code happens to do), and how one run of a row is checked against it (`check_capable`,
`check_legacy`). Played in process in `tests/shell/test_failure_matrix.py`, and end to end for the
rows whose Claude process dies or breaks its stream in `tests/e2e/test_failure_matrix.py`; that the
table covers every failure scenario is checked in `tests/shell/test_scenario_tables.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude import TEXTS
from fsm import AUTH_REQUIRED_MESSAGE, TURN_NO_RESULT_TITLE
from fsm.claude.classify import without_login_instruction
from tests.support.harness import Adapter

# Adapter-authored fallback titles, used only where Claude supplied no user-facing text (spec:
# "Title and details"). The wording is the reference adapter's.
TRANSPORT_LOST_TITLE = "The connection to Claude was lost."
WORKER_SHUTDOWN_TITLE = "The Claude worker is shutting down."

# The model-fallback notice as the reference composes it:
# "{original} declined this request ({category}); retried with {fallback}. {outcome}".
FALLBACK_NOTICE = (
    "claude-opus-4-5 declined this request (cyber); retried with claude-sonnet-4-5. "
    "The session will continue on claude-sonnet-4-5."
)

PROMPT_RESPONSE = "prompt_response"
SESSION_INFO = "session_info_update"

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def _warning(revision: int, category: str, *, status: bool = True) -> tuple[str, dict[str, Any]]:
    """An api_retry progress record (docs/decisions.md#retry-progress): a warning with no
    actions."""
    verb = "Retrying" if status else "Reconnecting to"
    return SESSION_INFO, {
        "revision": revision,
        "category": category,
        "severity": "warning",
        "title": f"{verb} Claude, attempt {revision} of 10.",
        "actions": [],
    }


def _error(
    revision: int, category: str, title: str, actions: list[str]
) -> tuple[str, dict[str, Any]]:
    """A turn-terminal error on the PromptResponse (spec: "Delivery surfaces")."""
    return PROMPT_RESPONSE, {
        "revision": revision,
        "category": category,
        "severity": "error",
        "title": title,
        "actions": actions,
    }


@dataclass(frozen=True, slots=True)
class Legacy:
    """What a legacy client gets for the first prompt: a JSON-RPC error or a stop reason."""

    code: int | None = None
    message: str | None = None  # exact, when the contract fixes it
    data: dict[str, Any] | None = None
    stop_reason: str | None = None


@dataclass(frozen=True, slots=True)
class Row:
    scenario: str
    # Capable client: every record of the first turn, in order, without its id.
    records: tuple[tuple[str, dict[str, Any]], ...]
    legacy: Legacy
    stop_reason: str = "end_turn"  # capable client
    # Claude's own error prose: a capable client gets it only as a title
    # (docs/decisions.md#capable-clients); a legacy client gets it as agent text
    # (docs/decisions.md#legacy-clients) unless `prose_to_legacy` is False.
    prose: str | None = None
    prose_to_legacy: bool = True
    # Real model text the turn streamed before failing: every client sees it.
    streamed: tuple[str, ...] = ()
    id_shape: str = "turn"  # "turn": <turnId>:error; "notice": <sessionId>:notice:<epoch>:<n>


def _internal(kind: str, message: str | None = None) -> Legacy:
    return Legacy(code=-32603, data={"errorKind": kind}, message=message)


AUTH = Legacy(code=-32000, message=AUTH_REQUIRED_MESSAGE)


def _api(
    scenario: str,
    category: str,
    actions: list[str],
    error_kind: str,
    *,
    warnings: tuple[tuple[str, dict[str, Any]], ...] = (),
    legacy: Legacy | None = None,
    prose_to_legacy: bool = True,
    streamed: tuple[str, ...] = (),
    text_of: str | None = None,
) -> Row:
    """A failed API call: Claude's synthetic error message is the title (spec,
    docs/decisions.md#titles)."""
    text = TEXTS[text_of or scenario]
    # A sign-in record keeps what happened, not Claude Code's terminal-only /login step.
    title = without_login_instruction(text) if actions == ["login"] else text
    terminal = _error(len(warnings) + 1, category, title, actions)
    return Row(
        scenario,
        (*warnings, terminal),
        legacy or _internal(error_kind),
        prose=text,
        prose_to_legacy=prose_to_legacy,
        streamed=streamed,
    )


ROWS: tuple[Row, ...] = (
    # access (docs/decisions.md#auth-failure-capable-client: ["login"];
    # docs/decisions.md#auth-failure-legacy-client: -32000 for legacy). A 401 retry publishes
    # nothing (docs/decisions.md#retry-progress).
    _api("authentication_failed", "access", ["login"], "", legacy=AUTH),
    _api("oauth_org_not_allowed", "access", ["login"], "", legacy=AUTH),
    # The synthetic login text is never forwarded, not even to a legacy client.
    _api("synthetic_login", "access", ["login"], "", legacy=AUTH, prose_to_legacy=False),
    # access without login (docs/decisions.md#verification-and-cloud-credentials)
    _api("verification_required", "access", ["retry"], "verification_required"),
    _api("cloud_credential_error", "access", ["retry"], "cloud_credential_error"),
    # limit (docs/decisions.md#actions)
    _api("billing_error", "limit", [], "billing_error"),
    _api("rate_limit", "limit", ["retry"], "rate_limit"),
    _api(
        "max_output_tokens",
        "limit",
        ["new_session"],
        "max_output_tokens",
        streamed=("Here is the complete listing of every file:",),
    ),
    # The CLI labels a synthetic usage-limit message `rate_limit`; the text decides (spec).
    _api("usage_limit", "limit", [], "rate_limit"),
    # Result-only limits: the title is the terminal SDK error text (spec, "Title and details").
    # A legacy client reads the result's words as agent text and a short error
    # (docs/decisions.md#legacy-error-text-once).
    Row(
        "budget_limit",
        (_error(1, "limit", TEXTS["budget_limit"], ["new_session"]),),
        _internal(
            "budget_exhausted", "Internal error: This Claude session reached its configured budget."
        ),
        prose=TEXTS["budget_limit"],
        streamed=("Let me start by reading the code.",),
    ),
    Row(
        "turn_limit",
        (_error(1, "limit", TEXTS["turn_limit"], ["new_session"]),),
        # Legacy clients hear what happened: the turn limit, not the record's broader kind.
        _internal("max_turns", "Internal error: This Claude turn reached its configured limit."),
        prose=TEXTS["turn_limit"],
    ),
    # Not in the spec's table: an SDK failure that fits no group degrades to service (spec).
    Row(
        "structured_output_retries",
        (_error(1, "service", TEXTS["structured_output_retries"], ["retry"]),),
        _internal("provider_error", "Internal error: The model provider reported an error."),
        prose=TEXTS["structured_output_retries"],
    ),
    # request (docs/decisions.md#actions: [])
    _api("invalid_request", "request", [], "invalid_request"),
    _api("model_not_found", "request", [], "model_not_found"),
    # service (docs/decisions.md#actions: ["retry"]); 529 retries warn under the turn's id first
    # (docs/decisions.md#retry-progress)
    _api(
        "overloaded",
        "service",
        ["retry"],
        "server_error",
        warnings=(_warning(1, "service"), _warning(2, "service")),
    ),
    _api("server_error", "service", ["retry"], "server_error", warnings=(_warning(1, "service"),)),
    # An error kind nobody has heard of degrades to service, never to success (spec).
    _api("unknown_error", "service", ["retry"], "quantum_flux"),
    _api(
        "retry_then_rate_limit",
        "limit",
        ["retry"],
        "rate_limit",
        warnings=(_warning(1, "limit"), _warning(2, "limit")),
        text_of="rate_limit",
    ),
    # connection (docs/decisions.md#actions: ["new_session"]); a process that dies is transport_lost
    # (docs/decisions.md#never-silent)
    Row(
        "reconnect_then_transport_loss",
        (
            _warning(1, "connection", status=False),
            _error(2, "connection", TRANSPORT_LOST_TITLE, ["new_session"]),
        ),
        _internal("transport_lost"),
    ),
    Row(
        "worker_shutdown",
        (_error(1, "connection", WORKER_SHUTDOWN_TITLE, ["new_session"]),),
        _internal("worker_shutdown"),
    ),
    Row(
        "crash_mid_turn",
        (_error(1, "connection", TRANSPORT_LOST_TITLE, ["new_session"]),),
        _internal("transport_lost"),
        streamed=("Let me look at the repository first.",),
    ),
    Row(
        "garbage",
        (_error(1, "connection", TRANSPORT_LOST_TITLE, ["new_session"]),),
        _internal("transport_lost"),
    ),
    # A stream that ends without a result is an internal error (docs/decisions.md#never-silent and
    # #internal-errors). Its legacy errorKind is the reference's name for a turn that ended without
    # a result.
    Row(
        "no_result",
        (_error(1, "service", TURN_NO_RESULT_TITLE, ["retry"]),),
        _internal("no_result"),
        streamed=("I'll start by reading the file.",),
    ),
    # Beyond the brief's list, the same rule for the other ways a turn ends without a result:
    # the turn goes idle with the process still up, or stdout closes before the process exits.
    Row(
        "idle_without_result",
        (_error(1, "service", TURN_NO_RESULT_TITLE, ["retry"]),),
        _internal("no_result"),
        streamed=("Here is the first part of the answer.",),
    ),
    Row(
        "close_stdout",
        (_error(1, "service", TURN_NO_RESULT_TITLE, ["retry"]),),
        _internal("no_result"),
        streamed=("Working on it.",),
    ),
    # Not failures: warnings only, or no record at all.
    Row(
        "model_fallback",
        (
            (
                SESSION_INFO,
                {
                    "revision": 1,
                    "category": "unknown",
                    "severity": "warning",
                    "title": FALLBACK_NOTICE,
                    "actions": [],
                },
            ),
        ),
        Legacy(stop_reason="end_turn"),
        prose=FALLBACK_NOTICE,  # legacy: "**Model fallback:** ..." agent text (checked below)
        streamed=("Scripted reply to: first prompt",),
        id_shape="notice",
    ),
    Row(
        "refusal",
        (),
        Legacy(stop_reason="refusal"),
        stop_reason="refusal",
        # docs/decisions.md#refusal-and-cancellation: the explanation stays agent text
        streamed=(TEXTS["refusal"],),
    ),
    Row(
        "retry_then_success",
        (_warning(1, "limit"), _warning(2, "limit")),
        Legacy(stop_reason="end_turn"),
        streamed=("Scripted reply to: first prompt",),
    ),
    Row(
        "success",
        (),
        Legacy(stop_reason="end_turn"),
        streamed=("Scripted reply to: first prompt",),
    ),
)

# The list: the failure scenarios of the scripted Claude, plus the happy paths.
FAILURE_SCENARIOS = frozenset(
    {
        "authentication_failed",
        "oauth_org_not_allowed",
        "synthetic_login",
        "verification_required",
        "cloud_credential_error",
        "billing_error",
        "rate_limit",
        "max_output_tokens",
        "usage_limit",
        "budget_limit",
        "turn_limit",
        "structured_output_retries",
        "invalid_request",
        "model_not_found",
        "overloaded",
        "server_error",
        "unknown_error",
        "retry_then_rate_limit",
        "reconnect_then_transport_loss",
        "worker_shutdown",
        "crash_mid_turn",
        "no_result",
        "garbage",
        "model_fallback",
        "refusal",
        "retry_then_success",
        "success",
    }
)


def has_key(value: object, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(has_key(v, key) for v in value)
    return False


def safe_title(text: str) -> None:
    """docs/decisions.md#titles: no exception text, stack trace, private path or environment
    value."""
    for leak in ("Traceback", "/tmp/", "/home/", "/root", "scripted_claude", "Error(", "exit"):
        assert leak not in text, f"{leak!r} leaked into {text!r}"


@dataclass(slots=True)
class Run:
    """One agent, one session, two prompts: what the client saw."""

    adapter: Adapter
    session: str
    first: PromptResponse | acp.RequestError
    second: PromptResponse | acp.RequestError
    prompts: list[str]  # the uuids of the user messages Claude received, in order


def check_common(row: Row, run: Run) -> None:
    adapter = run.adapter
    # docs/decisions.md#never-silent: exactly one answer per prompt.
    answers = adapter.answers()
    assert len(answers) == 2 and all(count == 1 for count in answers.values()), answers
    # Every update names the session it belongs to.
    updates = [m for m in adapter.incoming() if m.get("method") == "session/update"]
    assert all(m["params"]["sessionId"] == run.session for m in updates)
    texts = adapter.agent_texts()
    for text in row.streamed:
        assert texts.count(text) == 1, (text, texts)
    # The session survives every failure; after a dead process a resumed one answers. Both
    # prompts reached Claude, each stamped with its own fresh uuid (docs/decisions.md#turn-ids).
    assert isinstance(run.second, PromptResponse), run.second
    assert run.second.stop_reason == "end_turn"
    assert "Scripted reply to: second prompt" in texts
    assert len(run.prompts) == 2 and len(set(run.prompts)) == 2, run.prompts
    assert all(UUID4.match(p) for p in run.prompts), run.prompts


def check_capable(row: Row, run: Run) -> None:
    check_common(row, run)
    first = run.first
    assert isinstance(first, PromptResponse), first
    assert first.stop_reason == row.stop_reason

    records = run.adapter.records()
    # The whole record, minus its id, with its carrier; the second turn adds nothing.
    assert [(carrier, {k: v for k, v in r.items() if k != "id"}) for carrier, r in records] == [
        *row.records
    ]
    ids = {r["id"] for _, r in records}
    if row.records:
        assert len(ids) == 1, ids  # one incident, revised in place
        [record_id] = ids
        if row.id_shape == "turn":
            # docs/decisions.md#turn-ids: the turn id is the uuid4 the adapter stamped on the first
            # user message.
            assert record_id == f"{run.prompts[0]}:error", (record_id, run.prompts)
        else:
            # docs/decisions.md#session-scoped-ids: <sessionId>:notice:<epoch>:<n>.
            pattern = rf"{re.escape(run.session)}:notice:[^:]+:[1-9][0-9]*"
            assert re.fullmatch(pattern, record_id), record_id
    # Records are transcript entries at their stream position: in these scenarios Claude's
    # warnings (retries, model fallback) come before the answer's text.
    stream = [
        u
        for u in run.adapter.updates()
        if u["sessionUpdate"] != "session_info_update" or has_key(u, "sessionFailure")
    ]
    kinds = [u["sessionUpdate"] for u in stream]
    if SESSION_INFO in kinds and row.streamed:
        # Claude's text streams: its first chunk is a piece of a streamed text.
        first_text = next(
            i
            for i, u in enumerate(stream)
            if u.get("content", {}).get("text")
            and any(u["content"]["text"] in text for text in row.streamed)
        )
        assert max(i for i, k in enumerate(kinds) if k == SESSION_INFO) < first_text, kinds
    for _, record in records:
        safe_title(record["title"])
        # every scripted text fits a title (docs/decisions.md#details)
        assert "details" not in record
    # The terminal record rides on this prompt's own response.
    if row.records and row.records[-1][0] == PROMPT_RESPONSE:
        assert first.field_meta is not None
        assert first.field_meta["jetbrains"]["air"]["sessionFailure"] == records[-1][1]
    if row.prose is not None:
        # docs/decisions.md#capable-clients: the prose that became the title is not also agent text.
        texts = run.adapter.agent_texts()
        assert not any(row.prose in t for t in texts), texts


def check_legacy(row: Row, run: Run) -> None:
    check_common(row, run)
    first, expected = run.first, row.legacy
    if expected.stop_reason is not None:
        assert isinstance(first, PromptResponse), first
        assert first.stop_reason == expected.stop_reason
    else:
        assert isinstance(first, acp.RequestError), first
        assert (first.code, first.data) == (expected.code, expected.data)
        message = str(first)
        if expected.message is not None:
            assert message == expected.message
        else:
            assert message.startswith("Internal error"), message
        safe_title(message)
    # docs/decisions.md#legacy-clients: no record, ever, on any carrier.
    assert run.adapter.records() == []
    assert not any(has_key(m, "sessionFailure") for m in run.adapter.incoming())
    texts = run.adapter.agent_texts()
    if row.prose is not None:
        # docs/decisions.md#legacy-error-text-once: Claude's words once, as agent text; the
        # error's message does not repeat them.
        shown = sum(row.prose in t for t in texts)
        assert shown == (1 if row.prose_to_legacy else 0), (row.prose, texts)
        if isinstance(first, acp.RequestError):
            assert row.prose not in str(first), str(first)
    if row.scenario == "model_fallback":
        assert f"**Model fallback:** {FALLBACK_NOTICE}" in texts


def check_both(row: Row, capable: Run, legacy: Run) -> None:
    """Fails, naming the client mode, for every mode whose run breaks the row."""
    problems = []
    for mode, check, run in (
        ("capable", check_capable, capable),
        ("legacy", check_legacy, legacy),
    ):
        try:
            check(row, run)
        except AssertionError as exc:
            problems.append(f"{mode} client: {exc}")
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)
