"""TodoWrite as the session's plan: each call replaces the whole plan (ACP `plan` update).

Claude's todos are `{content, status, activeForm}` (older Claude Code's also `priority`, kept:
docs/decisions.md#todo-priority, else `medium`); the entry in progress shows its `activeForm`
("Running the tests") as the editor's plan does. A todo of an unusable shape is
left out (the rest of the plan still shows); a call whose `todos` is not a list is no plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fsm import visible

__all__ = ["approved_plan_update", "plan_update"]

_STATUSES = frozenset({"pending", "in_progress", "completed"})
_PRIORITIES = frozenset({"high", "medium", "low"})


def _entry(todo: object) -> dict[str, Any] | None:
    if not isinstance(todo, Mapping):
        return None
    content, status = todo.get("content"), todo.get("status")
    if not isinstance(content, str) or not content or status not in _STATUSES:
        return None
    active = todo.get("activeForm")
    if status == "in_progress" and isinstance(active, str) and active:
        content = active
    priority = todo.get("priority")
    return {
        "content": visible(content),  # Claude's words, shown as a line: no control characters
        "status": status,
        "priority": priority if priority in _PRIORITIES else "medium",
    }


def plan_update(tool_input: object) -> dict[str, Any] | None:
    """The `plan` update for one TodoWrite call, or None when its input holds no todo list."""
    todos = tool_input.get("todos") if isinstance(tool_input, Mapping) else None
    if not isinstance(todos, list):
        return None
    entries = [entry for entry in map(_entry, todos) if entry is not None]
    return {"sessionUpdate": "plan", "entries": entries}


def approved_plan_update(plan: str, plan_id: str) -> dict[str, Any]:
    """The `plan_update` (ACP's markdown plan) for a plan the user approved when leaving plan
    mode (the result's, or a fresh context's), under the id the core gives it
    (`fsm.AirClient.approved_plan_id`); markdown as Claude wrote it, as the ExitPlanMode card
    shows it."""
    return {
        "sessionUpdate": "plan_update",
        "plan": {"type": "markdown", "planId": plan_id, "content": plan},
    }
