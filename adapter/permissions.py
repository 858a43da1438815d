"""Claude's tool permission requests, asked of the client (ACP `session/request_permission`).

"Always allow" is remembered per tool for the session; a client that fails to answer is a
rejection (`ClientLink` turns its failure into no outcome).
"""

from __future__ import annotations

import uuid
from typing import Any

from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate
from claude_agent_sdk.types import (
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

from adapter.client_link import ClientLink

__all__ = ["PermissionAsker"]


class PermissionAsker:
    def __init__(self, *, link: ClientLink, session_id: str) -> None:
        self._link = link
        self._session_id = session_id
        self._always_allowed: set[str] = set()

    async def can_use_tool(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        if tool_name in self._always_allowed:
            return PermissionResultAllow()
        tool_call = ToolCallUpdate(
            tool_call_id=context.tool_use_id or str(uuid.uuid4()),
            title=context.title or tool_name,
            raw_input=tool_input,
            status="pending",
        )
        options = [
            PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
            PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
            PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
        ]
        outcome = await self._link.request_permission(self._session_id, tool_call, options)
        if isinstance(outcome, AllowedOutcome) and outcome.option_id in {"allow", "allow_always"}:
            if outcome.option_id == "allow_always":
                self._always_allowed.add(tool_name)
            return PermissionResultAllow()
        return PermissionResultDeny(message="The user did not allow this tool call.")
