"""The scripted Claude's `/goal`, as Claude Code answers it: an `active_goal` frame (the goal
it pursues now, `value: null` once cleared), a line of text and the result. An objective that
starts with "unreachable" is refused instead: no goal frame, and an error result (what a
client must answer by showing the goal it had before).

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

import re
from typing import Any

from adapter.scripted_claude.process_steps import RawFrame
from adapter.scripted_claude.steps import Result, Text, TurnScript

__all__ = ["SET_AT", "goal_script"]

_GOAL = re.compile(r"^/goal(?:\s+([\s\S]*))?$")
SET_AT = 1710000000123  # when every scripted goal was set (epoch ms), for exact frames


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def goal_script(content: Any) -> TurnScript | None:
    """The turn a `/goal` prompt plays (None: the prompt is no `/goal` command)."""
    match = _GOAL.match(_text_of(content))
    if match is None:
        return None
    objective = (match.group(1) or "").strip()
    if not objective:
        return (Text(text="No goal is set."), Result())
    if objective.startswith("unreachable"):
        return (Text(text="That goal cannot be set."), Result(is_error=True, result="refused"))
    value = None
    said = "Goal cleared."
    if objective != "clear":
        value = {"condition": objective, "iterations": 0, "set_at": SET_AT, "tokens_at_start": 0}
        said = f"Goal set: {objective}"
    frame = {"type": "active_goal", "value": value, "uuid": "goal-frame"}
    return (RawFrame(frame=frame), Text(text=said), Result())
