"""Builders for the stream-json frames the scripted Claude writes (pure functions, no I/O).

Theory of operation: every frame is a plain dict shaped like Claude Code 2.1.332's output and
accepted by `claude_agent_sdk._internal.message_parser.parse_message` (an assistant frame needs
`message.content` as a list and `message.model`; a result needs `subtype, duration_ms,
duration_api_ms, is_error, num_turns, session_id`; a system frame needs `subtype`). Frames a
turn emits carry the session id, and `user_message_uuid` when the prompt came with a uuid.
Ids and times are minted here because this module serves a test double, not the sans-IO core.
The ids live in `frame_ids.py`, the system notices in `notice_frames.py` and the control
protocol in `control_frames.py`; this module re-exports them so callers use `frames.<name>`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapter.scripted_claude.control_frames import (
    control_cancel_request,
    control_error,
    control_request,
    control_response,
    initialize_response,
)
from adapter.scripted_claude.frame_ids import (
    CLI_VERSION,
    Frame,
    message_id,
    new_uuid,
    stamp,
    tool_use_id,
    usage,
)
from adapter.scripted_claude.notice_frames import (
    api_retry_frame,
    model_refusal_fallback_frame,
    rate_limit_frame,
    session_state_frame,
    tool_progress_frame,
    worker_shutting_down_frame,
)

__all__ = [
    "CLI_VERSION",
    "Frame",
    "api_retry_frame",
    "assistant_frame",
    "control_cancel_request",
    "control_error",
    "control_request",
    "control_response",
    "init_frame",
    "initialize_response",
    "lifecycle_frame",
    "message_id",
    "model_refusal_fallback_frame",
    "new_uuid",
    "rate_limit_frame",
    "result_frame",
    "session_state_frame",
    "startup_failure_frame",
    "tool_progress_frame",
    "tool_result_frame",
    "tool_use_id",
    "usage",
    "worker_shutting_down_frame",
]

# Reported in `system/init` tools list.
_TOOLS = ("Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "WebFetch", "TodoWrite")


def init_frame(
    *, session_id: str, cwd: str, model: str, permission_mode: str, fast_mode_state: str = "off"
) -> Frame:
    return {
        "type": "system",
        "subtype": "init",
        "cwd": cwd,
        "session_id": session_id,
        "tools": list(_TOOLS),
        "mcp_servers": [],
        "model": model,
        "permissionMode": permission_mode,
        "fast_mode_state": fast_mode_state,
        "slash_commands": ["compact", "context", "cost", "init", "review"],
        "apiKeySource": "none",
        "claude_code_version": CLI_VERSION,
        "output_style": "default",
        "agents": ["general-purpose"],
        "skills": [],
        "plugins": [],
        "uuid": new_uuid(),
    }


def assistant_frame(
    *,
    session_id: str,
    user_message_uuid: str | None,
    content: Sequence[Mapping[str, Any]],
    model: str,
    stop_reason: str | None,
    synthetic: bool,
    error: str | None = None,
    api_error_status: int | None = None,
    stop_details: Mapping[str, Any] | None = None,
    api_message_id: str | None = None,
    parent_tool_use_id: str | None = None,
) -> Frame:
    """An `assistant` frame. `error` marks the CLI's synthetic API-error message."""
    text_size = sum(len(str(block.get("text", ""))) for block in content)
    message: Frame = {
        "id": api_message_id or message_id(),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [dict(block) for block in content],
        "stop_reason": stop_reason,
        "stop_sequence": "" if stop_reason == "stop_sequence" else None,
        "usage": usage(0, 0) if synthetic else usage(24, max(1, text_size // 4)),
    }
    if stop_details is not None:
        message["stop_details"] = dict(stop_details)
    frame: Frame = {
        "type": "assistant",
        "message": message,
        "parent_tool_use_id": parent_tool_use_id,
    }
    if error is not None:
        frame["error"] = error
        # On the real wire but dropped by the SDK's AssistantMessage.
        frame["is_api_error_message"] = True
        frame["api_error_status"] = api_error_status
    return stamp(frame, session_id, user_message_uuid)


def tool_result_frame(
    *,
    session_id: str,
    user_message_uuid: str | None,
    tool_use: str,
    content: str | Sequence[Mapping[str, Any]],
    is_error: bool,
    tool_use_result: Mapping[str, Any] | None = None,
    parent_tool_use_id: str | None = None,
) -> Frame:
    """The `user` frame the CLI writes after running (or refusing) a tool."""
    body = content if isinstance(content, str) else [dict(b) for b in content]
    block: Frame = {"type": "tool_result", "tool_use_id": tool_use, "content": body}
    if is_error:
        block["is_error"] = True
    frame: Frame = {
        "type": "user",
        "message": {"role": "user", "content": [block]},
        "parent_tool_use_id": parent_tool_use_id,
    }
    if tool_use_result is not None:
        frame["tool_use_result"] = dict(tool_use_result)
    return stamp(frame, session_id, user_message_uuid)


def result_frame(
    *,
    session_id: str,
    user_message_uuid: str | None,
    subtype: str,
    is_error: bool,
    result: str | None,
    errors: Sequence[str] | None,
    api_error_status: int | None,
    terminal_reason: str | None,
    stop_reason: str | None,
    duration_ms: int,
    num_turns: int,
    model: str | None,
    output_tokens: int,
    permission_denials: Sequence[Mapping[str, Any]],
) -> Frame:
    """A `result` frame. `model=None` means no real model call happened (no cost)."""
    cost = 0.0 if model is None else round(0.000003 * 24 + 0.000015 * output_tokens, 6)
    model_usage: Frame = {}
    if model is not None:
        model_usage[model] = {
            "inputTokens": 24,
            "outputTokens": output_tokens,
            "cacheReadInputTokens": 0,
            "cacheCreationInputTokens": 0,
            "webSearchRequests": 0,
            "costUSD": cost,
            "contextWindow": 200000,
        }
    frame: Frame = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": duration_ms,
        "duration_api_ms": duration_ms if model is not None else 0,
        "num_turns": num_turns,
        "stop_reason": stop_reason,
        "total_cost_usd": cost,
        "usage": usage(24 if model else 0, output_tokens),
        "modelUsage": model_usage,
        "permission_denials": [dict(d) for d in permission_denials],
        "terminal_reason": terminal_reason,
    }
    if subtype == "success":
        frame["result"] = result if result is not None else ""
    if errors is not None:
        frame["errors"] = list(errors)
    if api_error_status is not None or (is_error and terminal_reason == "api_error"):
        frame["api_error_status"] = api_error_status
    return stamp(frame, session_id, user_message_uuid)


def remote_control_answer(session_id: str) -> Frame:
    """Claude Code's answer to `remote_control {enabled: true}`: where the session continues."""
    bridge = f"session_{session_id.replace('-', '')[:24]}"
    return {
        "session_url": f"https://claude.ai/code/{bridge}",
        "connect_url": f"https://claude.ai/code/connect?environment=env_scripted&session={bridge}",
        "environment_id": "env_scripted",
        "bridge_session_id": bridge,
    }


def lifecycle_frame(session_id: str, command_uuid: str, state: str) -> Frame:
    """What became of a user message Claude Code was sent (`command_lifecycle`, as the bundled
    CLI 2.1.332 writes it): `queued` when it enters the queue, `started` when a turn takes it
    in, then one of `completed` and `cancelled` here (the real CLI also has `discarded` and
    `refused`). A message without a uuid gets none."""
    return {
        "type": "command_lifecycle",
        "command_uuid": command_uuid,
        "state": state,
        "uuid": new_uuid(),
        "session_id": session_id,
    }


def remote_echo(session_id: str, text: str) -> Frame:
    """Claude Code's echo of a message a person typed in another client of the session."""
    frame: Frame = {
        "type": "user",
        "message": {"role": "user", "content": text},
        "parent_tool_use_id": None,
        "isReplay": True,
        "origin": {"kind": "human"},
    }
    return stamp(frame, session_id, None)


def startup_failure_frame(reason: str, message: str) -> Frame:
    """The zeroed result the real CLI writes before it exits on a start-up failure it can
    explain (`startup_failure_reason`, its words in `errors`), with no session yet to stamp."""
    return {
        "type": "result",
        "subtype": "error_during_execution",
        "duration_ms": 0,
        "duration_api_ms": 0,
        "is_error": True,
        "num_turns": 0,
        "stop_reason": None,
        "session_id": new_uuid(),
        "total_cost_usd": 0,
        "usage": usage(0, 0),
        "modelUsage": {},
        "permission_denials": [],
        "uuid": new_uuid(),
        "errors": [message],
        "startup_failure_reason": reason,
        "result_index": 0,
    }
