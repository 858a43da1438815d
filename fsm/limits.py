"""Claude's usage-limit windows: the early warning (docs/decisions.md#early-limit-warning) and when
a limit resets.

Theory of operation: Claude Code reports every window a subscription is metered on in each
`rate_limit_event` (`RateLimitReported.windows`). One `LimitWindowWatch` per window name is a
model of the small `WINDOW_MACHINE`, whose table is the warning's policy:

    QUIET  --window_reported [is_a_warning, takes_records] / warn, record_warning  --> WARNED
    QUIET  --window_reported [is_a_warning] / warn, send_notice                     --> WARNED
    WARNED --window_reported [is_allowed] / retire_warning                          --> QUIET
    WARNED --window_reported [is_a_warning, is_a_new_reset, takes_records]
                                          / retire_warning, warn, record_warning
    WARNED --window_reported [is_a_warning, is_a_new_reset] / retire_warning, warn, send_notice
    WARNED --window_reported [is_a_warning, has_a_new_percent, takes_records]
                                          / note_percent, record_warning
    WARNED --window_reported [is_a_warning, has_a_new_percent] / note_percent, send_notice
    WARNED --reset_passed [its_reset_passed] / retire_warning                       --> QUIET

so one warning per window and reset time, revised only when the whole percent changes, retired
(nothing published) at its reset time or when the window reports `allowed`. A window report of
nonsense (no percent, a reset in the past or more than `MAX_RESET_AHEAD_SECONDS` ahead) is not a
warning. The warning's record lives in the ledger (notice namespace,
docs/decisions.md#session-scoped-ids) for a client that `[takes_records]`; an ACP-notices client
gets a `SendNotice` instead (docs/decisions.md#acp-notices); others get nothing (`LimitWatch` runs
no window for them).

The reset of a failed limit (docs/decisions.md#limit-that-resets) is the incident machine's
(`incident.py`: `reset_reached`); `LimitWatch` keeps only the clocks: Claude's reset times are epoch
seconds, the core's deadlines monotonic seconds, and the shell's events carry both (`wall`, `now`).
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any

from fsm.effects import Effect, PublishRecord, SendNotice
from fsm.events import LimitWindow, RateLimitReported
from fsm.ledger import Ledger
from fsm.machine import build_machine, fire, one_row_per_trigger

__all__ = [
    "MAX_RESET_AHEAD_SECONDS",
    "MAX_WINDOWS",
    "TRANSITIONS",
    "WINDOW_MACHINE",
    "LimitWatch",
    "WindowState",
    "reset_clock",
    "sane_reset",
    "warning_title",
    "whole_percent",
    "window_label",
]


# --- the words of a warning: window names, the reset's local clock time, the title --------
# (pure arithmetic on the epoch seconds and UTC offset the shell's events carry)

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


# --- the window machine -------------------------------------------------------------------


class WindowState(Enum):
    QUIET = "quiet"
    WARNED = "warned"


QUIET, WARNED = WindowState.QUIET, WindowState.WARNED

TRANSITIONS: list[dict[str, Any]] = one_row_per_trigger(
    [
        {"trigger": "window_reported", "source": QUIET, "dest": WARNED,
         "conditions": ["is_a_warning", "takes_records"], "before": ["warn", "record_warning"]},
        {"trigger": "window_reported", "source": QUIET, "dest": WARNED,
         "conditions": ["is_a_warning"], "before": ["warn", "send_notice"]},
        {"trigger": "window_reported", "source": QUIET, "dest": None},
        {"trigger": "window_reported", "source": WARNED, "dest": QUIET,
         "conditions": ["is_allowed"], "before": ["retire_warning"]},
        # A new reset time is a new occurrence (docs/decisions.md#early-limit-warning): the old
        # one's entry stays as it is.
        {"trigger": "window_reported", "source": WARNED, "dest": WARNED,
         "conditions": ["is_a_warning", "is_a_new_reset", "takes_records"],
         "before": ["retire_warning", "warn", "record_warning"]},
        {"trigger": "window_reported", "source": WARNED, "dest": WARNED,
         "conditions": ["is_a_warning", "is_a_new_reset"],
         "before": ["retire_warning", "warn", "send_notice"]},
        {"trigger": "window_reported", "source": WARNED, "dest": None,
         "conditions": ["is_a_warning", "has_a_new_percent", "takes_records"],
         "before": ["note_percent", "record_warning"]},
        {"trigger": "window_reported", "source": WARNED, "dest": None,
         "conditions": ["is_a_warning", "has_a_new_percent"],
         "before": ["note_percent", "send_notice"]},
        # The same percent again, a rejection (the failure speaks for itself) or nonsense.
        {"trigger": "window_reported", "source": WARNED, "dest": None},
        {"trigger": "reset_passed", "source": WARNED, "dest": QUIET,
         "conditions": ["its_reset_passed"], "before": ["retire_warning"]},
        {"trigger": "reset_passed", "source": [QUIET, WARNED], "dest": None},
    ]
)  # fmt: skip

WINDOW_MACHINE = build_machine(
    name="limit window", states=WindowState, transitions=TRANSITIONS, initial=QUIET
)


class _Report:
    """One window's part of one event, as the window's guards and callbacks read it."""

    def __init__(self, window: LimitWindow, event: RateLimitReported) -> None:
        self.window, self.zone, self.wall = window, event.zone, event.wall


class LimitWindowWatch:
    """One window's warning: the machine's model. `records`: the client takes warning records
    (sessionFailure); `notices`: it takes ACP notices instead (docs/decisions.md#acp-notices)."""

    state: WindowState

    def __init__(self, *, ledger: Ledger, records: bool, notices: bool) -> None:
        self.ledger, self.records, self.notices = ledger, records, notices
        self.effects: list[Effect] = []
        self.id: str | None = None  # the warning record's id, once one was proposed
        self.resets_at: int | None = None
        self.percent: int | None = None
        WINDOW_MACHINE.add_model(self, initial=QUIET)

    def detach(self) -> None:
        WINDOW_MACHINE.remove_model(self)

    def fire(self, trigger: str, arg: Any) -> list[Effect]:
        self.effects = []
        fire(WINDOW_MACHINE, self, trigger, arg)
        effects, self.effects = self.effects, []
        return effects

    # --- guards ----------------------------------------------------------------------------

    def is_a_warning(self, report: _Report) -> bool:
        window = report.window
        usable = window.utilization is not None and 0 <= window.utilization <= 10
        return (
            window.status == "allowed_warning"
            and usable
            and sane_reset(window.resets_at, report.wall)
        )

    def takes_records(self, *_: Any) -> bool:
        return self.records

    def is_allowed(self, report: _Report) -> bool:
        return report.window.status == "allowed"

    def is_a_new_reset(self, report: _Report) -> bool:
        return report.window.resets_at != self.resets_at

    def has_a_new_percent(self, report: _Report) -> bool:
        assert report.window.utilization is not None  # `is_a_warning` holds
        return whole_percent(report.window.utilization) != self.percent

    def its_reset_passed(self, wall: float) -> bool:
        return self.resets_at is not None and wall >= self.resets_at

    # --- callbacks -------------------------------------------------------------------------

    def warn(self, report: _Report) -> None:
        # A new occurrence: a new id (when it is a record), this reset, its percent.
        self.id = None
        self.resets_at = report.window.resets_at
        self.note_percent(report)

    def note_percent(self, report: _Report) -> None:
        assert report.window.utilization is not None
        self.percent = whole_percent(report.window.utilization)

    def record_warning(self, report: _Report) -> None:
        title = warning_title(report.window, report.zone, report.wall)
        record = self.ledger.propose_limit_warning(id=self.id, text=title)
        self.id = record.id
        self.effects.append(PublishRecord(record=record))

    def send_notice(self, report: _Report) -> None:
        title = warning_title(report.window, report.zone, report.wall)
        self.effects.append(SendNotice(severity="warning", title=title))

    def retire_warning(self, *_: Any) -> None:
        # Internal only (as in docs/decisions.md#recovery): the client keeps its entry; nothing is
        # published.
        if self.id is not None:
            self.ledger.retire_limit_warning(self.id)
        self.id = self.resets_at = self.percent = None


class LimitWatch:
    """Every window of one session, and the two clocks that place Claude's reset times."""

    def __init__(self, *, ledger: Ledger, records: bool, notices: bool) -> None:
        self._ledger, self._records, self._notices = ledger, records, notices
        self._windows: dict[str, LimitWindowWatch] = {}
        self._wall_minus_now: float | None = None  # epoch seconds minus monotonic seconds

    def note_clocks(self, now: float | None, wall: float | None) -> None:
        if now is not None and wall is not None:
            self._wall_minus_now = wall - now

    def wall_at(self, now: float, wall: float | None) -> float | None:
        """The epoch time at monotonic `now` (given, or from the last pair of clocks seen)."""
        if wall is not None:
            return wall
        return None if self._wall_minus_now is None else now + self._wall_minus_now

    def monotonic_at(self, wall: float) -> float | None:
        return None if self._wall_minus_now is None else wall - self._wall_minus_now

    def reported(self, event: RateLimitReported) -> list[Effect]:
        self.note_clocks(event.now, event.wall)
        effects: list[Effect] = []
        if not (self._records or self._notices):
            return effects  # legacy and agentError-only clients get nothing for a warning
        for window in event.windows:
            watch = self._windows.get(window.name)
            if watch is None:
                if len(self._windows) >= MAX_WINDOWS:
                    continue  # a flood of made-up window names makes no warnings
                watch = self._windows[window.name] = LimitWindowWatch(
                    ledger=self._ledger, records=self._records, notices=self._notices
                )
            effects += watch.fire("window_reported", _Report(window, event))
        return effects

    def passed(self, wall: float) -> list[Effect]:
        """Retire the warnings whose reset time is behind `wall` (nothing is published)."""
        effects: list[Effect] = []
        for watch in self._windows.values():
            effects += watch.fire("reset_passed", wall)
        return effects

    def next_reset(self) -> float | None:
        """The earliest reset time (epoch seconds) of a warning still active, or None."""
        resets = [w.resets_at for w in self._windows.values() if w.resets_at is not None]
        return min(resets, default=None)

    def close(self) -> None:
        for watch in self._windows.values():
            watch.detach()
        self._windows.clear()
