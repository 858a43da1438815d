"""`/usage` and `/mcp [reconnect|enable|disable [<server>|all]]`: Claude Code's local commands,
answered from its own control calls instead of a model turn.

Theory of operation: a prompt that is exactly one text block naming one of these commands is
not sent to Claude as a message (in SDK mode Claude Code answers them with terminal text, or
refuses the `/mcp` actions); the adapter asks Claude Code through its control requests
(`get_usage`, `mcp_status`, `mcp_reconnect`, `mcp_toggle`) and answers with the reference
adapter's markdown (`adapter.controls.local_markdown`, docs/reference-adapter.md#local-commands)
as one agent message, then `end_turn`.
When the control call fails or times out, `run` returns None and the prompt goes to Claude as
any other prompt, so Claude Code's own text is the answer: never an empty one.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

import anyio
from acp.schema import TextContentBlock

from adapter.claude.sdk_compat import send_control_request
from adapter.controls.local_markdown import mcp_status_markdown, usage_markdown

__all__ = ["MCP_COMMAND", "LocalCommand", "parse", "run"]

log = logging.getLogger(__name__)

STATUS_SECONDS = 5.0  # get_usage, mcp_status (the reference's bounds)
ACTION_SECONDS = 30.0  # one mcp_reconnect or mcp_toggle

# `/mcp` as the reference lists it in `available_commands_update`.
MCP_COMMAND = {
    "name": "mcp",
    "description": "Show the MCP servers and their status, or reconnect, enable, or disable a "
    "server",
    "argumentHint": "[reconnect|enable|disable [<server>|all]]",
}

_MCP = re.compile(r"^/mcp(?:\s+(reconnect|enable|disable)(?:\s+(\S+))?)?$", re.I)


@dataclass(frozen=True, slots=True)
class LocalCommand:
    name: str  # "usage" or "mcp"
    action: str | None = None  # reconnect, enable, disable
    target: str | None = None  # a server name, "all", or None


def parse(blocks: list[Any]) -> LocalCommand | None:
    """The local command a prompt is, if it is exactly one text block naming one."""
    if len(blocks) != 1 or not isinstance(blocks[0], TextContentBlock):
        return None
    text = blocks[0].text.strip()
    if text == "/usage":
        return LocalCommand("usage")
    match = _MCP.match(text)
    if match is None:
        return None
    action = match.group(1).lower() if match.group(1) else None
    return LocalCommand("mcp", action, match.group(2))


async def run(client: Any, command: LocalCommand, tried: list[str] | None = None) -> str | None:
    """The command's markdown; None when Claude Code could not answer its control calls.
    `tried` gets the servers a `/mcp reconnect` tried again (one that needs a sign-in may be
    signed in to next, `fsm.claude.mcp_sign_in`)."""
    try:
        if command.name == "usage":
            with anyio.fail_after(STATUS_SECONDS):
                return usage_markdown(await send_control_request(client, {"subtype": "get_usage"}))
        if command.action is None:
            return mcp_status_markdown(await _status(client))
        return await _mcp_action(client, command.action, command.target, tried)
    except Exception:
        log.warning("/%s: Claude Code's control call failed; asking Claude", command.name)
        return None


async def _status(client: Any) -> Any:
    with anyio.fail_after(STATUS_SECONDS):
        return await client.get_mcp_status()


async def _mcp_action(
    client: Any, action: str, target: str | None, tried: list[str] | None = None
) -> str:
    before = await _status(client)
    servers = _list(before)
    if target is None and action != "reconnect":
        return f"Name a server or `all`, for example `/mcp {action} <server>`."
    if target is None or target == "all":
        names = [str(s["name"]) for s in servers if _wanted(action, s.get("status"))]
        if not names:
            return _nothing_to_do(action) + "\n\n" + mcp_status_markdown(before)
    else:
        names = [target]
    if action == "reconnect" and tried is not None:
        tried.extend(names)
    lines = [await _one(client, action, name) for name in names]
    return "\n".join(lines) + "\n\n" + mcp_status_markdown(await _status(client))


def _wanted(action: str, status: Any) -> bool:
    """Whether `all` includes a server in this status."""
    if action == "reconnect":
        return status not in ("connected", "disabled")
    return bool((status == "disabled") == (action == "enable"))


def _list(status: Any) -> list[dict[str, Any]]:
    servers = status.get("mcpServers") if isinstance(status, dict) else None
    return [s for s in servers or [] if isinstance(s, dict) and isinstance(s.get("name"), str)]


def _nothing_to_do(action: str) -> str:
    return {
        "reconnect": "Every MCP server is connected or disabled.",
        "enable": "Every MCP server is already enabled.",
        "disable": "Every MCP server is already disabled.",
    }[action]


async def _one(client: Any, action: str, name: str) -> str:
    done = {"reconnect": "Reconnected", "enable": "Enabled", "disable": "Disabled"}[action]
    try:
        with anyio.fail_after(ACTION_SECONDS):
            if action == "reconnect":
                await client.reconnect_mcp_server(name)
            else:
                await client.toggle_mcp_server(name, action == "enable")
    except Exception as exc:
        reason = " ".join(str(exc).split())[:160] or type(exc).__name__
        return f"- Couldn't {action} `{name}`: {reason}"
    return f"- {done} `{name}`"
