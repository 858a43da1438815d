"""Notices in each client's form (docs/decisions.md#model-fallback, #acp-notices and
#mcp-server-problems): MCP servers that Claude Code reports failed or needing auth, statuses of
unknown shapes, and a model fallback, through the agent, the real SDK and the scripted Claude in
process (`agent_in_process`), for a sessionFailure client, an ACP-notices client, an
`agent_error` client and a legacy one. Each asserts the exact frames.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio

NOTICES: dict[str, Any] = {"session": {"notices": {}}}
AGENT_ERROR: dict[str, Any] = {"agentError": {"version": 1}}
FAILED_TITLE = 'MCP server "db" failed to start'
AUTH_TITLE = 'MCP server "docs" needs authentication'
FAILED_WORDS = "Its tools are unavailable in this session. Run /mcp for the error."
AUTH_WORDS = "Its tools are unavailable until the server is authenticated."
REPLIES = ["Scripted reply to: one", "Scripted reply to: two"]
FALLBACK = (
    "claude-opus-4-5 declined this request (cyber); retried with claude-sonnet-4-5. "
    "The session will continue on claude-sonnet-4-5."
)


def _kwargs(kind: str) -> dict[str, Any]:
    if kind == "records":
        return {"capable": True}
    if kind == "acp_notices":
        return {"capable": False, "initialize": False}
    if kind == "agent_error":
        return {"capable": False, "client_meta": AGENT_ERROR}
    return {"capable": False}


@asynccontextmanager
async def _adapter(
    tmp_path: Path, scenario: str, kind: str, env: dict[str, str] | None = None
) -> AsyncIterator[Adapter]:
    async with agent_in_process(tmp_path, scenario, env=env, **_kwargs(kind)) as adapter:
        if kind == "acp_notices":
            # `acp` 0.12.1 drops `session.notices` when it parses: the raw initialize has it.
            caps = {**NOTICES, "fs": {"readTextFile": False, "writeTextFile": False}}
            params = {"protocolVersion": acp.PROTOCOL_VERSION, "clientCapabilities": caps}
            await asyncio.wait_for(adapter.conn._conn.send_request("initialize", params), TIMEOUT)
        yield adapter


async def _two_turns(tmp_path: Path, scenario: str, kind: str) -> tuple[Adapter, str]:
    env = {"CLAUDE_ACP_LOG": "INFO"}
    async with _adapter(tmp_path, scenario, kind, env) as adapter:
        session = await adapter.new_session()
        answers = [await adapter.prompt(session, text) for text in ("one", "two")]
        assert adapter.answers() == {k: 1 for k in adapter.answers()}  # each prompt once
    assert all(isinstance(a, PromptResponse) and a.stop_reason == "end_turn" for a in answers)
    return adapter, session


def _texts_with_meta(adapter: Adapter) -> list[tuple[str, Any]]:
    return [
        (u["content"]["text"], u.get("_meta"))
        for u in adapter.updates("agent_message_chunk")
        if "messageId" not in u
    ]


async def test_mcp_problems_are_warning_records_for_a_session_failure_client(
    tmp_path: Path,
) -> None:
    adapter, session = await _two_turns(tmp_path, "mcp_problems", "records")
    records = adapter.records()
    assert [carrier for carrier, _ in records] == ["session_info_update"] * 2
    first, second = (record for _, record in records)
    assert set(first) == {"id", "revision", "category", "severity", "title", "actions"}
    assert (first["category"], first["severity"], first["title"], first["actions"]) == (
        "service",
        "warning",
        FAILED_TITLE,
        [],
    )
    assert (second["category"], second["severity"], second["title"], second["actions"]) == (
        "access",
        "warning",
        f"{AUTH_TITLE} \u00b7 run /mcp",
        [],
    )
    assert first["revision"] == second["revision"] == 1
    assert first["id"].startswith(f"{session}:notice:") and first["id"] != second["id"]
    # Once per server and state: the second turn's init says the same and adds nothing.
    assert adapter.updates("notice") == [] and adapter.agent_texts() == REPLIES


async def test_mcp_problems_are_acp_notices_for_a_notices_client(tmp_path: Path) -> None:
    adapter, _ = await _two_turns(tmp_path, "mcp_problems", "acp_notices")
    assert adapter.updates("notice") == [
        {
            "sessionUpdate": "notice",
            "severity": "warning",
            "title": FAILED_TITLE,
            "description": FAILED_WORDS,
        },
        {
            "sessionUpdate": "notice",
            "severity": "info",
            "title": AUTH_TITLE,
            "description": AUTH_WORDS,
        },
    ]
    assert adapter.records() == [] and adapter.agent_texts() == REPLIES


@pytest.mark.parametrize("kind", ["legacy", "agent_error"])
async def test_mcp_problems_are_the_references_text_for_other_clients(
    tmp_path: Path, kind: str
) -> None:
    adapter, _ = await _two_turns(tmp_path, "mcp_problems", kind)
    assert _texts_with_meta(adapter) == [
        (
            f"**{FAILED_TITLE}:** {FAILED_WORDS}",
            {"claudeCode": {"kind": "mcpServerStatus", "server": "db", "status": "failed"}},
        ),
        (
            f"**{AUTH_TITLE}:** {AUTH_WORDS}",
            {"claudeCode": {"kind": "mcpServerStatus", "server": "docs", "status": "needs-auth"}},
        ),
    ]
    assert adapter.records() == [] and adapter.updates("notice") == []
    assert adapter.updates("agent_error") == []


@pytest.mark.parametrize("kind", ["records", "acp_notices", "legacy"])
async def test_statuses_of_unknown_shapes_are_logged_once_and_leak_nothing(
    tmp_path: Path, kind: str
) -> None:
    adapter, _ = await _two_turns(tmp_path, "mcp_unknown_shapes", kind)
    # The one readable problem, a server named by a private path, is told without its name.
    title = "An MCP server failed to start"
    if kind == "records":
        assert [(r["title"], r["category"]) for _, r in adapter.records()] == [(title, "service")]
    elif kind == "acp_notices":
        assert [n["title"] for n in adapter.updates("notice")] == [title]
    else:
        assert [t for t, _ in _texts_with_meta(adapter)] == [f"**{title}:** {FAILED_WORDS}"]
    shown = str(adapter.updates()) + str(adapter.records())
    assert "token" not in shown and "secret-server" not in shown and "example.com" not in shown
    assert adapter.stderr().count("ignored an MCP server status of an unknown shape") == 1


@pytest.mark.parametrize("kind", ["records", "acp_notices", "agent_error", "legacy"])
async def test_a_model_fallback_reaches_every_client_in_its_form(tmp_path: Path, kind: str) -> None:
    async with _adapter(tmp_path, "model_fallback", kind) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "one")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    texts = [t for t, _ in _texts_with_meta(adapter)]
    if kind == "records":
        [(carrier, record)] = adapter.records()
        assert (carrier, record["category"], record["severity"], record["title"]) == (
            "session_info_update",
            "unknown",
            "warning",
            FALLBACK,
        )
        assert texts == [] and adapter.updates("notice") == []
    elif kind == "acp_notices":
        assert adapter.updates("notice") == [
            {"sessionUpdate": "notice", "severity": "warning", "title": FALLBACK}
        ]
        assert texts == [] and adapter.records() == []
    else:
        assert texts == [f"**Model fallback:** {FALLBACK}"]
        assert adapter.records() == [] and adapter.updates("notice") == []
