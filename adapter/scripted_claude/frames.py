"""Builders for the stream-json frames the scripted Claude writes (pure functions, no I/O).

Theory of operation: every frame is a plain dict shaped like Claude Code 2.1.332's output and
accepted by `claude_agent_sdk._internal.message_parser.parse_message` (an assistant frame needs
`message.content` as a list and `message.model`; a result needs `subtype, duration_ms,
duration_api_ms, is_error, num_turns, session_id`; a system frame needs `subtype`). Frames a
turn emits carry the session id, and `user_message_uuid` when the prompt came with a uuid.
Ids and times are minted here because this module serves a test double, not the sans-IO core.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from adapter.scripted_claude.handshake import initialize_extras

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
    "message_id",
    "model_refusal_fallback_frame",
    "new_uuid",
    "rate_limit_frame",
    "result_frame",
    "session_state_frame",
    "tool_result_frame",
    "tool_use_id",
    "usage",
    "worker_shutting_down_frame",
]

Frame: TypeAlias = dict[str, Any]

# Reported in `system/init`; the SDK warns about CLIs that report none or an old one.
CLI_VERSION = "2.1.332"
_TOOLS = ("Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "WebFetch", "TodoWrite")


def _uuid4_hex() -> str:
    # `uuid.uuid4().hex` without importing `uuid` (it imports `platform`: a few ms of every
    # start): 122 random bits, the version and variant bits set as RFC 9562 says.
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40
    raw[8] = raw[8] & 0x3F | 0x80
    return raw.hex()


def new_uuid() -> str:
    h = _uuid4_hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def message_id() -> str:
    return f"msg_01{_uuid4_hex()[:22]}"


def tool_use_id() -> str:
    return f"toolu_01{_uuid4_hex()[:22]}"


def usage(input_tokens: int, output_tokens: int) -> Frame:
    """The Messages API `usage` object (zeros for synthetic messages)."""
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def _stamp(frame: Frame, session_id: str, user_message_uuid: str | None) -> Frame:
    frame["session_id"] = session_id
    frame["uuid"] = new_uuid()
    if user_message_uuid is not None:
        frame["user_message_uuid"] = user_message_uuid
    return frame


def init_frame(*, session_id: str, cwd: str, model: str, permission_mode: str) -> Frame:
    return {
        "type": "system",
        "subtype": "init",
        "cwd": cwd,
        "session_id": session_id,
        "tools": list(_TOOLS),
        "mcp_servers": [],
        "model": model,
        "permissionMode": permission_mode,
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
    return _stamp(frame, session_id, user_message_uuid)


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
    return _stamp(frame, session_id, user_message_uuid)


def api_retry_frame(
    *,
    session_id: str,
    attempt: int,
    max_retries: int,
    retry_delay_ms: int,
    error_status: int | None,
    error: str,
    no_response: Mapping[str, int] | None,
) -> Frame:
    frame: Frame = {
        "type": "system",
        "subtype": "api_retry",
        "attempt": attempt,
        "max_retries": max_retries,
        "retry_delay_ms": retry_delay_ms,
        "error_status": error_status,
        "error": error,
    }
    if no_response is not None:
        frame["no_response"] = dict(no_response)
    return _stamp(frame, session_id, None)


def rate_limit_frame(
    *,
    session_id: str,
    status: str,
    resets_at: int,
    rate_limit_type: str,
    utilization: float | None = None,
) -> Frame:
    info: dict[str, object] = {
        "status": status,
        "resetsAt": resets_at,
        "rateLimitType": rate_limit_type,
    }
    if utilization is not None:
        window = {"utilization": utilization, "resetsAt": resets_at, "status": status}
        info.update(utilization=utilization, isUsingOverage=False)
        info["unifiedWindows"] = {rate_limit_type: window}
    return _stamp({"type": "rate_limit_event", "rate_limit_info": info}, session_id, None)


def tool_progress_frame(
    *, session_id: str, tool_use_id: str, tool_name: str, elapsed: float, parent: str | None
) -> Frame:
    frame: Frame = {
        "type": "tool_progress",
        "tool_use_id": tool_use_id,
        "tool_name": tool_name,
        "parent_tool_use_id": parent,
        "elapsed_time_seconds": elapsed,
    }
    return _stamp(frame, session_id, None)


def model_refusal_fallback_frame(
    *,
    session_id: str,
    original_model: str,
    fallback_model: str,
    api_refusal_category: str | None,
    api_refusal_explanation: str | None,
    direction: str,
    scope: str,
    content: str,
) -> Frame:
    frame: Frame = {
        "type": "system",
        "subtype": "model_refusal_fallback",
        "trigger": "refusal",
        "direction": direction,
        "scope": scope,
        "original_model": original_model,
        "fallback_model": fallback_model,
        "request_id": f"req_011{_uuid4_hex()[:21]}",
        "api_refusal_category": api_refusal_category,
        "api_refusal_explanation": api_refusal_explanation,
        "content": content,
    }
    return _stamp(frame, session_id, None)


def worker_shutting_down_frame(*, session_id: str, reason: str) -> Frame:
    frame: Frame = {"type": "system", "subtype": "worker_shutting_down", "reason": reason}
    return _stamp(frame, session_id, None)


def session_state_frame(*, session_id: str, state: str, host_only: bool) -> Frame:
    """`system/session_state_changed`; `host_only` frames are consumed by the SDK itself."""
    frame: Frame = {"type": "system", "subtype": "session_state_changed", "state": state}
    if host_only:
        frame["sdk_host_only"] = True
    return _stamp(frame, session_id, None)


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
    return _stamp(frame, session_id, user_message_uuid)


def control_response(request_id: str, response: Mapping[str, Any]) -> Frame:
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": dict(response)},
    }


def control_error(request_id: str, error: str) -> Frame:
    return {
        "type": "control_response",
        "response": {"subtype": "error", "request_id": request_id, "error": error},
    }


def control_request(request_id: str, request: Mapping[str, Any]) -> Frame:
    return {"type": "control_request", "request_id": request_id, "request": dict(request)}


def control_cancel_request(request_id: str) -> Frame:
    return {"type": "control_cancel_request", "request_id": request_id}


def initialize_response(*, scenario: str, pid: int, model: str) -> Frame:
    """The inner `response` of the initialize answer (`ClaudeSDKClient.get_server_info()`)."""
    del model  # the picker lists aliases; the model in use is named by `system/init`
    return {
        **initialize_extras(),
        "output_style": "default",
        "available_output_styles": ["default"],
        "pid": pid,
        "scripted_claude": {"scenario": scenario, "version": CLI_VERSION},
    }
