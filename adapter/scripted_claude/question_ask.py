"""How the scripted Claude asks the user a question (AskUserQuestion), as Claude Code does.

Theory of operation: the tool always goes to the host as a `can_use_tool` control request (no
rule or mode allows it by itself: it needs the user); the host's answer decides the tool result:
an allow with `updatedInput.answers` is what the user answered (an empty `answers` means they
skipped), a deny is a refusal, an error response means the question was aborted. While it
waits, an interrupt withdraws the question (`control_cancel_request`) and ends the turn. What
Claude then says names what it heard, so a test can check what reached Claude.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

import json
from typing import Any

from adapter.scripted_claude import frames
from adapter.scripted_claude.session import SessionState
from adapter.scripted_claude.wire import Inbox

__all__ = ["ASK_TOOL", "ask_question"]

ASK_TOOL = "AskUserQuestion"


def ask_question(
    s: SessionState, inbox: Inbox, tool_input: dict[str, Any], ident: str
) -> tuple[str, bool, str] | None:
    """(tool result, is it an error, what Claude says next); None: interrupted while asking."""
    if s.permission_prompt_tool != "stdio" or inbox.eof:
        return "No one can answer questions in this session.", True, "I could not ask you."
    request_id = frames.new_uuid()
    request = {
        "subtype": "can_use_tool",
        "tool_name": ASK_TOOL,
        "input": tool_input,
        "permission_suggestions": None,
        "tool_use_id": ident,
    }
    s.emit_state("requires_action")
    s.emit(frames.control_request(request_id, request))
    answer = inbox.wait_response(request_id)
    if answer is None:
        if inbox.interrupted:
            s.emit(frames.control_cancel_request(request_id))
            return None
        return "Stream closed", True, "The question went unanswered."
    s.emit_state("running")
    if inbox.interrupted:
        return None
    return _heard(answer)


def _heard(answer: dict[str, Any]) -> tuple[str, bool, str]:
    if answer.get("subtype") == "error":
        why = str(answer.get("error", ""))
        return why, True, f"The question was withdrawn ({why})."
    body = answer.get("response")
    body = body if isinstance(body, dict) else {}
    if body.get("behavior") != "allow":
        why = str(body.get("message", ""))
        return why, True, f"{ASK_TOOL} was denied: {why}"
    updated = body.get("updatedInput")
    answers = updated.get("answers") if isinstance(updated, dict) else None
    notes = updated.get("annotations") if isinstance(updated, dict) else None
    if not isinstance(answers, dict) or not answers:
        skipped = "You skipped my questions."
        if isinstance(notes, dict) and notes:
            skipped += f" Notes: {json.dumps(notes, sort_keys=True)}."
        return "User declined to answer questions", False, skipped
    pairs = ", ".join(f'"{q}"="{a}"' for q, a in answers.items())
    result = (
        f"User has answered your questions: {pairs}. "
        "You can now continue with the user's answers in mind."
    )
    said = f"You answered: {pairs}."
    if isinstance(notes, dict) and notes:
        said += f" Notes: {json.dumps(notes, sort_keys=True)}."
    return result, False, said
