"""How the scripted Claude runs an MCP server's elicitation, as Claude Code 2.1.332 does.

Theory of operation (the bundled CLI's print-mode elicitation handler, checked against a real
server in `tests/real_claude/test_mcp_elicitation.py`): Claude Code first runs the `Elicitation`
hooks; a host that registered callbacks for it in `initialize`
(`hooks.Elicitation[].hookCallbackIds`) gets a `hook_callback` control request per callback,
but the CLI keeps only a callback's `systemMessage`, so no callback answers the server. It then
asks the host with its own `elicitation` control request, `{mcp_server_name, message, mode,
requested_schema}` for a form, `{mcp_server_name, message, mode: "url", url, elicitation_id}`
for a page (what the server's request lacks is left out), and the host's `{action, content?}`
answers the server; an error answer, or any other action, is the server's `cancel`. An
interrupt while the host is asked withdraws the request (`control_cancel_request`, recorded as
`withdrawn`) and ends the turn.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

import os
from typing import Any

from adapter.scripted_claude import frames
from adapter.scripted_claude.handshake import record
from adapter.scripted_claude.session import SessionState
from adapter.scripted_claude.steps import McpElicitation
from adapter.scripted_claude.wire import Inbox

__all__ = ["ELICITATION_HOOK", "completion_frame", "elicit"]

ELICITATION_HOOK = "Elicitation"


def elicit(s: SessionState, inbox: Inbox, step: McpElicitation) -> dict[str, Any] | None:
    """What the MCP server heard (`{action, content?}`); None: interrupted while asking."""
    every: dict[str, Any] = {
        "mcp_server_name": step.server,
        "message": step.message,
        "mode": step.mode,
        "url": step.url,
        "elicitation_id": step.elicitation_id,
        "requested_schema": dict(step.requested_schema) if step.mode == "form" else None,
    }
    # The CLI's JSON leaves out what the server's request did not have.
    fields = {key: value for key, value in every.items() if value is not None}
    for callback_id in s.hooks.get(ELICITATION_HOOK, []):
        hook_input = {
            "session_id": s.session_id,
            "transcript_path": str(s.transcript.path),
            "cwd": s.cwd,
            "permission_mode": s.permission_mode,
            "hook_event_name": ELICITATION_HOOK,
            **fields,
        }
        request = {
            "subtype": "hook_callback",
            "callback_id": callback_id,
            "input": hook_input,
            "tool_use_id": None,
        }
        if _ask(s, inbox, request) is None:
            return None
        # What the callback answered is not the server's answer (module doc).
    # Claude Code's own dialog, which an SDK host answers.
    answer = _ask(s, inbox, {"subtype": "elicitation", **fields})
    if answer is None:
        return None
    body = answer.get("response") if answer.get("subtype") == "success" else None
    action = body.get("action") if isinstance(body, dict) else None
    if action not in ("accept", "decline"):
        return {"action": "cancel"}
    assert isinstance(body, dict)
    return {"action": action, "content": body.get("content")}


def completion_frame(s: SessionState, step: McpElicitation) -> dict[str, Any] | None:
    """Claude Code's frame for the server's `notifications/elicitation/complete` (it forwards
    them in print mode) after an accepted URL request; None for a form or an id-less request."""
    if step.mode != "url" or step.elicitation_id is None:
        return None
    return {
        "type": "system",
        "subtype": "elicitation_complete",
        "mcp_server_name": step.server,
        "elicitation_id": step.elicitation_id,
        "uuid": frames.new_uuid(),
        "session_id": s.session_id,
    }


def _ask(s: SessionState, inbox: Inbox, request: dict[str, Any]) -> Any:
    request_id = frames.new_uuid()
    s.emit(frames.control_request(request_id, request))
    answer = inbox.wait_response(request_id)
    if answer is None or inbox.interrupted:
        if answer is None:
            s.emit(frames.control_cancel_request(request_id))
            record(os.environ, "withdrawn", request_id=request_id, subtype=request["subtype"])
        return None
    return answer
