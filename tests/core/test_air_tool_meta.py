"""What every JetBrains AIR client is told of a tool call itself: a shell command's title
(`commandTitle`) and an MCP tool's server and tool (`mcp`), as the reference's `toolUseMeta`
and `mcpToolName` have them; a client that is not AIR gets neither."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import air_client
from fsm.air.meta import SUBAGENT_TOOLS, command_title, mcp_tool_name, tool_use_meta

AIR = air_client({"jetbrains": {"air": {}}})  # any AIR client: no capability needed
PLAIN = air_client(None)
BASE: dict[str, Any] = {"claudeCode": {"toolName": "Bash"}}


def test_a_shell_call_is_titled_by_its_description_shown_as_a_title() -> None:
    assert command_title("Bash", {"command": "ls", "description": "List  files\t"}) == (
        "List  files "
    )
    # A control sequence cannot retitle a terminal client or reach AIR's title as-is.
    shown = command_title("Bash", {"command": "ls", "description": "Run\x1b]0;owned\x07 it"})
    assert shown is not None and "\x1b" not in shown and "\x07" not in shown
    assert command_title("Bash", {"command": "ls", "description": "  "}) is None
    assert command_title("PowerShell", {"command": "dir", "description": "List"}) == "List"
    # Claude Code's other spelling, when there is no `description`.
    assert command_title("Bash", {"command": "ls", "command_description": "List"}) == "List"
    assert command_title("Bash", {"description": "", "command_description": "x"}) is None


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("Read", {"description": "Read it"}),
        ("Bash", {"command": "ls"}),
        ("Bash", {"command": "ls", "description": 7}),
        ("Bash", "not an object"),
        ("Bash", None),
    ],
)
def test_no_title_for_another_tool_or_no_description(name: str, tool_input: object) -> None:
    assert command_title(name, tool_input) is None


@pytest.mark.parametrize(
    ("name", "split"),
    [
        ("mcp__github__create_issue", {"server": "github", "tool": "create_issue"}),
        ("mcp__a__b__c", {"server": "a", "tool": "b__c"}),  # the tool is the whole rest
        ("mcp__a___b", {"server": "a", "tool": "_b"}),
        ("mcp__plugin_x_y__do", {"server": "plugin_x_y", "tool": "do"}),
    ],
)
def test_an_mcp_tool_name_is_split_at_the_first_separator(name: str, split: object) -> None:
    assert mcp_tool_name(name) == split


@pytest.mark.parametrize(
    "name",
    ["Bash", "mcp__", "mcp__server", "mcp____tool", "mcp__server__", "MCP__a__b", "xmcp__a__b"],
)
def test_a_name_without_server_and_tool_is_no_mcp_tool(name: str) -> None:
    assert mcp_tool_name(name) is None


def test_the_meta_keeps_what_it_had_and_adds_only_what_applies() -> None:
    meta = tool_use_meta(BASE, "Bash", {"command": "ls", "description": "List"})
    assert meta == {
        "claudeCode": {"toolName": "Bash"},
        "jetbrains": {"air": {"version": 1, "commandTitle": "List"}},
    }
    mcp = tool_use_meta({"claudeCode": {"toolName": "mcp__s__t"}}, "mcp__s__t", {})
    assert mcp["jetbrains"] == {"air": {"version": 1, "mcp": {"server": "s", "tool": "t"}}}
    assert tool_use_meta(BASE, "Read", {"file_path": "x"}) == BASE
    assert BASE == {"claudeCode": {"toolName": "Bash"}}  # never changed in place


def test_only_an_air_client_gets_them() -> None:
    described = {"command": "ls", "description": "List"}
    assert "jetbrains" in AIR.tool_meta(BASE, "Bash", described)
    assert PLAIN.tool_meta(BASE, "Bash", described) == BASE
    assert PLAIN.tool_meta(BASE, "mcp__s__t", {}) == BASE


@pytest.mark.parametrize("name", ["Agent", "Task"])
def test_a_subagent_launch_is_marked_for_an_air_client(name: str) -> None:
    # The reference's `toolUseMeta`: `subagent: true` on every report of an Agent or Task call.
    base = {"claudeCode": {"toolName": name}}
    assert AIR.tool_meta(base, name, {"prompt": "look"}) == {
        "claudeCode": {"toolName": name},
        "jetbrains": {"air": {"version": 1, "subagent": True}},
    }
    assert PLAIN.tool_meta(base, name, {"prompt": "look"}) == base


@pytest.mark.parametrize("name", ["agent", "Agents", "SendMessage", "mcp__agent__Task", "Bash"])
def test_no_other_tool_is_a_subagent_launch(name: str) -> None:
    meta = tool_use_meta({"claudeCode": {"toolName": name}}, name, {"command": "ls"})
    assert "subagent" not in meta.get("jetbrains", {}).get("air", {})


def test_the_subagent_tools_are_the_references() -> None:
    assert frozenset({"Agent", "Task"}) == SUBAGENT_TOOLS
