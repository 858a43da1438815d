"""What a JetBrains AIR client is told of a tool call itself, through the agent and the real
SDK in process: a shell command's title (`_meta.jetbrains.air.commandTitle`) and an MCP tool's
server and tool (`_meta.jetbrains.air.mcp`), and a streamed call's `rawInput` only once its
input is complete; a plain client gets no AIR key on any card, and the input as it streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.shell_harness import agent_in_process

AIR: dict[str, Any] = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}


async def _cards(tmp_path: Path, client_meta: dict[str, Any] | None) -> dict[str, list[Any]]:
    """Each tool call's updates by the tool's name (`every_tool` has one call of each of these)."""
    async with agent_in_process(
        tmp_path, "every_tool", client_meta=client_meta, capable=client_meta is not None
    ) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "Use every tool")
    names: dict[str, str] = {}
    cards: dict[str, list[Any]] = {}
    for update in adapter.updates():
        if update["sessionUpdate"] not in ("tool_call", "tool_call_update"):
            continue
        tool = ((update.get("_meta") or {}).get("claudeCode") or {}).get("toolName")
        if isinstance(tool, str):
            names.setdefault(update["toolCallId"], tool)
        cards.setdefault(names.get(update["toolCallId"], "?"), []).append(update)
    return cards


def _air(update: dict[str, Any]) -> dict[str, Any] | None:
    meta = update.get("_meta")
    return meta.get("jetbrains", {}).get("air") if isinstance(meta, dict) else None


@pytest.mark.asyncio
async def test_an_air_client_gets_the_command_title_and_the_mcp_tool(tmp_path: Path) -> None:
    cards = await _cards(tmp_path, AIR)
    # The card streams: its opening and the refinement of its partial input carry no
    # `rawInput` for an AIR client; the report that fills it in carries the whole input, and
    # with it the description, which no report carried before it.
    bash = cards["Bash"]
    assert bash[0]["sessionUpdate"] == "tool_call" and "rawInput" not in bash[0]
    assert bash[1]["title"] == "python -m pytest -q" and "rawInput" not in bash[1]
    filled = [u for u in bash if "rawInput" in u]
    whole = {"command": "python -m pytest -q", "description": "Run the tests"}
    assert [u["rawInput"] for u in filled] == [whole] and filled[0] is bash[2]
    titled = {"version": 1, "commandTitle": "Run the tests"}
    assert [_air(u) for u in bash[:3]] == [None, None, titled]
    # The MCP tool is split from the card's first report on.
    mcp = cards["mcp__github__create_issue"]
    assert _air(mcp[0]) == {"version": 1, "mcp": {"server": "github", "tool": "create_issue"}}
    # No other tool of the turn is told either.
    others = [
        air
        for name, updates in cards.items()
        if name not in ("Bash", "mcp__github__create_issue")
        for air in map(_air, updates)
        if air is not None
    ]
    assert all("commandTitle" not in air and "mcp" not in air for air in others)


@pytest.mark.asyncio
async def test_a_plain_client_gets_no_air_key_on_any_card(tmp_path: Path) -> None:
    cards = await _cards(tmp_path, None)
    assert cards["Bash"] and cards["mcp__github__create_issue"]
    # It gets the streamed card's input as it stands: empty on the opening, then partial.
    bash = cards["Bash"]
    assert bash[0]["sessionUpdate"] == "tool_call" and bash[0]["rawInput"] == {}
    assert bash[1]["rawInput"] == {"command": "python -m pytest -q"}
    assert all(_air(u) is None for updates in cards.values() for u in updates)
