"""How the scripted Claude asks for a tool's permission, as the real CLI does.

Theory of operation: bypass mode and the session's settings rules allow without asking; with no
one to ask (no `--permission-prompt-tool stdio`, or stdin at EOF) the tool is denied as the CLI
denies in non-interactive mode; otherwise a `can_use_tool` control request goes out and the turn
waits for its answer, while still noticing an interrupt.
"""

from __future__ import annotations

from typing import Any

from adapter.scripted_claude import frames
from adapter.scripted_claude.session import SessionState
from adapter.scripted_claude.wire import Inbox

__all__ = ["ask"]


def ask(
    s: SessionState,
    inbox: Inbox,
    tool_name: str,
    tool_input: dict[str, Any],
    ident: str,
    suggestions: tuple[Any, ...] = (),
    hints: Any = None,
) -> tuple[bool | None, str, bool]:
    """(allowed, denial message, interrupt); allowed None: interrupted while waiting."""
    if s.permission_mode == "bypassPermissions":
        return True, "", False
    if s.rules is not None and s.rules.decide(s.permission_mode, tool_name, tool_input):
        return True, "", False
    if s.permission_prompt_tool != "stdio" or inbox.eof:
        # Nobody can be asked: the real CLI denies in non-interactive mode.
        why = f"Claude requested permissions to use {tool_name}, but you haven't granted it yet."
        return False, why, False
    request_id = frames.new_uuid()
    request = {
        "subtype": "can_use_tool",
        "tool_name": tool_name,
        "input": tool_input,
        "permission_suggestions": [dict(x) for x in suggestions] or None,
        "tool_use_id": ident,
        **(hints or {}),
    }
    s.emit_state("requires_action")
    s.emit(frames.control_request(request_id, request))
    answer = inbox.wait_response(request_id)
    if answer is None:
        if inbox.interrupted:
            s.emit(frames.control_cancel_request(request_id))
            return None, "", False
        return False, "Stream closed", False
    s.emit_state("running")
    if inbox.interrupted:
        return None, "", False
    return _answered(s, answer)


def _answered(s: SessionState, answer: dict[str, Any]) -> tuple[bool | None, str, bool]:
    if answer.get("subtype") == "error":
        return False, str(answer.get("error", "")), False
    body = answer.get("response")
    body = body if isinstance(body, dict) else {}
    if body.get("behavior") == "allow":
        if s.rules is not None:
            mode = s.rules.apply(body.get("updatedPermissions"))
            s.permission_mode = mode or s.permission_mode
        return True, "", False
    return False, str(body.get("message", "")), bool(body.get("interrupt"))
