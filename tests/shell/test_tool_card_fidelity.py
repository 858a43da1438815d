"""Tool cards as the reference adapter draws them, through the agent, the real SDK and the
scripted Claude in process (`agent_in_process`): a subagent's report without the trailer meant
for the model, Skill and PowerShell cards, a sandbox network question titled by its host, a call
Claude Code's rules refused (`system/permission_denied`) failed with the reason, server-side
tool blocks and a memory recall as cards, and `_meta.terminal_output_delta` for a client that
declares it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.steps import (
    Permission,
    RawFrame,
    Reply,
    Result,
    Scenario,
    ToolResult,
    ToolUse,
)
from tests.support.harness import OPT_IN, Adapter
from tests.support.shell_harness import agent_in_process

# The scripted Claude's turns these tests play, besides the shipped scenarios.
REPORT = (
    "Found the bug in parser.py.\n"
    "agentId: a1b2c3 (use SendMessage with to: 'a1b2c3' to continue this agent)\n"
    "<usage>total_tokens: 912\ntool_uses: 3\nduration_ms: 4000</usage>"
)
server = RawFrame(
    frame={
        "type": "assistant",
        "parent_tool_use_id": None,
        "session_id": "x",
        "message": {
            "id": "m-server",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [
                {
                    "type": "server_tool_use",
                    "id": "srv1",
                    "name": "web_search",
                    "input": {"query": "acp spec"},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srv1",
                    "content": [
                        {"type": "web_search_result", "title": "ACP", "url": "https://acp.dev"}
                    ],
                },
                {"type": "server_tool_use", "id": "srv2", "name": "advisor", "input": {}},
                {
                    "type": "advisor_tool_result",
                    "tool_use_id": "srv2",
                    "content": {"type": "advisor_tool_result_error", "error_code": "overloaded"},
                },
            ],
        },
    }
)
MINE = [
    Scenario(
        name="cards",
        description="",
        turns=(
            (
                ToolUse(
                    name="Agent",
                    id="ag1",
                    input={"description": "Find the bug", "prompt": "Look", "effort": "high"},
                    result=REPORT,
                ),
                ToolUse(
                    name="Skill", id="sk1", input={"skill": "pdf"}, result="Launching skill: pdf"
                ),
                ToolUse(
                    name="PowerShell",
                    id="ps1",
                    input={"command": "Get-ChildItem"},
                    result="README.md",
                ),
                ToolUse(name="Bash", id="deny1", input={"command": "rm -rf build"}, result=None),
                RawFrame(
                    frame={
                        "type": "system",
                        "subtype": "permission_denied",
                        "session_id": "x",
                        "uuid": "pd1",
                        "tool_use_id": "deny1",
                        "tool_name": "Bash",
                        "decision_reason_type": "classifier",
                        "decision_reason": "Deleting files needs your approval",
                    }
                ),
                ToolResult(
                    id="deny1", result="Permission to use Bash has been denied.", is_error=True
                ),
                RawFrame(
                    frame={
                        "type": "system",
                        "subtype": "permission_denied",
                        "session_id": "x",
                        "uuid": "pd2",
                        "tool_use_id": "nobody",
                    }
                ),
                server,
                RawFrame(
                    frame={
                        "type": "system",
                        "subtype": "memory_recall",
                        "session_id": "x",
                        "uuid": "mem1",
                        "mode": "select",
                        "memories": [{"path": "/memories/MEMORY.md"}, {"path": "/m/b.md"}],
                    }
                ),
                Permission(
                    tool_name="SandboxNetworkAccess", input={"host": "pypi.org"}, result="ok"
                ),
                Reply(),
                Result(),
            ),
        ),
    ),
]


async def _run(tmp_path: Path, **kwargs: Any) -> Adapter:
    async with agent_in_process(tmp_path, "cards", scenarios=MINE, **kwargs) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "look")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    return adapter


def _for(adapter: Adapter, tool_id: str) -> list[dict[str, Any]]:
    return [u for u in adapter.updates() if u.get("toolCallId") == tool_id]


def _title(adapter: Adapter, tool_id: str) -> str:
    # A streamed call's card opens before its input is whole; the refinement names it.
    return str([u["title"] for u in _for(adapter, tool_id) if "title" in u][-1])


def _last_content(adapter: Adapter, tool_id: str) -> list[Any]:
    contents: list[list[Any]] = [u["content"] for u in _for(adapter, tool_id) if "content" in u]
    return contents[-1]


@pytest.mark.asyncio
async def test_cards_as_the_reference_draws_them(tmp_path: Path) -> None:
    adapter = await _run(tmp_path)
    opened = {u["toolCallId"]: u for u in adapter.updates("tool_call")}
    # The subagent's report, without `agentId: … (use SendMessage …)` and `<usage>`.
    assert _title(adapter, "ag1") == "Find the bug (high effort)"
    report = _last_content(adapter, "ag1")
    assert report == [
        {"type": "content", "content": {"type": "text", "text": "Found the bug in parser.py."}}
    ]
    assert (_title(adapter, "sk1"), opened["sk1"]["kind"]) == ("Load skill: pdf", "other")
    assert (_title(adapter, "ps1"), opened["ps1"]["kind"]) == ("Get-ChildItem", "execute")
    assert _last_content(adapter, "ps1")[0]["content"]["text"] == "```console\nREADME.md\n```"
    # Refused by Claude Code's classifier: failed with the reason, the later result not shown.
    denied = _for(adapter, "deny1")
    assert denied[-1] == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "deny1",
        "status": "failed",
        "content": [
            {
                "type": "content",
                "content": {
                    "type": "text",
                    "text": "Permission denied: Deleting files needs your approval",
                },
            }
        ],
        # This client is an AIR client: the tool's name, which the card's opening said, is
        # not sent again (`fsm.ChangedMetaFilter`).
        "_meta": {"claudeCode": {"toolResponse": {"decisionReasonType": "classifier"}}},
    }
    assert _for(adapter, "nobody") == []  # a denial of no open call changes nothing
    # Server-side tools: cards that run and end in the same message.
    assert opened["srv1"]["title"] == "web_search"
    assert [u.get("status") for u in _for(adapter, "srv1")][-1] == "completed"
    assert _last_content(adapter, "srv1")[0]["content"]["text"] == "ACP https://acp.dev"
    assert [u.get("status") for u in _for(adapter, "srv2")][-1] == "failed"
    assert opened["mem1"] == {
        "sessionUpdate": "tool_call",
        "toolCallId": "mem1",
        "title": "Recalled 2 memories",
        "kind": "read",
        "status": "completed",
        "locations": [{"path": "/memories/MEMORY.md"}, {"path": "/m/b.md"}],
        "_meta": {"claudeCode": {"toolName": "memory_recall", "toolResponse": {"mode": "select"}}},
    }
    # The sandbox's network question names the host, not "SandboxNetworkAccess".
    [asked] = [
        m["params"]["toolCall"]
        for m in adapter.incoming()
        if m.get("method") == "session/request_permission"
    ]
    assert asked["title"] == "pypi.org"


@pytest.mark.asyncio
@pytest.mark.parametrize("declared", ["terminal_output", "terminal_output_delta"])
async def test_terminal_output_in_the_form_the_client_declared(
    tmp_path: Path, declared: str
) -> None:
    adapter = await _run(tmp_path, client_meta={**OPT_IN, declared: True})
    outputs = [u["_meta"] for u in _for(adapter, "ps1") if "_meta" in u]
    data = {"terminal_id": "ps1", "data": "README.md"}
    assert {declared: data} in outputs
    other = "terminal_output" if declared == "terminal_output_delta" else "terminal_output_delta"
    assert not any(other in meta for meta in outputs)
    assert any("terminal_exit" in meta for meta in outputs)
