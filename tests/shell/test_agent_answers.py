"""What the agent answers without a Claude process, in process (`agent_in_process`: the agent
behind its wire guard and an `acp` client, joined by a socket pair): what `initialize`
advertises (prompt content, session and MCP capabilities, prompt queueing and steering), the
sign-in methods of a client that runs the older terminal-auth, and the AIR session-index methods
for a client that did not declare the index. These were end-to-end tests; nothing in them needs
stdio, a process, the SDK or a signal."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.support.shell_harness import WAIT, agent_in_process

pytestmark = pytest.mark.asyncio

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
    # agent's capabilities, steering in the response's own `_meta` (the steering contract).
    assert caps["_meta"] == {"claudeCode": {"promptQueueing": True}}
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
    async with agent_in_process(tmp_path, client_meta=meta) as agent:
        answers = [await agent.request(m, {"sessionId": "x"}) for m in INDEX_METHODS]
        listed = await agent.request("session/list", {"cwd": str(agent.workdir)})
    assert [a.code for a in answers] == [-32601] * len(INDEX_METHODS)
    assert "nextCursor" not in listed or listed["nextCursor"] is None
    assert all("_meta" not in row for row in listed["sessions"])
