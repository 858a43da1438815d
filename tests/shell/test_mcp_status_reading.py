"""Claude Code's `system/init` `mcp_servers` as the core reads them: statuses passed on, any
other shape passed on as unreadable (never raised), an empty list as nothing."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import SystemMessage

from adapter.claude.translate import event_for
from fsm import McpServersReported, McpServerStatus


def _init(servers: Any) -> SystemMessage:
    return SystemMessage(
        subtype="init", data={"type": "system", "subtype": "init", "mcp_servers": servers}
    )


def test_statuses_are_read() -> None:
    event = event_for(
        _init([{"name": "db", "status": "failed"}, {"name": "ok", "status": "connected"}]), "e"
    )
    assert event == McpServersReported(
        epoch="e",
        servers=(
            McpServerStatus(name="db", status="failed"),
            McpServerStatus(name="ok", status="connected"),
        ),
    )


@pytest.mark.parametrize("servers", [None, []])
def test_no_servers_is_no_event(servers: Any) -> None:
    assert event_for(_init(servers), "e") is None


@pytest.mark.parametrize(
    ("servers", "read"),
    [
        ("failed", (McpServerStatus(name=None, status=None),)),
        ({"db": "failed"}, (McpServerStatus(name=None, status=None),)),
        (
            [7, {"name": 3, "status": "failed"}],
            (McpServerStatus(name=None, status=None), McpServerStatus(name=None, status="failed")),
        ),
    ],
)
def test_other_shapes_are_passed_on_as_unreadable(servers: Any, read: Any) -> None:
    assert event_for(_init(servers), "e") == McpServersReported(epoch="e", servers=read)


def test_a_flood_is_cut() -> None:
    flood = [{"name": f"s{i}", "status": "failed"} for i in range(1000)]
    event = event_for(_init(flood), "e")
    assert isinstance(event, McpServersReported) and len(event.servers) == 64
