"""`_meta.claudeCode.emitRawSDKMessages` through the agent and the real SDK in process: a session
opened with it gets Claude Code's messages as Claude wrote them, `_claude/sdkMessage
{sessionId, message}` (only the kinds its filters name), a session opened without it none, and
a malformed value is refused before Claude starts (`fsm.claude.raw_messages`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.support.harness import TIMEOUT
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio

METHOD = "_claude/sdkMessage"


def _raw(adapter: Any) -> list[dict[str, Any]]:
    return [m["params"] for m in adapter.incoming() if m.get("method") == METHOD]


async def _open(adapter: Any, meta: dict[str, Any] | None) -> Any:
    params: dict[str, Any] = {"cwd": str(adapter.workdir), "mcpServers": []}
    if meta is not None:
        params["_meta"] = {"claudeCode": meta}
    return await asyncio.wait_for(adapter.conn._conn.send_request("session/new", params), TIMEOUT)


async def test_a_session_that_asked_gets_the_messages_it_named(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        plain = (await _open(adapter, None))["sessionId"]
        assert isinstance(await adapter.prompt(plain, "hello"), acp.schema.PromptResponse)
        assert _raw(adapter) == []
        filters = [{"type": "assistant"}, {"type": "result", "subtype": "success"}]
        asked = (await _open(adapter, {"emitRawSDKMessages": filters}))["sessionId"]
        assert isinstance(await adapter.prompt(asked, "hello"), acp.schema.PromptResponse)
        raw = _raw(adapter)
    assert {r["sessionId"] for r in raw} == {asked}
    kinds = [r["message"]["type"] for r in raw]
    assert "assistant" in kinds and kinds[-1] == "result", kinds
    assert set(kinds) == {"assistant", "result"}, kinds
    # As Claude wrote it: the frame's own fields, which the SDK's parsed message drops.
    assert raw[-1]["message"]["session_id"] and raw[-1]["message"]["subtype"] == "success"


async def test_a_malformed_choice_is_refused(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        with pytest.raises(acp.RequestError) as refused:
            await _open(adapter, {"emitRawSDKMessages": "everything"})
    assert refused.value.code == -32602
    assert "emitRawSDKMessages" in str(refused.value.data)
