"""A subscription's usage limits as the scripted Claude plays them: each window keeps the reset
time it was first reported with (until it passes), Claude Code's limit message names that time,
and the turn after a rejection fails again until it has passed.

Standard library only (the fake CLI imports it at start-up).
"""

from __future__ import annotations

import os
import time

from adapter.scripted_claude import frames
from adapter.scripted_claude.session import SessionState
from adapter.scripted_claude.steps import (
    AssistantError,
    LimitMessage,
    RateLimitEvent,
    Reply,
    Result,
    Scenario,
    TurnScript,
    UsageLimitGate,
)

__all__ = ["LIMIT_RESET_SECONDS", "LIMIT_SCENARIOS", "expand", "limit_text", "rate_limit_frame"]

_NAMES = {"five_hour": "5-hour", "seven_day": "weekly", "seven_day_opus": "weekly Opus"}


def _reset(state: SessionState, window: str, resets_in: int) -> int:
    now = int(time.time())
    anchor = state.limit_resets.get(window)
    if anchor is None or anchor <= now:
        anchor = state.limit_resets[window] = now + resets_in
    return anchor


def rate_limit_frame(step: RateLimitEvent, state: SessionState) -> frames.Frame:
    return frames.rate_limit_frame(
        session_id=state.session_id,
        status=step.status,
        resets_at=_reset(state, step.rate_limit_type, step.resets_in_seconds),
        rate_limit_type=step.rate_limit_type,
        utilization=step.utilization,
    )


def limit_text(window: str, resets_at: int) -> str:
    """Claude Code's words: "You've hit your 5-hour limit · resets 10:08pm (UTC)"."""
    local = time.localtime(resets_at + 30)  # to the nearest minute
    hour = local.tm_hour % 12 or 12
    minutes = "" if local.tm_min == 0 else f":{local.tm_min:02d}"
    clock = f"{hour}{minutes}{'am' if local.tm_hour < 12 else 'pm'}"
    zone = os.environ.get("TZ", "") or ("UTC" if time.timezone == 0 else time.tzname[0])
    name = _NAMES.get(window, window.replace("_", " "))
    return f"You've hit your {name} limit \u00b7 resets {clock} ({zone})"


def expand(step: LimitMessage | UsageLimitGate, state: SessionState) -> TurnScript:
    """The plain steps `step` plays now."""
    window = step.rate_limit_type
    resets_at = state.limit_resets.get(window)
    if isinstance(step, UsageLimitGate) and (resets_at is None or resets_at <= time.time()):
        # The window is open again: Claude Code says so (its status changed) and answers.
        allowed = RateLimitEvent(status="allowed", rate_limit_type=window, utilization=0.01)
        return (allowed, Reply(), Result())
    text = limit_text(window, resets_at if resets_at is not None else _reset(state, window, 60))
    return (
        AssistantError(error="rate_limit", text=text, api_error_status=429),
        Result(
            is_error=True,
            result=text,
            api_error_status=429,
            terminal_reason="api_error",
            stop_reason="stop_sequence",
        ),
    )


# How soon the scenario's 5-hour window resets after it is first reported (a demo's wait).
LIMIT_RESET_SECONDS = 8

LIMIT_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="usage_limit_resets",
        description=(
            f"A subscription near its 5-hour limit (92%, then 97%), then rejected at it; the "
            f"window resets {LIMIT_RESET_SECONDS} s after it was first reported (or 6 s after "
            "the rejection, if that is later). A prompt before the reset fails again, one "
            "after it is answered."
        ),
        turns=(
            (
                RateLimitEvent(
                    status="allowed_warning",
                    utilization=0.92,
                    resets_in_seconds=LIMIT_RESET_SECONDS,
                ),
                Reply(),
                Result(),
            ),
            (RateLimitEvent(status="allowed_warning", utilization=0.97), Reply(), Result()),
            (
                RateLimitEvent(status="rejected", utilization=1.0, resets_in_seconds=6),
                LimitMessage(),
            ),
            *((UsageLimitGate(),) for _ in range(8)),
        ),
    ),
)
