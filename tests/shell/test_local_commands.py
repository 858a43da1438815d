"""`/usage` and `/mcp [reconnect|enable|disable]`: answered with the reference adapter's markdown
from Claude Code's own control calls, never a model turn, never empty. In process
(`agent_in_process`): the agent, a real ACP client and the scripted Claude in this process."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp.schema import EnvVariable, McpServerStdio, PromptResponse

from tests.support.harness import TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process

USAGE = """## Usage

> Claude Max subscription usage

### Limits

**5-hour limit** — **37%** · Resets Jan 1, 3:00 PM UTC

`███████░░░░░░░░░░░░░`

**Weekly · all models** — **12%**

`██░░░░░░░░░░░░░░░░░░`

---

### This session

| Cost | API time | Active |
|:--|:--|:--|
| $0.42 | 1m 5s | 5m |

| Breakdown | Tokens |
|:--|--:|
| Input | 1.2K |
| Output | 3.4K |
| Cache read | 120K |
| Cache write | 8K |"""

HINT = (
    "Run `/mcp reconnect <server>` to reconnect one server, or `/mcp reconnect` to reconnect "
    "every server that is not connected and not disabled."
)
FAILED = "**Failed**\n- `broken-db`: connect ECONNREFUSED 127.0.0.1:5432. Is the database running?"


def _status(*blocks: str, counts: str) -> str:
    return "\n\n".join([f"**MCP servers:** 2 ({counts})", *blocks, HINT])


BOTH = _status(FAILED, "**Connected**\n- `fs`: 0 tools", counts="1 failed, 1 connected")
FS_DISABLED = _status(FAILED, "**Disabled:** `fs`", counts="1 failed, 1 disabled")


def _server(name: str) -> McpServerStdio:
    env: list[EnvVariable] = []
    return McpServerStdio(name=name, command="/bin/true", args=[], env=env)


def _controls(tmp_path: Path) -> list[str]:
    path = tmp_path / "claude-log.jsonl"
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [str(e["request"]["subtype"]) for e in entries if e["kind"] == "control"]


async def _run(tmp_path: Path, *prompts: str) -> tuple[Adapter, list[Any]]:
    async with agent_in_process(tmp_path, "success") as adapter:
        created = await asyncio.wait_for(
            adapter.conn.new_session(
                cwd=str(adapter.workdir), mcp_servers=[_server("broken-db"), _server("fs")]
            ),
            TIMEOUT,
        )
        session = str(created.session_id)
        answers = [await adapter.prompt(session, text) for text in prompts]
    return adapter, answers


def _ended(answers: list[Any]) -> bool:
    return all(isinstance(a, PromptResponse) and a.stop_reason == "end_turn" for a in answers)


@pytest.mark.asyncio
async def test_usage_is_rendered_from_claude_codes_usage_call(tmp_path: Path) -> None:
    adapter, answers = await _run(tmp_path, "/usage")
    assert adapter.agent_texts() == [USAGE] and _ended(answers)
    assert "get_usage" in _controls(tmp_path)
    # No model turn: Claude was never sent the prompt.
    assert adapter.prompt_uuids(adapter_session(adapter)) == []


def adapter_session(adapter: Adapter) -> str:
    [created] = [
        m["result"]["sessionId"]
        for m in adapter.incoming()
        if isinstance(m.get("result"), dict) and "sessionId" in m["result"]
    ]
    return str(created)


@pytest.mark.asyncio
async def test_mcp_shows_the_servers_and_is_listed_as_a_command(tmp_path: Path) -> None:
    adapter, answers = await _run(tmp_path, "/mcp")
    assert adapter.agent_texts() == [BOTH] and _ended(answers)
    [listed] = adapter.updates("available_commands_update")
    mcp = next(c for c in listed["availableCommands"] if c["name"] == "mcp")
    assert mcp["input"] == {"hint": "[reconnect|enable|disable [<server>|all]]"}
    assert adapter.prompt_uuids(adapter_session(adapter)) == []


@pytest.mark.asyncio
async def test_mcp_disable_and_enable_go_to_claude_code(tmp_path: Path) -> None:
    adapter, answers = await _run(tmp_path, "/mcp disable fs", "/mcp enable all", "/mcp enable all")
    assert adapter.agent_texts() == [
        "- Disabled `fs`\n\n" + FS_DISABLED,
        "- Enabled `fs`\n\n" + BOTH,
        "Every MCP server is already enabled.\n\n" + BOTH,
    ]
    assert _ended(answers)
    assert _controls(tmp_path).count("mcp_toggle") == 2


@pytest.mark.asyncio
async def test_mcp_actions_that_fail_or_name_nothing_say_so(tmp_path: Path) -> None:
    adapter, answers = await _run(
        tmp_path, "/mcp reconnect", "/mcp RECONNECT nosuch", "/mcp enable"
    )
    assert adapter.agent_texts() == [
        "- Couldn't reconnect `broken-db`: Failed to reconnect to broken-db: connection refused"
        "\n\n" + BOTH,
        "- Couldn't reconnect `nosuch`: MCP server not found: nosuch\n\n" + BOTH,
        "Name a server or `all`, for example `/mcp enable <server>`.",
    ]
    assert _ended(answers)
    assert adapter.prompt_uuids(adapter_session(adapter)) == []


@pytest.mark.asyncio
async def test_other_texts_are_ordinary_prompts(tmp_path: Path) -> None:
    adapter, answers = await _run(tmp_path, "/mcp frobnicate", "/usage please")
    assert adapter.agent_texts() == [
        "Scripted reply to: /mcp frobnicate",
        "Scripted reply to: /usage please",
    ]
    assert _ended(answers) and len(adapter.prompt_uuids(adapter_session(adapter))) == 2
