"""The flag every JetBrains AIR client gets on the opening of an MCP server's tool call
(`is_mcp_tool_call: true`, the reference renderer's `toolCall`): by the name's `mcp__` prefix
alone, last in `_meta`; a client that is not AIR never gets it."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import air_client
from fsm.air.meta import mcp_call_meta

AIR = air_client({"jetbrains": {"air": {}}})  # any AIR client: no capability needed
PLAIN = air_client(None)


def _meta(name: str) -> dict[str, Any]:
    return {"claudeCode": {"toolName": name}, "terminal_info": {"terminal_id": "t"}}


@pytest.mark.parametrize("name", ["mcp__github__create_issue", "mcp__x", "mcp__"])
def test_an_mcp_tools_opening_is_flagged_last_for_an_air_client(name: str) -> None:
    # The reference tests the prefix only: a name it cannot split is still an MCP tool's.
    meta = _meta(name)
    flagged = AIR.opening_meta(meta, name)
    assert flagged == {**meta, "is_mcp_tool_call": True}
    assert list(flagged)[-1] == "is_mcp_tool_call"
    assert meta == _meta(name)  # the input is not changed


@pytest.mark.parametrize("name", ["Bash", "MCP__a__b", "xmcp__a__b", "mcp_a__b"])
def test_no_other_tool_is_flagged(name: str) -> None:
    meta = _meta(name)
    assert AIR.opening_meta(meta, name) is meta
    assert mcp_call_meta(meta, name) is meta


def test_a_plain_client_is_never_flagged() -> None:
    meta = _meta("mcp__github__create_issue")
    assert PLAIN.opening_meta(meta, "mcp__github__create_issue") is meta
