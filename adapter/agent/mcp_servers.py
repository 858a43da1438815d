"""The client's MCP servers, handed to Claude Code as its `mcp_servers` option.

Theory of operation: ACP describes stdio servers as `{name, command, args, env: [{name,
value}]}` and http/sse servers as `{type, name, url, headers: [{name, value}]}`; Claude Code
takes `{name: {type: "stdio", command, args, env}}` and `{name: {type, url, headers}}`
(`for_claude`). The `acp` schema drops a list entry it cannot read without a word, which would
silently lose a server the user configured, so `guard` checks the raw entries of every
session-opening request before the schema sees them and answers a malformed one with -32602
naming the entry. ACP-transport servers (`type: "acp"`) are not supported (`mcpCapabilities`
does not offer them) and are refused the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from acp import RequestError
from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

__all__ = ["MCP_METHODS", "check_raw", "for_claude", "guard"]

# The requests that carry `mcpServers`.
MCP_METHODS = frozenset({"session/new", "session/load", "session/resume", "session/fork"})

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


def _pairs_ok(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("value"), str)
        for p in value
    )


def _problem(entry: Any) -> str | None:
    """What is wrong with one raw entry, or None."""
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
        return "needs a non-empty name"
    kind = entry.get("type", "stdio")
    if kind == "stdio":
        if not isinstance(entry.get("command"), str) or not entry["command"]:
            return "a stdio server needs a command"
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            return "args must be a list of strings"
        if not _pairs_ok(entry.get("env", [])):
            return "env must be a list of {name, value}"
        return None
    if kind in ("http", "sse"):
        if not isinstance(entry.get("url"), str) or not entry["url"]:
            return f"an {kind} server needs a url"
        if not _pairs_ok(entry.get("headers", [])):
            return "headers must be a list of {name, value}"
        return None
    return f"unsupported server type {kind!r} (stdio, http and sse are)"


def check_raw(servers: Any) -> None:
    """Raise -32602 for the first malformed entry of a raw `mcpServers` list."""
    if servers is None:
        return
    if not isinstance(servers, list):
        raise RequestError.invalid_params({"mcpServers": "must be a list"})
    names: set[str] = set()
    for index, entry in enumerate(servers):
        problem = _problem(entry)
        if problem is None and entry["name"] in names:
            problem = "duplicate server name"
        if problem is not None:
            raise RequestError.invalid_params({"mcpServers": f"entry {index}: {problem}"})
        names.add(entry["name"])


def guard(handler: _Handler) -> _Handler:
    """`handler` (the connection's request router), with raw `mcpServers` checked first."""

    async def checked(method: str, params: Any, is_notification: bool) -> Any:
        if method in MCP_METHODS and isinstance(params, dict):
            check_raw(params.get("mcpServers"))
        return await handler(method, params, is_notification)

    return checked


def for_claude(servers: list[Any] | None) -> dict[str, dict[str, Any]]:
    """Claude Code's `mcp_servers` option for the client's (already checked) servers."""
    found: dict[str, dict[str, Any]] = {}
    for server in servers or []:
        if isinstance(server, McpServerStdio):
            found[server.name] = {
                "type": "stdio",
                "command": server.command,
                "args": list(server.args),
                "env": {pair.name: pair.value for pair in server.env},
            }
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            found[server.name] = {
                "type": server.type,
                "url": server.url,
                "headers": {pair.name: pair.value for pair in server.headers},
            }
    return found
