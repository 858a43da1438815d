"""The plan file Claude Code names in ExitPlanMode's input (`planFilePath`) or result
(`filePath`): shown to a JetBrains AIR `planFile` client only while it exists
(`adapter.view.plan_file`)."""

from __future__ import annotations

import os

__all__ = ["existing_plan_file"]


def existing_plan_file(value: object) -> str | None:
    """`value` when it is the absolute path of a regular file (links followed), else None."""
    if not isinstance(value, str) or not os.path.isabs(value):
        return None
    try:
        return value if os.path.isfile(value) else None
    except (OSError, ValueError):
        return None
