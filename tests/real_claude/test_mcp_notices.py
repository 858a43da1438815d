"""An MCP server that fails to start, with the real Claude Code CLI
(docs/decisions.md#mcp-server-problems): the client's stdio server names a command that does not
exist, the CLI reports it `failed` in its init frame, and the client hears of it in its form: a
capable client as a `service` warning record in the notice namespace, a legacy one as the
reference's bold text.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest
from acp.schema import McpServerStdio

from tests.real_claude.api_double import Answer, MessagesApiDouble
from tests.real_claude.support import Turn, session_frames
from tests.support.harness import TIMEOUT, Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

TITLE = 'MCP server "missing-tool" failed to start'
WORDS = "Its tools are unavailable in this session. Run /mcp for the error."


async def test_a_server_that_cannot_start_is_told_once(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    folder = adapter.workdir.parent / f"mcp-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    server = McpServerStdio(
        name="missing-tool", command=str(folder / "no-such-server"), args=[], env=[]
    )
    response = await asyncio.wait_for(
        adapter.conn.new_session(cwd=str(folder), mcp_servers=[server]), TIMEOUT
    )
    session_id = str(response.session_id)
    double.script(Answer("First."), Answer("Second."))
    turns = []
    for text in ("one", "two"):
        start = len(adapter.frames)
        answer = await adapter.prompt(session_id, text)
        turns.append(Turn(session_id, answer, session_frames(adapter, start, session_id)))
    assert [t.response.stop_reason for t in turns] == ["end_turn", "end_turn"]
    records = [record for turn in turns for _, record in turn.records()]
    notes = [
        (u["content"]["text"], u.get("_meta"))
        for turn in turns
        for u in turn.updates("agent_message_chunk")
        if "messageId" not in u
    ]
    if mode == "capable":
        assert [(r["category"], r["severity"], r["title"], r["actions"]) for r in records] == [
            ("service", "warning", TITLE, [])
        ]
        assert ":notice:" in records[0]["id"] and notes == []
    else:
        status = {"kind": "mcpServerStatus", "server": "missing-tool", "status": "failed"}
        assert notes == [(f"**{TITLE}:** {WORDS}", {"claudeCode": status})]
        assert records == []
    # The path of the command is no one's business but the log's.
    assert "no-such-server" not in str([t.frames for t in turns])
