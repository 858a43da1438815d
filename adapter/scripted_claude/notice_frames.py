"""Builders for the system frames the scripted Claude writes outside any assistant message:
`api_retry`, rate limit events, tool progress, a model fallback, a worker shutting down, the
session state. Split from `frames.py`, which re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping

from adapter.scripted_claude.frame_ids import Frame, stamp, uuid4_hex

__all__ = [
    "api_retry_frame",
    "model_refusal_fallback_frame",
    "rate_limit_frame",
    "session_state_frame",
    "tool_progress_frame",
    "worker_shutting_down_frame",
]


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
    return stamp(frame, session_id, None)


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
    return stamp({"type": "rate_limit_event", "rate_limit_info": info}, session_id, None)


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
    return stamp(frame, session_id, None)


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
        "request_id": f"req_011{uuid4_hex()[:21]}",
        "api_refusal_category": api_refusal_category,
        "api_refusal_explanation": api_refusal_explanation,
        "content": content,
    }
    return stamp(frame, session_id, None)


def worker_shutting_down_frame(*, session_id: str, reason: str) -> Frame:
    frame: Frame = {"type": "system", "subtype": "worker_shutting_down", "reason": reason}
    return stamp(frame, session_id, None)


def session_state_frame(*, session_id: str, state: str, host_only: bool) -> Frame:
    """`system/session_state_changed`; `host_only` frames are consumed by the SDK itself."""
    frame: Frame = {"type": "system", "subtype": "session_state_changed", "state": state}
    if host_only:
        frame["sdk_host_only"] = True
    return stamp(frame, session_id, None)
