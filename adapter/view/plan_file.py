"""JetBrains AIR's `planFile`: ExitPlanMode shows the plan's file instead of its text.

Claude Code writes the plan to a file while it drafts it and adds `plan` (the text) and
`planFilePath` to the complete ExitPlanMode input; the result names the file too (`filePath`).
For a client that negotiated `planFile` (`fsm.air.client.AirClient.plan_file`) every report of the
call that carries its input (the card, the permission question, the result) carries the input
without `plan` and with `planFilePath`, provided that names an existing regular file by an
absolute path (the session's `existing_file` check, `adapter.claude.plan_files`); otherwise the
client gets the plan's text as every client does. An approved plan is followed by a call of its
own with a blank path (`fsm.air.meta.plan_file_clear`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fsm import plan_file_clear, plan_file_input

__all__ = ["PLAN_EXIT", "FileCheck", "plan_file_card", "plan_file_result"]

PLAN_EXIT = "ExitPlanMode"

# The path when it names an existing regular file by an absolute path, else None.
FileCheck = Callable[[object], str | None]


def _path_of(tool_input: object, existing_file: FileCheck) -> str | None:
    if not isinstance(tool_input, Mapping):
        return None
    return existing_file(tool_input.get("planFilePath"))


def plan_file_card(card: dict[str, Any], tool_input: object, existing_file: FileCheck) -> None:
    """The ExitPlanMode card with the plan's file in place of its text (an empty content
    clears what the card showed while the input streamed)."""
    path = _path_of(tool_input, existing_file)
    if path is None:
        return
    card["rawInput"] = plan_file_input(tool_input, path)
    card["content"] = []


def plan_file_result(
    updates: list[dict[str, Any]],
    tool_id: str,
    tool_input: object,
    tool_use_result: object,
    *,
    is_error: bool,
    existing_file: FileCheck,
) -> list[dict[str, Any]]:
    """The result's updates with the plan's file on the call's last update, and, for an
    approved plan, the call that releases the file."""
    path = _path_of(tool_input, existing_file)
    if path is None and isinstance(tool_use_result, Mapping):
        path = existing_file(tool_use_result.get("filePath"))
    if path is None:
        return updates
    for update in reversed(updates):
        if update.get("toolCallId") == tool_id:
            update["rawInput"] = plan_file_input(tool_input, path)
            break
    return updates if is_error else [*updates, plan_file_clear(tool_id)]
