"""The tool call a permission request shows: which of the call's card it carries, and what
Claude Code's request adds to it.

Theory of operation, as the reference adapter builds it
(docs/reference-adapter.md#permission-request-tool-call): the request's `toolCall` is the tool
call's own card (`toolCallId`, `title`, `kind`, `status`, `rawInput`, `locations`, `content`)
with what Claude Code's `can_use_tool` request says beside the tool's input:
- `blocked_path`, the path that made Claude Code ask (a command reaching outside the allowed
  folders), is one more location, unless the card has that path already;
- a computer-use tool (`mcp__computer-use__*`) is titled by Claude Code's `display_name`, and a
  card with nothing to show shows its input as JSON;
- else a card titled by its bare tool name takes the request's own `title` (Claude Code's
  wording beats a bare name), shown as a line like every title;
- `_meta.claudeCode` names the tool (`toolName`), the subagent's Agent call it runs under
  (`parentToolUseId`) and the MCP server that serves it (`mcpServer {name, source}`), only when
  there is a parent or a server, as the reference sends it.

A JetBrains AIR client holds the card already and gets only `toolCallId`, `title` and
`rawInput` (`AirClient.slim_permission_card`), plus the blocked path's location and, from the
shell, the preview patch of a change; its `_meta.claudeCode` carries only the MCP server (it has
the tool's name and parent from the card). That holds only where the card was shown before the
request: a call Claude Code asks about before its card (a sandbox's network request, whose id no
tool call carries) gets the whole card, since the adapter does not send the card first as the
reference does (docs/decisions.md#permission-card-before-its-call).

Claude Code's texts are bounded as the reference bounds them: a display name is one line of at
most 160 characters, a blocked path at most 4,096; control characters are dropped, and a
value outside the bounds is not used. Nothing here raises on a malformed value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fsm.visible_text import visible

__all__ = ["COMPUTER_USE_PREFIX", "PermissionCard", "permission_card"]

COMPUTER_USE_PREFIX = "mcp__computer-use__"
# Every field of the card a permission request may carry; AIR's slim share of them.
_FULL = ("toolCallId", "title", "kind", "status", "rawInput", "locations", "content")
_SLIM = ("toolCallId", "title", "rawInput")
_DISPLAY_NAME_LIMIT = 160
_BLOCKED_PATH_LIMIT = 4_096
# C0 controls but tab, line feed and carriage return, and DEL: dropped, as the reference drops
# them; white space runs collapse on a single line.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_WS_RUN = re.compile(r"\s+")


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionCard:
    """What the shell makes of a tool call's card for its permission request.

    `fields`: the card's fields the request carries, in the card's order; `title`: the title in
    place of the card's (None: the card's); `extra_location`: a path to add to the card's
    locations (None: none); `input_as_json`: the card has no content and shows its input as a
    JSON block; `meta`: the toolCall's `_meta` (None: none); `slim`: it is AIR's share of a
    card the client holds, so the request names no tool (`toolCall.name`) and a plan exit's
    question adds neither its kind nor its plan (the card shows them)."""

    fields: tuple[str, ...]
    title: str | None = None
    extra_location: str | None = None
    input_as_json: bool = False
    meta: dict[str, Any] | None = None
    slim: bool = False


def _one_line(value: object, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    shown = _WS_RUN.sub(" ", _CONTROLS.sub("", value)).strip()
    return shown if shown and len(shown) <= limit else None


def _mcp_server(value: object) -> dict[str, Any] | None:
    """`{name, source}` of Claude Code's `mcp_server`, as the reference forwards them; None for
    a value that is no object or names neither."""
    if not isinstance(value, dict):
        return None
    server = {key: value[key] for key in ("name", "source") if isinstance(value.get(key), str)}
    return server or None


def permission_card(
    *,
    tool_name: str,
    card_paths: Sequence[str],
    has_content: bool,
    card_title: object = None,
    request_title: object = None,
    blocked_path: object = None,
    display_name: object = None,
    parent_tool_use_id: str | None = None,
    mcp_server: object = None,
    slim: bool = False,
) -> PermissionCard:
    """The request's share of a tool call's card (see the module doc). `card_paths`: the paths
    of the card's locations; `has_content`: the card shows content; `card_title`: the card's
    title; `request_title` (Claude Code's `title`) and the rest as Claude Code's request has
    them (any shape); `slim`: AIR's shape, for a card the client was shown."""
    computer_use = tool_name.startswith(COMPUTER_USE_PREFIX)
    shown_name = _one_line(display_name, _DISPLAY_NAME_LIMIT) if computer_use else None
    if shown_name is None and card_title == tool_name and isinstance(request_title, str):
        shown_name = request_title or None
    blocked = _one_line(blocked_path, _BLOCKED_PATH_LIMIT)
    server = _mcp_server(mcp_server)
    claude_code: dict[str, Any] = {}
    if server is not None or (parent_tool_use_id is not None and not slim):
        if not slim:
            claude_code["toolName"] = tool_name
            if parent_tool_use_id is not None:
                claude_code["parentToolUseId"] = parent_tool_use_id
        if server is not None:
            claude_code["mcpServer"] = server
    extra = blocked if blocked is not None and blocked not in card_paths else None
    # AIR's share carries the locations only to add the blocked path to them.
    slim_fields = (*_SLIM, "locations") if extra is not None else _SLIM
    return PermissionCard(
        fields=slim_fields if slim else _FULL,
        title=visible(shown_name) if shown_name is not None else None,
        extra_location=extra,
        input_as_json=computer_use and not slim and not has_content,
        meta={"claudeCode": claude_code} if claude_code else None,
        slim=slim,
    )
