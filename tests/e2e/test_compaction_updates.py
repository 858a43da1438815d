"""Compaction for a client that declares `clientCapabilities.session.compaction` (issue 23
item 1), end to end: `compaction_update`s and the streamed summary as
`compaction_summary_chunk`s, not the "Compact conversation" card (which every other client
keeps: `test_session_state.py`), and the same `usage_update` with the context retained.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, spawn_adapter

pytestmark = pytest.mark.e2e


def _update(compaction_id: str, status: str, **fields: Any) -> dict[str, Any]:
    return {
        "sessionUpdate": "compaction_update",
        "compactionId": compaction_id,
        "status": status,
        **fields,
    }


def _chunk(text: str) -> dict[str, Any]:
    return {
        "sessionUpdate": "compaction_summary_chunk",
        "compactionId": "compact-auto",
        "content": {"type": "text", "text": text},
    }


def _retained(used: int) -> dict[str, Any]:
    return {
        "sessionUpdate": "usage_update",
        "used": used,
        "size": 200000,
        "_meta": {"_claude/model": "claude-sonnet-4-5"},
    }


@pytest.mark.asyncio
async def test_a_compaction_client_gets_compaction_updates_and_no_card(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "compaction", initialize=False, capable=False) as adapter:
        # acp 0.12.1's models drop `session.compaction`: the raw request carries it.
        caps = {
            "session": {"compaction": {}},
            "fs": {"readTextFile": False, "writeTextFile": False},
        }
        params = {"protocolVersion": acp.PROTOCOL_VERSION, "clientCapabilities": caps}
        await asyncio.wait_for(adapter.conn._conn.send_request("initialize", params), TIMEOUT)
        session = await adapter.new_session()
        answers = [
            await adapter.prompt(session, text) for text in ("Go on", "/compact", "/compact")
        ]
    assert all(isinstance(a, PromptResponse) and a.stop_reason == "end_turn" for a in answers)
    shown = [
        u
        for u in adapter.updates()
        if u["sessionUpdate"].startswith(("compaction", "tool_call"))
        or (u["sessionUpdate"] == "usage_update" and "cost" not in u and u["used"] > 100)
    ]
    assert shown == [
        _update("compact-auto", "in_progress"),
        _chunk("The user asked for "),
        _chunk("a greeting function."),
        _update("compact-auto", "completed"),
        _retained(12000),
        _update("compact-manual", "in_progress"),
        _update("compact-manual", "completed"),
        _retained(3000),
        _update("compact-failed", "in_progress"),
        _update("compact-failed", "failed", error="Conversation too short to compact"),
    ]
