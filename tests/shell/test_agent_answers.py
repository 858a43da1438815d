"""What the agent answers without a Claude process, in process (`agent_in_process`: the agent
behind its wire guard and an `acp` client, joined by a socket pair): what `initialize`
advertises (prompt content, session and MCP capabilities, prompt queueing and steering), the
sign-in methods of a client that runs the older terminal-auth, the AIR session-index methods for
a client that did not declare the index, `session/list` among huge and broken transcripts, and
`session/delete` of ids nobody knows. These were end-to-end tests; nothing in them needs stdio, a
process, the SDK or a signal."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.support.huge_transcripts import write_transcripts
from tests.support.shell_harness import WAIT, agent_in_process

pytestmark = pytest.mark.asyncio

AGENT_ERROR: dict[str, Any] = {"agentError": {"version": 1}}
AIR_WITHOUT_INDEX: dict[str, Any] = {
    "jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}
}
INDEX_METHODS = (
    "_session/batch_get",
    "_session/rename",
    "_session/archive",
    "_session/unarchive",
    "_session/list/subscribe",
    "_session/list/unsubscribe",
)


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True)
    return dumped


async def test_prompt_capabilities_say_what_works(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, initialize=False) as agent:
        response = await asyncio.wait_for(
            agent.conn.initialize(protocol_version=acp.PROTOCOL_VERSION), WAIT
        )
    caps = response.agent_capabilities.prompt_capabilities
    assert (caps.image, caps.embedded_context, caps.audio) == (True, True, False)


async def test_initialize_advertises_session_and_mcp_capabilities(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, initialize=False) as agent:
        answer = await asyncio.wait_for(
            agent.conn.initialize(protocol_version=acp.PROTOCOL_VERSION), WAIT
        )
    caps = _dump(answer.agent_capabilities)
    assert set(caps["sessionCapabilities"]) >= {"list", "resume", "fork", "close"}
    mcp = caps["mcpCapabilities"]
    assert mcp["http"] is True and mcp["sse"] is True and not mcp.get("acp")
    assert [m.id for m in answer.auth_methods] == ["claude-login"]
    # Prompt queueing and steering, where the reference advertises them: queueing among the
    # agent's capabilities, steering in the response's own `_meta` (the steering contract);
    # `authStatus` empty: its pushes carry the identity (docs/reference-adapter.md#auth-status).
    assert caps["_meta"] == {"claudeCode": {"promptQueueing": True}, "authStatus": {}}
    assert answer.field_meta == {"steering": {"supported": True}}


async def test_legacy_terminal_auth_names_the_command(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, client_meta={"terminal-auth": True}) as agent:
        answer = next(m["result"] for m in agent.incoming() if "authMethods" in m.get("result", {}))
    by_id = {m["id"]: m for m in answer["authMethods"]}
    label = by_id["claude-ai-login"]["_meta"]["terminal-auth"]
    assert label["args"] == ["login", "--claudeai"] and os.path.isabs(label["command"])


@pytest.mark.parametrize("meta", [AIR_WITHOUT_INDEX, None], ids=["air", "plain"])
async def test_without_the_capability_every_index_method_is_unknown(
    tmp_path: Path, meta: dict[str, Any] | None
) -> None:
    async with agent_in_process(tmp_path, client_meta=meta, capable=meta is not None) as agent:
        answers = [await agent.request(m, {"sessionId": "x"}) for m in INDEX_METHODS]
        listed = await agent.request("session/list", {"cwd": str(agent.workdir)})
    assert [a.code for a in answers] == [-32601] * len(INDEX_METHODS)
    assert "nextCursor" not in listed or listed["nextCursor"] is None
    assert all("_meta" not in row for row in listed["sessions"])


async def test_session_list_answers_with_the_readable_among_huge_transcripts(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path) as agent:
        ids = write_transcripts(agent.config_dir, agent.workdir)
        for cwd in (str(agent.workdir), None):
            listed = await asyncio.wait_for(agent.conn.list_sessions(cwd=cwd), WAIT)
            titles = {s.session_id: s.title for s in listed.sessions}
            assert set(titles) == set(ids.values())
            assert titles[ids["huge"]] == "before the huge line"
            assert titles[ids["many"]] == "the first of many lines"
            assert titles[ids["corrupt"]] == "before the corrupt tail"
            # Its first line runs far past the head the listing reads: listed under its start.
            long_title = titles[ids["long_first"]]
            assert long_title is not None and long_title.startswith("LLLL"), long_title
            assert len(long_title) <= 201
    assert set(agent.answers("session/list").values()) == {1}


async def test_a_delete_of_an_unknown_or_malformed_id_is_refused(tmp_path: Path) -> None:
    # A client with a failure dialect that is not JetBrains AIR: its delete removes.
    async with agent_in_process(tmp_path, client_meta=AGENT_ERROR) as agent:
        unknown = await agent.request(
            "session/delete", {"sessionId": "00000000-0000-4000-8000-000000000000"}
        )
        not_a_uuid = await agent.request("session/delete", {"sessionId": "../../etc"})
        empty = await agent.request("session/delete", {"sessionId": ""})
        wrong_type = await agent.request("session/delete", {"sessionId": 7})
        capabilities = [
            m["result"]["agentCapabilities"]["sessionCapabilities"]
            for m in agent.incoming()
            if isinstance(m.get("result"), dict) and "agentCapabilities" in m["result"]
        ]
    refused = (unknown, not_a_uuid, empty, wrong_type)
    assert all(isinstance(answer, acp.RequestError) for answer in refused)
    assert (unknown.code, not_a_uuid.code) == (-32002, -32002)
    assert (empty.code, wrong_type.code) == (-32602, -32602)
    assert "sessionId" in (empty.data or {})
    assert capabilities[0]["delete"] == {}
