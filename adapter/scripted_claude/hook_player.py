"""Playing a `FireHook` step (`hook_steps.py`): Claude Code asking the SDK to run a hook.

For each callback the SDK registered for the step's event, a `hook_callback` control request
goes out with the hook's input (`hook_event_name` and the session's common fields added, as
the real CLI adds them), and the turn waits for its answer, as the CLI does. Standard library
only: imported by the fake at start-up.
"""

from __future__ import annotations

from typing import Any

from adapter.scripted_claude import frames
from adapter.scripted_claude.handshake import record
from adapter.scripted_claude.hook_steps import FireHook
from adapter.scripted_claude.session import SessionState
from adapter.scripted_claude.wire import Inbox

__all__ = ["fire_hook"]


def fire_hook(step: FireHook, s: SessionState, inbox: Inbox) -> bool:
    """Run the step's hooks; False if the turn was interrupted while one ran."""
    for callback_id in s.hooks.get(step.event, ()):
        request_id = frames.new_uuid()
        hook_input: dict[str, Any] = {
            "session_id": s.session_id,
            "cwd": s.cwd,
            "hook_event_name": step.event,
            **step.input,
        }
        request = {"subtype": "hook_callback", "callback_id": callback_id, "input": hook_input}
        s.emit(frames.control_request(request_id, request))
        answer = inbox.wait_response(request_id)
        if answer is None:
            if inbox.interrupted:
                s.emit(frames.control_cancel_request(request_id))
            return False
        record(s.env, "hook_answer", event=step.event, answer=answer)
    return True
