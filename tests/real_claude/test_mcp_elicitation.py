"""An MCP server that asks the user, with the real Claude Code CLI: the session's
client MCP server (`eliciting_server.py`, a stdio server on the `mcp` package) elicits from
inside its tool, the Messages API double makes the model call that tool, and the ACP client
answers. Asserted at both ends: what the client was asked (`elicitation/create`), what the
server heard (its record file), and the tool result the CLI then sent the model.

What the CLI 2.1.332 does, found here: it speaks MCP 2026-07-28 to a stdio server (no
`initialize`; `server/discover`, a `_meta` envelope per request), where a server may not send
requests of its own, so the question comes as the tool call's `InputRequiredResult`. The CLI
runs its `Elicitation` hooks (an SDK callback's answer is ignored: only its `systemMessage` is
kept), then asks the host with its `elicitation` control request, which the adapter answers;
the answer rides the retried call's `inputResponses` to the server.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest
import pytest_asyncio
from acp.schema import McpServerStdio

from tests.real_claude import eliciting_server as srv
from tests.real_claude.api_double import Answer, MessagesApiDouble, ToolUse, tool_result_text
from tests.real_claude.support import Turn, real_adapter, session_frames
from tests.support.asked_client import AskedClient
from tests.support.harness import TIMEOUT, Adapter, RecordingClient

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

SERVER = Path(srv.__file__).resolve()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def eliciting(
    double: MessagesApiDouble, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[Adapter, AskedClient]]:
    """One adapter whose client declares `elicitation.form` and `elicitation.url`."""
    client = AskedClient()
    async with real_adapter(
        tmp_path_factory.mktemp("real-mcp-elicit"),
        double,
        capable=True,
        client=cast(RecordingClient, client),
        capabilities={"elicitation": {"form": {}, "url": {}}},
    ) as running:
        yield running, client


async def _session_with_server(adapter: Adapter) -> tuple[str, Path]:
    """A new session whose client MCP server is `eliciting_server.py`; its record file."""
    folder = adapter.workdir.parent / f"mcp-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    record = folder / "heard.jsonl"
    server = McpServerStdio(
        name="deploy", command=sys.executable, args=[str(SERVER), str(record)], env=[]
    )
    response = await asyncio.wait_for(
        adapter.conn.new_session(cwd=str(folder), mcp_servers=[server]), TIMEOUT
    )
    return str(response.session_id), record


def _heard(record: Path) -> list[dict[str, Any]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]


def _incoming(adapter: Adapter, start: int, method: str) -> list[dict[str, Any]]:
    return [
        f.message
        for f in adapter.frames[start:]
        if f.direction == "incoming" and f.message.get("method") == method
    ]


def _tool_result(double: MessagesApiDouble, call: ToolUse) -> dict[str, Any]:
    first, second = double.messages()
    assert first.tool_results() == []
    (result,) = second.tool_results()
    assert result["tool_use_id"] == call.id
    return result


async def test_an_mcp_servers_form_is_answered_by_the_client(
    eliciting: tuple[Adapter, AskedClient], double: MessagesApiDouble
) -> None:
    adapter, client = eliciting
    content = {"environment": "staging", "replicas": 2}

    async def fill(form: dict[str, Any]) -> Any:
        return {"action": "accept", "content": content}

    client.answer_form = fill
    session, record = await _session_with_server(adapter)
    call = ToolUse("mcp__deploy__release", {})
    double.script(call, Answer("Released to staging."))
    start = len(adapter.frames)
    answer = await adapter.prompt(session, "release it")
    turn = Turn(session, answer, session_frames(adapter, start, session))

    # The client was asked with the server's own message and schema.
    [form] = [m["params"] for m in _incoming(adapter, start, "elicitation/create")]
    assert form == {
        "mode": "form",
        "sessionId": session,
        "message": srv.RELEASE_MESSAGE,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "environment": {
                    "type": "string",
                    "title": "Environment",
                    "enum": ["staging", "production"],
                },
                "replicas": {
                    "type": "integer",
                    "title": "Replicas",
                    "minimum": 1,
                    "maximum": 5,
                    "default": 1,
                },
            },
            "required": ["environment"],
        },
    }
    # The server heard the client's answer, and the model its tool's result.
    assert _heard(record) == [{"tool": "release", "action": "accept", "content": content}]
    result = _tool_result(double, call)
    assert result.get("is_error") is not True
    assert tool_result_text(result) == srv.said("deploy", "accept", content)
    assert "".join(turn.texts()) == "Released to staging."
    assert turn.response.stop_reason == "end_turn"
    assert turn.records() == []


async def test_an_mcp_servers_page_goes_to_a_url_client_and_its_answer_to_the_server(
    eliciting: tuple[Adapter, AskedClient], double: MessagesApiDouble
) -> None:
    adapter, client = eliciting

    async def go(form: dict[str, Any]) -> Any:
        return {"action": "accept"}

    client.answer_form = go
    session, record = await _session_with_server(adapter)
    call = ToolUse("mcp__deploy__sign_in", {})
    double.script(call, Answer("Signed in."))
    start = len(adapter.frames)
    answer = await adapter.prompt(session, "sign me in")
    turn = Turn(session, answer, session_frames(adapter, start, session))

    [form] = [m["params"] for m in _incoming(adapter, start, "elicitation/create")]
    # MCP 2026-07-28's URL request inside `inputRequests` has no id (the package drops it), so
    # Claude Code's request has none and the adapter makes one, as the reference does.
    ident = form.pop("elicitationId")
    assert uuid.UUID(ident).version == 4
    assert form == {
        "mode": "url",
        "sessionId": session,
        "message": srv.SIGN_IN_MESSAGE,
        "url": srv.SIGN_IN_URL,
    }
    assert _heard(record) == [{"tool": "sign_in", "action": "accept"}]
    result = _tool_result(double, call)
    assert tool_result_text(result) == srv.said("tracker", "accept", None)
    # Found: the server's `notifications/elicitation/complete` (sent before its result) is not
    # taken by the CLI 2.1.332 on this connection (its debug log names no completion), so no
    # `elicitation_complete` frame reaches the adapter, nor `elicitation/complete` the client
    # (the scripted Claude's frame is followed: tests/shell/test_mcp_url_elicitation.py).
    assert _incoming(adapter, start, "elicitation/complete") == []
    assert turn.response.stop_reason == "end_turn"
    # The page's address went to the client's form only: no title, no log line above DEBUG.
    assert "tracker.example" not in json.dumps(turn.updates("session_info_update"))
    logged = [line for line in adapter.stderr().splitlines() if "tracker.example" in line]
    assert [line for line in logged if " DEBUG " not in line] == []
