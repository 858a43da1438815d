"""Claude messages of many MiB: delivered normally under the default limit; one over
a configured limit (CLAUDE_ACP_MAX_MESSAGE_BYTES) fails only its turn, with a clear record (not
"connection lost"), and the session's next prompt works with a fresh Claude process."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import PromptResponse

from tests.support.harness import spawn_adapter

SIX_MIB = 6 * 1024 * 1024
ONE_MIB = str(1024 * 1024)
LOST = "The connection to Claude was lost."


@pytest.mark.asyncio
async def test_a_6_mib_message_is_delivered_whole(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "large_message") as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "read the big file")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert set(answer.field_meta or {}) <= {"quota"}  # no failure record, only its usage split
    texts = adapter.agent_texts()
    assert sum(len(t) for t in texts) == SIX_MIB
    assert adapter.records() == []


@pytest.mark.asyncio
async def test_a_message_over_the_limit_fails_only_its_turn(tmp_path: Path) -> None:
    env = {"CLAUDE_ACP_MAX_MESSAGE_BYTES": ONE_MIB}
    async with spawn_adapter(tmp_path, "large_message", env=env) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "read the big file")
        second = await adapter.prompt(session, "and now something small")
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    [(carrier, record)] = adapter.records()
    assert carrier == "prompt_response"
    assert record["category"] == "limit" and record["severity"] == "error"
    assert "larger than 1 MiB" in record["title"] and LOST not in record["title"]
    assert "CLAUDE_ACP_MAX_MESSAGE_BYTES" in record["title"]
    # Only that turn: the next prompt gets a fresh Claude (resuming the session) and succeeds.
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert set(second.field_meta or {}) <= {"quota"}  # no failure record, only its usage split
    assert "Scripted reply to: and now something small" in adapter.agent_texts()


@pytest.mark.asyncio
async def test_a_legacy_client_gets_a_clear_error_for_a_message_over_the_limit(
    tmp_path: Path,
) -> None:
    env = {"CLAUDE_ACP_MAX_MESSAGE_BYTES": ONE_MIB}
    async with spawn_adapter(tmp_path, "large_message", capable=False, env=env) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "read the big file")
        second = await adapter.prompt(session, "again")
    assert isinstance(first, RequestError) and first.code == -32603
    assert first.data == {"errorKind": "message_too_large"}
    assert "larger than 1 MiB" in str(first) and LOST not in str(first)
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
