"""The `agent_error` dialect, in process (`agent_in_process`: the agent, the real SDK and the
scripted Claude in this process): opt-in, one update per error, before the response. A Claude
that dies mid-turn is `tests/e2e/test_agent_error.py`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude import TEXTS
from tests.support.agent_error_rows import (
    AGENT_ERROR_ONLY,
    BOTH,
    ERRORS,
    TITLE_ONLY,
    agent_errors,
    check_one_agent_error,
)
from tests.support.shell_harness import agent_in_process, ends_its_process

# A Claude that dies mid-turn is a process ending: that one is end to end.
IN_PROCESS = sorted(s for s in ERRORS if not ends_its_process(s))


@pytest.mark.asyncio
@pytest.mark.parametrize("scenario", IN_PROCESS)
async def test_each_error_becomes_one_agent_error_before_the_response(
    tmp_path: Path, scenario: str
) -> None:
    async with agent_in_process(tmp_path, scenario, client_meta=AGENT_ERROR_ONLY) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    check_one_agent_error(adapter, scenario, answer)


@pytest.mark.asyncio
async def test_retry_delay_and_revision_carry_through_after_warnings(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "retry_then_rate_limit", client_meta=BOTH) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "hello")
    # Warnings are not sent in this dialect; the error is one update.
    [(_, update)] = agent_errors(adapter)
    error = update["error"]
    # Both dialects: the sessionFailure record and the agent_error agree on id and revision.
    carrier, record = adapter.records()[-1]
    assert carrier == "prompt_response"
    assert error["detail"] == {"id": record["id"], "revision": 3, "category": "limit"}
    # The last api_retry frame said it would wait 1000 ms before retrying.
    assert error["retry_after_seconds"] == 1.0
    assert len(adapter.records()) == 3


@pytest.mark.asyncio
async def test_rate_limit_reset_time_reaches_agent_error_but_not_the_title(tmp_path: Path) -> None:
    before = int(time.time() * 1000)
    async with agent_in_process(tmp_path, "usage_limit", client_meta=BOTH) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "hello")
    [(_, update)] = agent_errors(adapter)
    reset = update["error"]["reset_at_epoch_ms"]
    # The scripted Claude's rate_limit_event says the limit resets in an hour.
    assert before + 3_500_000 <= reset <= before + 3_700_000
    [(_, record)] = adapter.records()
    assert record["title"] == TEXTS["usage_limit"]
    assert set(record) == {"id", "revision", "category", "severity", "title", "actions"}


@pytest.mark.asyncio
async def test_warnings_and_notices_are_not_sent_in_this_dialect(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path, "model_fallback", client_meta=AGENT_ERROR_ONLY
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert agent_errors(adapter) == []
    # Only the session's title, never a record.
    assert [u for u in adapter.updates("session_info_update") if set(u) != TITLE_ONLY] == []


# Which declarations are malformed is a table in tests/core/test_negotiation.py; one of them
# here shows that the adapter really treats such a client as legacy.
@pytest.mark.asyncio
async def test_malformed_opt_in_means_legacy(tmp_path: Path) -> None:
    meta = {"agentError": {"version": "1"}}
    async with agent_in_process(tmp_path, "rate_limit", client_meta=meta) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    assert not isinstance(answer, PromptResponse)
    assert answer.code == -32603
    assert agent_errors(adapter) == []
