"""An MCP server of the client's that needs a sign-in, through the agent, the real SDK and the
scripted Claude in process (an "oauth" server of `--mcp-config` needs one; `mcp_authenticate`
answers with its page; the server connects at the second `mcp_status` after, or never for
"oauth-never"): a client declaring `elicitation.url` is sent the page once the session is open,
as the reference adapter sends it, and told when it is done; a declined page leaves the server's
needs-authentication notice; a client without URL elicitation is asked nothing. The page's URL
reaches the form and no title or log line above DEBUG (docs/decisions.md#mcp-sign-in)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from adapter.scripted_claude.local_controls import SIGN_IN_PAGE
from tests.support.form_client import FormClient, action, forms_sent
from tests.support.harness import TIMEOUT, Adapter, record_in, until
from tests.support.scripted_log import claude_log
from tests.support.shell_harness import agent_in_process

URLS: dict[str, Any] = {"elicitation": {"url": {}}}
FORMS: dict[str, Any] = {"elicitation": {"form": {}}}


async def _open(adapter: Adapter, server: str) -> str:
    params = {
        "cwd": str(adapter.workdir),
        "mcpServers": [
            {"type": "http", "name": server, "url": "https://mcp.example/docs", "headers": []}
        ],
    }
    created = await asyncio.wait_for(
        adapter.conn._conn.send_request("session/new", params), TIMEOUT
    )
    return str(created["sessionId"])


def _completions(adapter: Adapter) -> list[dict[str, Any]]:
    return [m["params"] for m in adapter.incoming() if m.get("method") == "elicitation/complete"]


def _sign_in_requests(tmp_path: Path) -> list[dict[str, Any]]:
    return [
        e["request"]
        for e in claude_log(tmp_path)
        if e["kind"] == "control" and e["request"].get("subtype") == "mcp_authenticate"
    ]


def _url_kept_private(adapter: Adapter) -> None:
    titles = [str(u.get("title")) for u in adapter.updates("session_info_update")]
    assert not [t for t in titles if "auth.example" in t]
    logged = [line for line in adapter.stderr().splitlines() if "scripted-state" in line]
    assert [line for line in logged if " DEBUG " not in line] == []


@pytest.mark.asyncio
async def test_a_url_client_signs_in_once_the_session_is_open(tmp_path: Path) -> None:
    client = FormClient(action("accept"))
    async with agent_in_process(tmp_path, "success", client=client, capabilities=URLS) as adapter:
        session = await _open(adapter, "oauth-docs")
        await until(lambda: _completions(adapter), "the page to be done")
        [form] = forms_sent(adapter)
        answer = await adapter.prompt(session, "hello")
    assert form["params"]["mode"] == "url" and form["params"]["sessionId"] == session
    assert form["params"]["url"] == SIGN_IN_PAGE + "oauth-docs"
    assert form["params"]["message"] == "Authenticate with MCP server oauth-docs"
    assert form["params"]["elicitationId"].startswith("mcp-oauth-")
    assert _completions(adapter) == [{"elicitationId": form["params"]["elicitationId"]}]
    assert _sign_in_requests(tmp_path) == [
        {"subtype": "mcp_authenticate", "serverName": "oauth-docs"}
    ]
    # Signed in: no notice of the server, and the session goes on as any other.
    assert [r for _, r in adapter.records() if "oauth-docs" in str(r.get("title"))] == []
    assert getattr(answer, "stop_reason", None) == "end_turn"
    assert 'sign-in to MCP server "oauth-docs": connected' in adapter.stderr()
    _url_kept_private(adapter)


@pytest.mark.asyncio
async def test_a_declined_page_leaves_the_notice(tmp_path: Path) -> None:
    client = FormClient(action("decline"))
    async with agent_in_process(tmp_path, "success", client=client, capabilities=URLS) as adapter:
        await _open(adapter, "oauth-never-docs")

        def told() -> list[dict[str, Any]]:
            found = (record_in(u.get("_meta")) for u in adapter.updates("session_info_update"))
            return [r for r in found if r and "oauth-never-docs" in r.get("title", "")]

        await until(told, "the server's notice")
        [record] = told()
    assert len(forms_sent(adapter)) == 1
    assert _completions(adapter) == []  # declined: the reference completes nothing
    assert record["title"] == 'MCP server "oauth-never-docs" needs authentication \u00b7 run /mcp'
    assert "declined" in adapter.stderr()
    _url_kept_private(adapter)


@pytest.mark.asyncio
async def test_a_client_without_url_elicitation_is_asked_nothing(tmp_path: Path) -> None:
    client = FormClient(action("accept"))
    async with agent_in_process(tmp_path, "success", client=client, capabilities=FORMS) as adapter:
        session = await _open(adapter, "oauth-docs")
        answer = await adapter.prompt(session, "hello")
    assert getattr(answer, "stop_reason", None) == "end_turn"
    assert forms_sent(adapter) == [] and _sign_in_requests(tmp_path) == []


@pytest.mark.asyncio
async def test_mcp_reconnect_signs_in_again(tmp_path: Path) -> None:
    """As the reference does after `/mcp reconnect`: a server of the client's that still needs
    a sign-in gets its page again."""
    client = FormClient(action("decline"))
    async with agent_in_process(tmp_path, "success", client=client, capabilities=URLS) as adapter:
        session = await _open(adapter, "oauth-never-docs")
        await until(lambda: forms_sent(adapter), "the first page")
        await until(lambda: "declined" in adapter.stderr(), "the first sign-in's end")
        answer = await adapter.prompt(session, "/mcp reconnect oauth-never-docs")
        await until(lambda: len(forms_sent(adapter)) == 2, "the second page")
    assert getattr(answer, "stop_reason", None) == "end_turn"
    assert len(_sign_in_requests(tmp_path)) == 2
    assert "Reconnected `oauth-never-docs`" in "".join(adapter.agent_texts())
