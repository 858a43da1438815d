"""Scenarios of what Claude Code reports beside the answer (docs/decisions.md#acp-notices and
#mcp-server-problems): MCP servers that failed or need authentication, and statuses of a shape
# nobody documented.

Claude Code lists its servers' statuses in every turn's `system/init` frame; these scenarios
write a second init frame that does (the first, the player's, lists none), in each of two
turns, so the second turn's repeats show what is news and what is not.
"""

from __future__ import annotations

from typing import Any

from adapter.scripted_claude.steps import RawFrame, Reply, Result, Scenario, TurnScript

__all__ = ["MCP_PROBLEMS", "MCP_UNKNOWN_SHAPES", "NOTICE_SCENARIOS"]

# One of each status Claude Code writes that a user must hear of, and one that is fine.
MCP_PROBLEMS: tuple[dict[str, Any], ...] = (
    {"name": "db", "status": "failed"},
    {"name": "docs", "status": "needs-auth"},
    {"name": "fs", "status": "connected"},
)
# Nonsense: a status that is an object holding a URL, an entry that is a string, a server name
# that is a private path, a status nobody knows.
MCP_UNKNOWN_SHAPES: tuple[Any, ...] = (
    {"name": "odd", "status": {"url": "https://user:token@example.com/mcp"}},
    "db=failed",
    {"name": "/home/someone/.config/secret-server", "status": "failed"},
    {"name": "new", "status": "reconnecting"},
)


def _init_with(servers: tuple[Any, ...]) -> RawFrame:
    return RawFrame(
        frame={
            "type": "system",
            "subtype": "init",
            "session_id": "scripted",
            "uuid": "00000000-0000-4000-8000-00000000c0de",
            "mcp_servers": list(servers),
        }
    )


def _two_turns(servers: tuple[Any, ...]) -> tuple[TurnScript, TurnScript]:
    turn: TurnScript = (_init_with(servers), Reply(), Result())
    return turn, turn


NOTICE_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="mcp_problems",
        description="Two turns whose init frames list a failed, a needs-auth and a connected "
        "MCP server.",
        turns=_two_turns(MCP_PROBLEMS),
    ),
    Scenario(
        name="mcp_unknown_shapes",
        description="Two turns whose init frames list MCP statuses of unknown shapes, and a "
        "failed server named by a private path.",
        turns=_two_turns(MCP_UNKNOWN_SHAPES),
    ),
)
