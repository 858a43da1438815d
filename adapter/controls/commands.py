"""Slash commands: Claude Code's own list as ACP `available_commands_update`, and prompts.

Theory of operation: Claude Code lists its commands (built-ins, `.claude/commands`, skills,
plugins, MCP prompts) in its initialize answer as `{name, description, argumentHint}`;
`available_commands` turns them into ACP commands, leaving out the ones that only make sense in
Claude Code's own terminal (as the other adapter does: a fixed list, and the ones each
`system/init` names in `terminal_slash_commands`) and names a client could not send. The
list is refreshed when Claude says it changed: a `commands_changed` frame carrying the new
list. A prompt that starts with `/name args` goes to Claude as that text, which Claude Code
expands itself; an MCP prompt picked as `/mcp:server:prompt args` is rewritten to Claude
Code's own spelling.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    TextContentBlock,
    UnstructuredCommandInput,
)

__all__ = ["available_commands", "rewrite_prompt", "update_for"]

# Terminal-bound or meaningless inside an editor (the other adapter drops the same ones).
_HIDDEN = frozenset(
    {
        "clear",
        "cost",
        "keybindings-help",
        "login",
        "logout",
        "output-style:new",
        "release-notes",
        "todos",
    }
)
_MCP_PROMPT = re.compile(r"^/mcp:([^:\s]+):(\S+)(\s.*)?$", re.S)


def available_commands(
    entries: Iterable[Any],
    terminal_only: frozenset[str] = frozenset(),
    *,
    meta_for: Callable[[str, Mapping[str, Any]], dict[str, Any] | None] | None = None,
) -> list[AvailableCommand]:
    """The commands to offer: Claude Code's, less the hidden ones and `terminal_only`, the
    ones its `system/init` marks as bound to its own terminal (`terminal_slash_commands`).
    `meta_for`: a command's `_meta` (JetBrains AIR's skill paths), from its name and entry."""
    found: list[AvailableCommand] = []
    seen: set[str] = set()
    for entry in entries:
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, Mapping):
            continue
        name = entry.get("name")
        if not isinstance(name, str) or not name or name in seen or name in _HIDDEN:
            continue
        if name in terminal_only:
            continue
        if any(ch.isspace() for ch in name):
            continue
        seen.add(name)
        description = entry.get("description")
        hint = entry.get("argumentHint")
        found.append(
            AvailableCommand(
                field_meta=meta_for(name, entry) if meta_for is not None else None,
                name=name,
                description=description if isinstance(description, str) else "",
                input=(
                    AvailableCommandInput(root=UnstructuredCommandInput(hint=hint))
                    if isinstance(hint, str) and hint
                    else None
                ),
            )
        )
    return found


def update_for(commands: list[AvailableCommand]) -> AvailableCommandsUpdate:
    return AvailableCommandsUpdate(
        session_update="available_commands_update", available_commands=commands
    )


def rewrite_prompt(blocks: list[Any]) -> list[Any]:
    """`/mcp:server:prompt args` as the first text becomes `/server:prompt (MCP) args`."""
    if not blocks or not isinstance(blocks[0], TextContentBlock):
        return blocks
    match = _MCP_PROMPT.match(blocks[0].text)
    if match is None:
        return blocks
    server, prompt, rest = match.group(1), match.group(2), match.group(3) or ""
    first = blocks[0].model_copy(update={"text": f"/{server}:{prompt} (MCP){rest}"})
    return [first, *blocks[1:]]
