"""The words of a usage-limit warning: window names, the reset's local clock time, the title.

Kept apart from the window machine (`limits.py`) because it is wording, not policy; it is pure
arithmetic on the epoch seconds and UTC offset the shell's events carry.
"""

from __future__ import annotations

import re

from fsm.claude_events import LimitWindow

__all__ = [
    "MAX_RESET_AHEAD_SECONDS",
    "MAX_WINDOWS",
    "reset_clock",
    "sane_reset",
    "warning_title",
    "whole_percent",
    "window_label",
]

# The longest window Claude Code meters is a week: a reset further ahead than this is nonsense.
MAX_RESET_AHEAD_SECONDS = 31 * 86_400
# Claude Code names six windows; more than this many names in one session is nonsense.
MAX_WINDOWS = 8

# Claude Code's own words for its windows (its limit messages: "your 5-hour limit").
_LABELS = {
    "five_hour": "5-hour",
    "seven_day": "weekly",
    "seven_day_opus": "weekly Opus",
    "seven_day_sonnet": "weekly Sonnet",
    "seven_day_overage_included": "weekly",
    "overage": "extra usage",
}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def window_label(name: str) -> str:
    """How a window reads in a title: Claude Code's name for it, else its own name made
    readable (`seven_day_haiku` reads "seven-day haiku"); nonsense reads "usage"."""
    if name in _LABELS:
        return _LABELS[name]
    if not re.fullmatch(r"[a-z0-9_]{1,40}", name):
        return "usage"
    return name.replace("_day", "-day").replace("_hour", "-hour").replace("_", " ")


def _civil(days: int) -> tuple[int, int, int]:
    # Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's method):
    # the core reads no clock and imports no `datetime`.
    days += 719_468
    era = days // 146_097
    doe = days - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def reset_clock(resets_at: int, utc_offset_seconds: int, zone: str, wall: float | None) -> str:
    """A reset time as Claude Code writes it: "10:08pm (UTC)", "10pm (Europe/Paris)", with
    the date first ("Dec 8, 10am (UTC)") when it is more than a day after `wall`."""
    # To the nearest minute, as Claude Code shows 22:07:56 ("resets 10:08pm").
    local = (resets_at + utc_offset_seconds + 30) // 60 * 60
    days, seconds = divmod(local, 86_400)
    hour, minute = seconds // 3600, seconds % 3600 // 60
    twelve = f"{hour % 12 or 12}{'' if minute == 0 else f':{minute:02d}'}"
    clock = twelve + ("am" if hour < 12 else "pm")
    if wall is not None and resets_at - wall > 86_400:
        _, month, day = _civil(days)
        clock = f"{_MONTHS[month - 1]} {day}, {clock}"
    return f"{clock} ({zone})"


def warning_title(window: LimitWindow, zone: str, wall: float | None) -> str:
    """`You've used 92% of your 5-hour limit · resets 10:08pm (UTC)` (the style of
    docs/decisions.md#early-limit-warning)."""
    assert window.utilization is not None and window.resets_at is not None
    percent = whole_percent(window.utilization)
    reset = reset_clock(window.resets_at, window.utc_offset_seconds, zone, wall)
    return f"You've used {percent}% of your {window_label(window.name)} limit · resets {reset}"


def whole_percent(utilization: float) -> int:
    return int(utilization * 100 + 1e-9)  # whole percent, never rounded up past the truth


def sane_reset(resets_at: int | None, wall: float | None) -> bool:
    """A reset time a user could plan around: after `wall` and within a month of it."""
    if resets_at is None:
        return False
    return wall is None or wall < resets_at <= wall + MAX_RESET_AHEAD_SECONDS
