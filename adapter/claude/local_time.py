"""The agent's local time zone, as Claude Code names it in its limit messages.

Claude Code writes a reset time in the machine's zone with the zone's IANA name ("resets
10:08pm (Europe/Paris)"); the core formats the same way from what this module reads: the zone's
name and its offset from UTC at a given moment (which differs across a daylight-saving change).
"""

from __future__ import annotations

import datetime
import os
import time
from pathlib import Path

__all__ = ["utc_offset_at", "zone_name"]

_ZONEINFO = "zoneinfo/"
# Names of UTC that Claude Code's runtime (ICU) prints as plain "UTC".
_UTC = frozenset({"Etc/UTC", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "Etc/GMT", "UCT", "Zulu"})


def zone_name() -> str:
    """The IANA name of the local zone ("UTC" when nothing says otherwise)."""
    name = _iana_name()
    return "UTC" if name in _UTC else name


def _iana_name() -> str:
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz and not tz.startswith("/"):
        return tz[:64]  # "Europe/Paris", or a POSIX rule such as "EST5EDT" as it is
    try:
        target = str(Path(tz or "/etc/localtime").resolve())
    except OSError:
        target = ""
    if _ZONEINFO in target:
        return target.rsplit(_ZONEINFO, 1)[1][:64]
    return time.tzname[0][:64] or "UTC"


def utc_offset_at(epoch: int) -> int:
    """The local zone's offset from UTC (seconds) at `epoch`; 0 when it cannot be read."""
    try:
        offset = datetime.datetime.fromtimestamp(epoch).astimezone().utcoffset()
    except (OverflowError, OSError, ValueError):
        return 0
    return 0 if offset is None else int(offset.total_seconds())
