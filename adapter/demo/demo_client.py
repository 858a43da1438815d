"""The demo's ACP client: what it answers the agent, and how it opens its one session.

Permission requests are allowed once, Claude's questions get their first options, and updates
are only observed (adapter.demo.runner prints the frames themselves).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import IO, Any

__all__ = ["AIR_OPT_IN", "OPT_IN", "DemoClient", "open_session"]

OPT_IN = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}
# A JetBrains AIR client declaring the AIR extensions this agent speaks (the AIR scenarios').
AIR_OPT_IN = {
    "jetbrains": {
        "air": {
            "version": 1,
            "capabilities": [
                "sessionFailure",
                "nativeSubagentSessions",
                "asyncTasks",
                "diffPatch",
                "planFile",
                "backgroundSubagents",
                "loadReplayEnd",
                "sessionIndex",
            ],
        }
    }
}


class DemoClient:
    """The client side: permission requests are allowed once, Claude's questions get their
    first options, updates are only observed (and a limit's reset record is noticed, for
    `WAIT_FOR_RESET`)."""

    def __init__(self) -> None:
        self.limit_reset = asyncio.Event()
        self.compacted = asyncio.Event()  # a compaction card ended (`WAIT_FOR_IDLE`)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        meta = getattr(update, "field_meta", None) or {}
        record = meta.get("jetbrains", {}).get("air", {}).get("sessionFailure", {})
        if "retry" in record.get("actions", ()) and "limit has reset" in record.get("title", ""):
            self.limit_reset.set()
        tool = meta.get("claudeCode", {}).get("toolName")
        if tool == "compact" and getattr(update, "status", None) in ("completed", "failed"):
            self.compacted.set()

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> Any:
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        # The first option that allows once (plan mode's options have their own ids), else
        # the first offered.
        offered = list(options or [])
        chosen = next((o for o in offered if getattr(o, "kind", None) == "allow_once"), None)
        chosen = chosen or (offered[0] if offered else None)
        option_id = getattr(chosen, "option_id", "allow")
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option_id)
        )

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        """Claude's questions (a form): the first option of each question is picked."""
        schema = mode.model_dump(mode="json", by_alias=True).get("requestedSchema") or {}
        content: dict[str, Any] = {}
        for key, field in (schema.get("properties") or {}).items():
            choices = field.get("oneOf") or (field.get("items") or {}).get("anyOf") or []
            if choices and isinstance(choices[0], dict) and "const" in choices[0]:
                first = choices[0]["const"]
                content[key] = [first] if field.get("type") == "array" else first
        return {"action": "accept", "content": content}


async def open_session(
    conn: Any, workdir: Path, *, capable: bool, out: IO[str], air: bool = False
) -> str | None:
    """Initialize (opting in when `capable`; as a JetBrains AIR client declaring the AIR set
    when `air` too) and open a session; None if the agent refused."""
    import acp
    from acp.schema import ClientCapabilities

    # The demo client shows forms: Claude's questions reach it (AskUserQuestion).
    forms: dict[str, Any] = {"elicitation": {"form": {}}}
    opt_in = AIR_OPT_IN if air else OPT_IN
    caps = ClientCapabilities.model_validate({**forms, **({"_meta": opt_in} if capable else {})})
    try:
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
        session = await conn.new_session(cwd=str(workdir), mcp_servers=[])
    except acp.RequestError:
        # The error answer is printed above; without a session there is nothing to ask.
        print("\n(the agent could not start a session: the demo ends here)", file=out)
        return None
    return str(session.session_id)
