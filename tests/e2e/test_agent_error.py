"""The `agent_error` dialect end to end: opt-in, one update per error, before the response."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude import TEXTS
from tests.support.harness import OPT_IN, Adapter, AdapterPool

TITLE_ONLY = {"sessionUpdate", "title", "updatedAt"}

AGENT_ERROR_ONLY: dict[str, Any] = {"agentError": {"version": 1}}
BOTH: dict[str, Any] = {**OPT_IN, **AGENT_ERROR_ONLY}

# scenario -> (type, retryable, message, category)
ERRORS: dict[str, tuple[str, bool, str, str]] = {
    "rate_limit": ("rate_limit", True, TEXTS["rate_limit"], "limit"),
    "billing_error": ("budget", False, TEXTS["billing_error"], "limit"),
    "usage_limit": ("budget", False, TEXTS["usage_limit"], "limit"),
    "budget_limit": ("budget", False, TEXTS["budget_limit"], "limit"),
    "turn_limit": ("context_overflow", False, TEXTS["turn_limit"], "limit"),
    "max_output_tokens": ("context_overflow", False, TEXTS["max_output_tokens"], "limit"),
    "authentication_failed": ("auth", False, TEXTS["authentication_failed"], "access"),
    "verification_required": ("auth", True, TEXTS["verification_required"], "access"),
    "invalid_request": ("unknown", False, TEXTS["invalid_request"], "request"),
    "overloaded": ("provider_unavailable", True, TEXTS["overloaded"], "service"),
    "unknown_error": ("provider_unavailable", True, TEXTS["unknown_error"], "service"),
    "crash_mid_turn": (
        "provider_unavailable",
        False,
        "The connection to Claude was lost.",
        "connection",
    ),
}


def _agent_errors(adapter: Adapter) -> list[tuple[int, dict[str, Any]]]:
    """(frame index, update) for every agent_error update the client received."""
    return [
        (index, frame.message["params"]["update"])
        for index, frame in enumerate(adapter.frames)
        if frame.direction == "incoming"
        and frame.message.get("method") == "session/update"
        and frame.message["params"]["update"].get("sessionUpdate") == "agent_error"
    ]


def _prompt_response_index(adapter: Adapter) -> int:
    prompt_ids = {
        f.message["id"]
        for f in adapter.frames
        if f.direction == "outgoing" and f.message.get("method") == "session/prompt"
    }
    return next(
        i
        for i, f in enumerate(adapter.frames)
        if f.direction == "incoming" and f.message.get("id") in prompt_ids
    )


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("scenario", sorted(ERRORS))
async def test_each_error_becomes_one_agent_error_before_the_response(
    adapters: AdapterPool, tmp_path: Path, scenario: str
) -> None:
    async with adapters.session_adapter(
        tmp_path, scenario, client_meta=AGENT_ERROR_ONLY
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    # Only the agent_error dialect was asked for: no sessionFailure record anywhere.
    assert adapter.records() == []
    [(index, update)] = _agent_errors(adapter)
    assert index < _prompt_response_index(adapter)
    kind, retryable, message, category = ERRORS[scenario]
    error = update["error"]
    assert update["stopReason"] == "error"
    assert error["type"] == kind
    assert error["message"] == message
    assert error["retryable"] is retryable
    assert error["source"] == "claude"
    assert error["detail"]["category"] == category
    assert error["detail"]["id"].endswith(":error")
    # Retry warnings are not sent in this dialect (docs/decisions.md#agent-error-only-clients:
    # nothing for retry progress), so they are no revisions either: the error is the incident's
    # first.
    assert error["detail"]["revision"] == 1
    assert set(error) <= {
        "type",
        "message",
        "retryable",
        "detail",
        "retry_after_seconds",
        "reset_at_epoch_ms",
        "source",
    }


@pytest.mark.asyncio(loop_scope="module")
async def test_retry_delay_and_revision_carry_through_after_warnings(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(
        tmp_path, "retry_then_rate_limit", client_meta=BOTH
    ) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "hello")
    # Warnings are not sent in this dialect; the error is one update.
    [(_, update)] = _agent_errors(adapter)
    error = update["error"]
    # Both dialects: the sessionFailure record and the agent_error agree on id and revision.
    carrier, record = adapter.records()[-1]
    assert carrier == "prompt_response"
    assert error["detail"] == {"id": record["id"], "revision": 3, "category": "limit"}
    # The last api_retry frame said it would wait 1000 ms before retrying.
    assert error["retry_after_seconds"] == 1.0
    assert len(adapter.records()) == 3


@pytest.mark.asyncio(loop_scope="module")
async def test_rate_limit_reset_time_reaches_agent_error_but_not_the_title(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    before = int(time.time() * 1000)
    async with adapters.session_adapter(tmp_path, "usage_limit", client_meta=BOTH) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "hello")
    [(_, update)] = _agent_errors(adapter)
    reset = update["error"]["reset_at_epoch_ms"]
    # The scripted Claude's rate_limit_event says the limit resets in an hour.
    assert before + 3_500_000 <= reset <= before + 3_700_000
    [(_, record)] = adapter.records()
    assert record["title"] == TEXTS["usage_limit"]
    assert set(record) == {"id", "revision", "category", "severity", "title", "actions"}


@pytest.mark.asyncio(loop_scope="module")
async def test_warnings_and_notices_are_not_sent_in_this_dialect(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(
        tmp_path, "model_fallback", client_meta=AGENT_ERROR_ONLY
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert _agent_errors(adapter) == []
    # Only the session's title, never a record.
    assert [u for u in adapter.updates("session_info_update") if set(u) != TITLE_ONLY] == []


# Which declarations are malformed is a table in tests/core/test_negotiation.py; one of them
# here shows that the adapter really treats such a client as legacy.
@pytest.mark.asyncio(loop_scope="module")
async def test_malformed_opt_in_means_legacy(adapters: AdapterPool, tmp_path: Path) -> None:
    meta = {"agentError": {"version": "1"}}
    async with adapters.session_adapter(tmp_path, "rate_limit", client_meta=meta) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    assert not isinstance(answer, PromptResponse)
    assert answer.code == -32603
    assert _agent_errors(adapter) == []
