"""The steps that are one frame of their own, outside any assistant message: `api_retry`, a rate
limit event, a tool's progress, a model fallback, a worker shutting down, or a raw frame written
verbatim."""

from __future__ import annotations

import time
from typing import Any

from adapter.scripted_claude import frames
from adapter.scripted_claude.steps import (
    ApiRetry,
    ModelRefusalFallback,
    RateLimitEvent,
    RawFrame,
    Step,
    ToolProgress,
    WorkerShuttingDown,
)

__all__ = ["system_frame"]


def system_frame(step: Step, session_id: str) -> dict[str, Any] | None:
    """The frame `step` writes when it is one of these steps, else None."""
    match step:
        case ApiRetry():
            no_response = None
            if step.no_response is not None:
                no_response = {
                    "waited_ms": step.no_response.waited_ms,
                    "retry_wait_ms": step.no_response.retry_wait_ms,
                }
            return frames.api_retry_frame(
                session_id=session_id,
                attempt=step.attempt,
                max_retries=step.max_retries,
                retry_delay_ms=step.retry_delay_ms,
                error_status=step.error_status,
                error=step.error,
                no_response=no_response,
            )
        case RateLimitEvent():
            return frames.rate_limit_frame(
                session_id=session_id,
                status=step.status,
                resets_at=int(time.time()) + step.resets_in_seconds,
                rate_limit_type=step.rate_limit_type,
            )
        case ModelRefusalFallback():
            return frames.model_refusal_fallback_frame(
                session_id=session_id,
                original_model=step.original_model,
                fallback_model=step.fallback_model,
                api_refusal_category=step.api_refusal_category,
                api_refusal_explanation=step.api_refusal_explanation,
                direction=step.direction,
                scope=step.scope,
                content=step.content,
            )
        case ToolProgress():
            return frames.tool_progress_frame(
                session_id=session_id,
                tool_use_id=step.id,
                tool_name=step.tool_name,
                elapsed=step.elapsed,
                parent=step.parent,
            )
        case WorkerShuttingDown(reason=reason):
            return frames.worker_shutting_down_frame(session_id=session_id, reason=reason)
        case RawFrame(frame=frame):
            return dict(frame)
    return None
