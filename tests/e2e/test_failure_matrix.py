"""The failure matrix end to end: the scripted Claude's failure scenarios, both client modes.

Each row states, from the spec and DECISIONS.md (never from what the code happens to do), what a
capable client must receive (every sessionFailure record, whole, with its revision sequence and
carrier, and the stop reason) and what a legacy client must receive (the JSON-RPC error, or the
stop reason; never a record; Claude's error prose as agent text). Every row then sends a second
prompt in the same session, which must succeed: after a crash or transport loss that means the
adapter started a new Claude process that resumed the session.

The adapter runs as a real subprocess over real stdio (`tests/support/harness.py`), and so does the
scripted Claude it spawns through the real `claude-agent-sdk`.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude import SCENARIOS, TEXTS
from fsm.session import TURN_NO_RESULT_TITLE
from tests.support.harness import Adapter, AdapterPool, spawn_adapter

pytestmark = pytest.mark.e2e

# Adapter-authored fallback titles, used only where Claude supplied no user-facing text (spec:
# "Title and details"). The wording is the reference adapter's (reference-adapter.md §1.3).
TRANSPORT_LOST_TITLE = "The connection to Claude was lost."
WORKER_SHUTDOWN_TITLE = "The Claude worker is shutting down."

# The model-fallback notice as the reference composes it (reference-adapter.md §2.1 row 9):
# "{original} declined this request ({category}); retried with {fallback}. {outcome}".
FALLBACK_NOTICE = (
    "claude-opus-4-5 declined this request (cyber); retried with claude-sonnet-4-5. "
    "The session will continue on claude-sonnet-4-5."
)

PROMPT_RESPONSE = "prompt_response"
SESSION_INFO = "session_info_update"

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def _warning(revision: int, category: str, *, status: bool = True) -> tuple[str, dict[str, Any]]:
    """An api_retry progress record (DECISIONS row 11): a warning with no actions."""
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
    # Claude's own error prose: a capable client gets it only as a title (row 20); a legacy
    # client gets it as agent text (row 19) unless `prose_to_legacy` is False.
    prose: str | None = None
    prose_to_legacy: bool = True
    # Real model text the turn streamed before failing: every client sees it.
    streamed: tuple[str, ...] = ()
    id_shape: str = "turn"  # "turn": <turnId>:error; "notice": <sessionId>:notice:<epoch>:<n>


def _internal(kind: str) -> Legacy:
    return Legacy(code=-32603, data={"errorKind": kind})


AUTH = Legacy(code=-32000, message="Authentication required")


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
    """A failed API call: Claude's synthetic error message is the title (spec, row 9)."""
    text = TEXTS[text_of or scenario]
    terminal = _error(len(warnings) + 1, category, text, actions)
    return Row(
        scenario,
        (*warnings, terminal),
        legacy or _internal(error_kind),
        prose=text,
        prose_to_legacy=prose_to_legacy,
        streamed=streamed,
    )


ROWS: tuple[Row, ...] = (
    # access (row 4: ["login"]; row 5: -32000 for legacy). A 401 retry publishes nothing (row 11).
    _api("authentication_failed", "access", ["login"], "", legacy=AUTH),
    _api("oauth_org_not_allowed", "access", ["login"], "", legacy=AUTH),
    # The synthetic login text is never forwarded, not even to a legacy client (reference §5.2).
    _api("synthetic_login", "access", ["login"], "", legacy=AUTH, prose_to_legacy=False),
    # access without login (row 6)
    _api("verification_required", "access", ["retry"], "verification_required"),
    _api("cloud_credential_error", "access", ["retry"], "cloud_credential_error"),
    # limit (row 8)
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
    Row(
        "budget_limit",
        (_error(1, "limit", TEXTS["budget_limit"], ["new_session"]),),
        _internal("budget_exhausted"),
        streamed=("Let me start by reading the code.",),
    ),
    Row(
        "turn_limit",
        (_error(1, "limit", TEXTS["turn_limit"], ["new_session"]),),
        _internal("context_exhausted"),
    ),
    # Not in the spec's table: an SDK failure that fits no group degrades to service (spec).
    Row(
        "structured_output_retries",
        (_error(1, "service", TEXTS["structured_output_retries"], ["retry"]),),
        _internal("provider_error"),
    ),
    # request (row 8: [])
    _api("invalid_request", "request", [], "invalid_request"),
    _api("model_not_found", "request", [], "model_not_found"),
    # service (row 8: ["retry"]); 529 retries warn under the turn's id first (row 11)
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
    # connection (row 8: ["new_session"]); a process that dies is transport_lost (row 18)
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
    # A stream that ends without a result is an internal error (rows 18, 7). Its legacy
    # errorKind is the reference's name for a turn that ended without a result (§5.2).
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
        streamed=(TEXTS["refusal"],),  # row 17: the explanation stays agent text
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


def test_the_table_covers_every_failure_scenario() -> None:
    scenarios = [row.scenario for row in ROWS]
    assert len(set(scenarios)) == len(scenarios)
    assert set(scenarios) >= FAILURE_SCENARIOS
    assert set(scenarios) <= set(SCENARIOS)


def _has_key(value: object, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(_has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(_has_key(v, key) for v in value)
    return False


def _safe(text: str) -> None:
    """Row 9: no exception text, stack trace, private path or environment value."""
    for leak in ("Traceback", "/tmp/", "/home/", "/root", "scripted_claude", "Error(", "exit"):
        assert leak not in text, f"{leak!r} leaked into {text!r}"


@dataclass(slots=True)
class Run:
    """One adapter process, one session, two prompts: what the client saw."""

    adapter: Adapter
    session: str
    first: PromptResponse | acp.RequestError
    second: PromptResponse | acp.RequestError
    prompts: list[str]  # the uuids of the user messages Claude received, in order


async def _run(adapters: AdapterPool, tmp_path: Path, scenario: str, *, capable: bool) -> Run:
    tmp_path.mkdir()
    async with adapters.session_adapter(tmp_path, scenario, capable=capable) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "first prompt")
        second = await adapter.prompt(session, "second prompt")
        prompts = adapter.prompt_uuids(session)
    return Run(adapter, session, first, second, prompts)


def _check_common(row: Row, run: Run) -> None:
    adapter = run.adapter
    # Row 18: exactly one answer per prompt.
    answers = adapter.answers()
    assert len(answers) == 2 and all(count == 1 for count in answers.values()), answers
    # Every update names the session it belongs to.
    updates = [m for m in adapter.incoming() if m.get("method") == "session/update"]
    assert all(m["params"]["sessionId"] == run.session for m in updates)
    texts = adapter.agent_texts()
    for text in row.streamed:
        assert texts.count(text) == 1, (text, texts)
    # The session survives every failure; after a dead process a resumed one answers. Both
    # prompts reached Claude, each stamped with its own fresh uuid (row 12).
    assert isinstance(run.second, PromptResponse), run.second
    assert run.second.stop_reason == "end_turn"
    assert "Scripted reply to: second prompt" in texts
    assert len(run.prompts) == 2 and len(set(run.prompts)) == 2, run.prompts
    assert all(UUID4.match(p) for p in run.prompts), run.prompts


def _check_capable(row: Row, run: Run) -> None:
    _check_common(row, run)
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
            # Row 12: the turn id is the uuid4 the adapter stamped on the first user message.
            assert record_id == f"{run.prompts[0]}:error", (record_id, run.prompts)
        else:
            # Row 13: <sessionId>:notice:<epoch>:<n>.
            pattern = rf"{re.escape(run.session)}:notice:[^:]+:[1-9][0-9]*"
            assert re.fullmatch(pattern, record_id), record_id
    # Records are transcript entries at their stream position: in these scenarios Claude's
    # warnings (retries, model fallback) come before the answer's text.
    stream = [
        u
        for u in run.adapter.updates()
        if u["sessionUpdate"] != "session_info_update" or _has_key(u, "sessionFailure")
    ]
    kinds = [u["sessionUpdate"] for u in stream]
    if SESSION_INFO in kinds and row.streamed:
        # Claude's text streams (issue 13): its first chunk is a piece of a streamed text.
        first_text = next(
            i
            for i, u in enumerate(stream)
            if u.get("content", {}).get("text")
            and any(u["content"]["text"] in text for text in row.streamed)
        )
        assert max(i for i, k in enumerate(kinds) if k == SESSION_INFO) < first_text, kinds
    for _, record in records:
        _safe(record["title"])
        assert "details" not in record  # every scripted text fits a title (row 10)
    # The terminal record rides on this prompt's own response.
    if row.records and row.records[-1][0] == PROMPT_RESPONSE:
        assert first.field_meta is not None
        assert first.field_meta["jetbrains"]["air"]["sessionFailure"] == records[-1][1]
    if row.prose is not None:
        # Row 20: the prose that became the title is not also agent text.
        texts = run.adapter.agent_texts()
        assert not any(row.prose in t for t in texts), texts


def _check_legacy(row: Row, run: Run) -> None:
    _check_common(row, run)
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
        _safe(message)
    # Row 19: no record, ever, on any carrier.
    assert run.adapter.records() == []
    assert not any(_has_key(m, "sessionFailure") for m in run.adapter.incoming())
    texts = run.adapter.agent_texts()
    if row.prose is not None:
        present = any(row.prose in t for t in texts)
        assert present is row.prose_to_legacy, (row.prose, texts)
    if row.scenario == "model_fallback":
        assert f"**Model fallback:** {FALLBACK_NOTICE}" in texts


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("row", ROWS, ids=[row.scenario for row in ROWS])
async def test_failure_row(adapters: AdapterPool, tmp_path: Path, row: Row) -> None:
    # The two client modes are independent adapter processes (each shared with the other rows of
    # its mode); they run side by side.
    capable, legacy = await asyncio.gather(
        _run(adapters, tmp_path / "capable", row.scenario, capable=True),
        _run(adapters, tmp_path / "legacy", row.scenario, capable=False),
    )
    problems = []
    for mode, check, run in (
        ("capable", _check_capable, capable),
        ("legacy", _check_legacy, legacy),
    ):
        try:
            check(row, run)
        except AssertionError as exc:
            problems.append(f"{mode} client: {exc}")
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.mark.asyncio
async def test_turn_ids_are_fresh_per_prompt(tmp_path: Path) -> None:
    # Row 12 and "a later independent occurrence uses a new id": the same failure twice in one
    # session gives two incidents, each under its own turn's id.
    async with spawn_adapter(tmp_path, "rate_limit") as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "one")
        # Turn 2 of every scenario succeeds; a new session of the same process replays turn 1.
        other = await adapter.new_session()
        await adapter.prompt(other, "two")
        first_ids = adapter.prompt_uuids(session)
        other_ids = adapter.prompt_uuids(other)
    ids = [record["id"] for _, record in adapter.records()]
    assert ids == [f"{first_ids[0]}:error", f"{other_ids[0]}:error"]
    assert len(set(ids)) == 2
    assert all(UUID4.match(i.removesuffix(":error")) for i in ids)
    assert uuid.UUID(first_ids[0]).version == 4
