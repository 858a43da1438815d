"""The adapter end to end: the default demo path, both client modes."""

from __future__ import annotations

from pathlib import Path

import acp
import pytest
from acp.schema import PromptResponse

from tests.support.harness import spawn_adapter


@pytest.mark.asyncio
async def test_retry_warnings_escalate_to_rate_limit_then_next_turn_succeeds(
    tmp_path: Path,
) -> None:
    async with spawn_adapter(tmp_path, "retry_then_rate_limit") as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "hello")
        second = await adapter.prompt(session, "again")
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    records = adapter.records()
    turn_ids = {record["id"] for _, record in records}
    assert len(turn_ids) == 1 and next(iter(turn_ids)).endswith(":error")
    assert [(carrier, r["severity"], r["revision"]) for carrier, r in records] == [
        ("session_info_update", "warning", 1),
        ("session_info_update", "warning", 2),
        ("prompt_response", "error", 3),
    ]
    terminal = records[-1][1]
    assert terminal == {
        "id": terminal["id"],
        "revision": 3,
        "category": "limit",
        "severity": "error",
        "title": "API Error: Request rejected (429) \u00b7 This request would exceed your "
        "account's rate limit. Please try again later.",
        "actions": ["retry"],
    }
    # docs/decisions.md#capable-clients: the prose that became the title is not also streamed as
    # agent text.
    texts = [u["content"]["text"] for u in adapter.updates("agent_message_chunk")]
    assert not any("429" in t for t in texts)


@pytest.mark.asyncio
async def test_legacy_client_gets_json_rpc_error_and_prose(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "retry_then_rate_limit", capable=False) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "hello")
        second = await adapter.prompt(session, "again")
    assert isinstance(first, acp.RequestError)
    assert first.code == -32603
    assert first.data == {"errorKind": "rate_limit"}
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert adapter.records() == []
    texts = [u["content"]["text"] for u in adapter.updates("agent_message_chunk")]
    assert any("429" in t for t in texts)
