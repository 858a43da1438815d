"""Claude Code's task list (the Task* tools and the TaskCreated/TaskCompleted hooks) as the
session's plan, as the reference adapter shows it (docs/reference-adapter.md#task-plan).

Newer Claude Code plans with `TaskCreate {subject, description?, activeForm?}`,
`TaskUpdate {taskId, status?, subject?, activeForm?, …}` (status `deleted` removes the task),
`TaskList` and `TaskGet` instead of TodoWrite. None of them is a card: each successful result
that changes the list sends the whole list as an ACP `plan` update (TaskGet reads only, and
sends nothing). TaskList's answer is Claude Code's own snapshot, so it replaces the list (a
resumed or compacted session whose creating calls are gone is repaired by it). The hooks say the
same changes with ids and subjects, which lets a TaskUpdate that carries only `taskId` and
`status` find its task.

The list lives as long as the session's view (kept across turns); a conversation reset
(`system/conversation_reset`: Claude Code started a fresh conversation whose task ids are new)
clears it and sends the empty plan. A result, an input or a hook of another shape changes
nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from fsm import visible

__all__ = ["TASK_TOOLS", "TaskPlan"]

Wire = dict[str, Any]

TASK_TOOLS = frozenset({"TaskCreate", "TaskUpdate", "TaskList", "TaskGet"})
_STATUSES = frozenset({"pending", "in_progress", "completed"})
_CREATED = re.compile(r"^Task #(\S+) created successfully: (.+)$")
_LISTED = re.compile(r"^#(\S+) \[(pending|in_progress|completed)\] (.+)$")
# Claude Code keeps a list of tens of tasks; past this many it is not a plan a person reads.
_MAX_TASKS = 500


@dataclass(frozen=True, slots=True)
class _Task:
    subject: str
    status: str = "pending"
    active_form: str | None = None


def _str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def _texts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, Mapping) and isinstance(block.get("text"), str)
    ]


def _structured(output: object, content: object, key: str) -> Mapping[str, Any] | None:
    """The tool's structured answer (`tool_use_result`, else JSON text) holding `key`."""
    if isinstance(output, Mapping) and key in output:
        return output
    for text in _texts(content):
        try:
            parsed = json.loads(text)
        except ValueError:
            continue
        if isinstance(parsed, Mapping) and key in parsed:
            return parsed
    return None


class TaskPlan:
    """One session's task list, in the order the tasks were made."""

    def __init__(self) -> None:
        self._tasks: dict[str, _Task] = {}

    def tool_result(
        self, name: str, tool_input: object, content: object, output: object, *, is_error: bool
    ) -> list[Wire]:
        """The `plan` a Task* tool's result makes (none for an error or a read)."""
        tool_input = tool_input if isinstance(tool_input, Mapping) else {}
        changed = False
        if not is_error and name == "TaskCreate":
            changed = self._created(tool_input, content, output)
        elif not is_error and name == "TaskUpdate":
            changed = self._updated(tool_input, content, output)
        elif not is_error and name == "TaskList":
            changed = self._listed(content, output)
        return [self.update()] if changed else []

    def hook(self, data: object) -> list[Wire]:
        """The `plan` a TaskCreated/TaskCompleted hook makes (none when it changes nothing)."""
        if not isinstance(data, Mapping):
            return []
        task_id, event = _str(data, "task_id"), data.get("hook_event_name")
        if task_id is None:
            return []
        if event == "TaskCreated":
            subject = _str(data, "task_subject")
            if subject is None or task_id in self._tasks or len(self._tasks) >= _MAX_TASKS:
                return []
            self._tasks[task_id] = _Task(subject)
            return [self.update()]
        if event == "TaskCompleted":
            task = self._tasks.get(task_id)
            if task is None or task.status == "completed":
                return []
            self._tasks[task_id] = replace(task, status="completed")
            return [self.update()]
        return []

    def reset(self) -> list[Wire]:
        """A fresh conversation: its tasks are new, the old plan is gone."""
        self._tasks.clear()
        return [self.update()]

    def update(self) -> Wire:
        entries = [
            {
                "content": visible(
                    task.active_form
                    if task.status == "in_progress" and task.active_form
                    else task.subject
                ),
                "status": task.status,
                "priority": "medium",
            }
            for task in self._tasks.values()
        ]
        return {"sessionUpdate": "plan", "entries": entries}

    def _created(self, tool_input: Mapping[str, Any], content: object, output: object) -> bool:
        task_id, subject = None, _str(tool_input, "subject")
        saved = _structured(output, content, "task")
        task = saved.get("task") if saved is not None else None
        if isinstance(task, Mapping):
            task_id = _str(task, "id")
            subject = _str(task, "subject") or subject  # as saved: a hook may have changed it
        else:
            for text in _texts(content):
                match = _CREATED.match(text.strip())
                if match:
                    task_id, subject = match[1], subject or match[2]
        if task_id is None or subject is None or len(self._tasks) >= _MAX_TASKS:
            return False
        active = _str(tool_input, "activeForm")
        self._tasks[task_id] = _Task(subject, "pending", active)
        return True

    def _updated(self, tool_input: Mapping[str, Any], content: object, output: object) -> bool:
        task_id = _str(tool_input, "taskId")
        if task_id is None:
            return False
        answer = _structured(output, content, "success")
        if answer is not None and (
            answer.get("success") is not True or answer.get("taskId") != task_id
        ):
            return False
        if any(t.strip() == f"Task #{task_id} not found" for t in _texts(content)):
            return False
        status = tool_input.get("status")
        if status == "deleted":
            return self._tasks.pop(task_id, None) is not None
        existing = self._tasks.get(task_id)
        subject = _str(tool_input, "subject") or (existing.subject if existing else None)
        if subject is None or (existing is None and len(self._tasks) >= _MAX_TASKS):
            return False
        self._tasks[task_id] = _Task(
            subject,
            status if status in _STATUSES else (existing.status if existing else "pending"),
            _str(tool_input, "activeForm") or (existing.active_form if existing else None),
        )
        return True

    def _listed(self, content: object, output: object) -> bool:
        listed = _structured(output, content, "tasks")
        found: list[tuple[str, str, str]] = []
        if listed is not None and isinstance(listed.get("tasks"), list):
            for task in listed["tasks"]:
                if not isinstance(task, Mapping):
                    return False
                ident, subject, status = _str(task, "id"), _str(task, "subject"), task.get("status")
                if ident is None or subject is None or status not in _STATUSES:
                    return False
                found.append((ident, subject, str(status)))
        else:
            texts = [t.strip() for t in _texts(content)]
            if "No tasks found" not in texts:
                lines = [line for text in texts for line in text.splitlines()]
                matches = [_LISTED.match(line) for line in lines]
                if not lines or not all(matches):
                    return False
                found = [(m[1], m[3], m[2]) for m in matches if m]
        previous = self._tasks
        self._tasks = {
            ident: _Task(
                subject, status, previous[ident].active_form if ident in previous else None
            )
            for ident, subject, status in found[:_MAX_TASKS]
        }
        return True
