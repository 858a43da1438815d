"""The scripted Claude's answers to the control calls behind `/usage` and `/mcp`: `get_usage`,
`mcp_status`, `mcp_reconnect` and `mcp_toggle`, shaped as Claude Code answers them; and
`mcp_authenticate`, an MCP server's sign-in.

The MCP servers are the ones `--mcp-config` names: each is connected (with no tools), except one
whose name starts with "broken", which failed to connect and fails to reconnect, and one whose
name starts with "oauth", which needs a sign-in; a toggle disables or enables a server; an
unknown server name is an error, as in Claude Code. `mcp_authenticate` of a server that needs a
sign-in answers with its page (`{authUrl, requiresUserAction: true, callbackExpected: true}`,
the URL carrying a state, as Claude Code's does); the user then signs in in the browser, which
the fake plays as the server connecting at the second `mcp_status` after it, except for an
"oauth-never" server, whose user never does. A server that needs nothing answers
`{requiresUserAction: false}`; reconnected before its sign-in finished, it needs one again.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["SIGN_IN_PAGE", "USAGE", "answer", "servers_from"]

# Where an MCP server's sign-in page is (its state is what must not leak).
SIGN_IN_PAGE = "https://auth.example/oauth/authorize?state=scripted-state-5f1c&server="

USAGE: dict[str, Any] = {
    "subscription_type": "max",
    "rate_limits_available": True,
    "rate_limits": {
        "five_hour": {"utilization": 37, "resets_at": "2026-01-01T15:00:00Z"},
        "seven_day": {"utilization": 12, "resets_at": None},
        "seven_day_opus": {"utilization": None, "resets_at": None},
        "model_scoped": [],
    },
    "session": {
        "total_cost_usd": 0.42,
        "total_api_duration_ms": 65_000,
        "total_duration_ms": 300_000,
        "model_usage": {
            "claude-sonnet-4-5": {
                "inputTokens": 1200,
                "outputTokens": 3400,
                "cacheReadInputTokens": 120_000,
                "cacheCreationInputTokens": 8000,
            }
        },
    },
}
_BROKEN_ERROR = (
    "connect ECONNREFUSED 127.0.0.1:5432. Is the database running? "
    "A third sentence nobody needs to see."
)


def servers_from(mcp_config: str | None) -> dict[str, str]:
    """Server name → status, from the `--mcp-config` JSON."""
    try:
        config = json.loads(mcp_config) if mcp_config else {}
    except ValueError:
        return {}
    servers = config.get("mcpServers") if isinstance(config, dict) else None
    names = [n for n in servers if isinstance(n, str)] if isinstance(servers, dict) else []
    return {n: _first_status(n) for n in names}


def _first_status(name: str) -> str:
    if name.startswith("broken"):
        return "failed"
    return "needs-auth" if name.startswith("oauth") else "connected"


def answer(servers: dict[str, str], request: dict[str, Any]) -> tuple[Any, str | None]:
    """(the answer, or None with the error text) for one of these control requests."""
    subtype = request.get("subtype")
    if subtype == "get_usage":
        return USAGE, None
    if subtype == "mcp_status":
        for server, status in servers.items():
            # A sign-in in the browser: done at the second look after it began.
            if status.startswith("signing-in"):
                servers[server] = "signing-in-2" if status == "signing-in" else "connected"
        return {"mcpServers": [_status(n, s) for n, s in servers.items()]}, None
    name = request.get("serverName")
    if not isinstance(name, str) or name not in servers:
        return None, f"MCP server not found: {name}"
    if subtype == "mcp_authenticate":
        if servers[name] != "needs-auth":
            return {"requiresUserAction": False, "callbackExpected": False}, None
        if not name.startswith("oauth-never"):
            servers[name] = "signing-in"
        return {
            "authUrl": SIGN_IN_PAGE + name,
            "requiresUserAction": True,
            "callbackExpected": True,
            "redirectScheme": "localhost",
        }, None
    if subtype == "mcp_reconnect":
        if name.startswith("broken"):
            return None, f"Failed to reconnect to {name}: connection refused"
        # A server whose sign-in never finished still has no token: it needs one again.
        signed_out = name.startswith("oauth") and servers[name] != "connected"
        servers[name] = "needs-auth" if signed_out else "connected"
    elif subtype == "mcp_toggle":
        enabled = request.get("enabled") is True
        servers[name] = (
            ("failed" if name.startswith("broken") else "connected") if enabled else "disabled"
        )
    return {}, None


def _status(name: str, status: str) -> dict[str, Any]:
    shown = "pending" if status.startswith("signing-in") else status
    entry: dict[str, Any] = {"name": name, "status": shown, "scope": "dynamic"}
    if status == "failed":
        entry["error"] = _BROKEN_ERROR
    if status == "connected":
        entry["tools"] = []
    return entry
