"""JetBrains AIR's goal: `_session/goal` and the goal snapshot AIR shows
(docs/client-authors.md, "JetBrains AIR").

Theory of operation: the agent advertises the goal object to every AIR client; there is no
client capability. `_session/goal {sessionId, action: "set"|"clear", objective?}` becomes Claude
Code's own command, `/goal <objective>` or `/goal clear`, steered into the running turn or, on
an idle session, sent as a prompt (`goal_request` checks the params, -32602 otherwise). A
client prompt (or steer) whose first text is `/goal <argument>` publishes the goal at once, as
`{objective, status: "active", controlMethod}` (or `null` for `clear`; a bare `/goal` says
nothing), and remembers it as pending; then Claude Code's `active_goal` frames are the truth
(`condition` is the objective, with `iterations`, `set_at` as `createdAt` and `last_reason` as
`lastReason`), except that while the command is pending a frame naming another goal is an
older one and is ignored. Once the command's own result arrives (after Claude took the command
up), it is pending no more; if that result failed (an error, a refusal), the goal shown before
it is published again. A cancelled turn keeps the goal. Every snapshot goes to AIR clients only
(`session_info_update._meta.jetbrains.air.goal`). The reference adapter's goal extension and
its `publishGoal*` are the model (docs/reference-adapter.md#goals). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fsm.air.meta import air_info_update

__all__ = [
    "GOAL_METHOD",
    "BadGoalRequest",
    "GoalRequest",
    "Goals",
    "goal_advertisement",
    "goal_request",
]

GOAL_METHOD = "_session/goal"
_ACTIONS = ("set", "clear")


def goal_advertisement() -> dict[str, Any]:
    """The goal object of the agent's AIR declaration (a fresh copy)."""
    return {"version": 1, "controlMethod": GOAL_METHOD, "actions": list(_ACTIONS)}


_COMMAND = re.compile(r"^/goal(?:\s+([\s\S]*))?$")
_UNSET = object()  # no goal published yet


@dataclass(frozen=True, slots=True)
class GoalRequest:
    """A valid `_session/goal`: the session, and the prompt text it becomes."""

    session_id: str
    command: str


@dataclass(frozen=True, slots=True)
class BadGoalRequest:
    """A `_session/goal` to answer -32602 with `message`."""

    message: str


def goal_request(params: object) -> GoalRequest | BadGoalRequest:
    """`_session/goal`'s params checked, in the reference adapter's words."""
    if not isinstance(params, Mapping):
        return BadGoalRequest("goal params must be an object")
    session_id, action, objective = (params.get(k) for k in ("sessionId", "action", "objective"))
    if not isinstance(session_id, str) or not session_id:
        return BadGoalRequest("goal params require a non-empty sessionId")
    if not isinstance(action, str) or action not in _ACTIONS:
        return BadGoalRequest('goal action must be "set" or "clear"')
    if action == "clear":
        return GoalRequest(session_id, "/goal clear")
    if not isinstance(objective, str) or not objective.strip():
        return BadGoalRequest('goal action "set" requires a non-empty objective')
    return GoalRequest(session_id, f"/goal {objective.strip()}")


def _from_command(text: str) -> dict[str, Any] | object | None:
    """The goal a `/goal` command names (None: cleared); `_UNSET` when it names none."""
    match = _COMMAND.match(text)
    argument = (match.group(1) or "").strip() if match else ""
    if not argument:
        return _UNSET
    if argument == "clear":
        return None
    return {"objective": argument, "status": "active", "controlMethod": GOAL_METHOD}


def _snapshot(value: object) -> dict[str, Any] | object | None:
    """Claude Code's `active_goal` value as AIR's snapshot; `_UNSET` for a malformed one."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or not isinstance(value.get("condition"), str):
        return _UNSET
    reason = value.get("last_reason")
    return {
        "objective": value["condition"].strip(),
        "status": "active",
        "iterations": value.get("iterations"),
        "lastReason": reason if reason is not None else None,
        "createdAt": value.get("set_at"),
        "controlMethod": GOAL_METHOD,
    }


@dataclass(slots=True)
class _Pending:
    command_uuid: str
    expected: dict[str, Any] | None
    previous: object
    started: bool = False


class Goals:
    """One session's goal. `air`: the client is an AIR client (the only one told)."""

    def __init__(self, *, air: bool) -> None:
        self.air = air
        self._published: object = _UNSET
        self._pending: _Pending | None = None

    def _publish(self, goal: object) -> list[dict[str, Any]]:
        self._published = goal
        return [air_info_update("goal", goal)] if self.air else []

    def prompted(self, first_text: str | None, message_uuid: str) -> list[dict[str, Any]]:
        """A client prompt or steer, sent to Claude as the user message `message_uuid`."""
        goal = _from_command(first_text) if first_text is not None else _UNSET
        if goal is _UNSET:
            return []
        expected = goal if isinstance(goal, dict) else None
        self._pending = _Pending(message_uuid, expected, self._published)
        return self._publish(goal)

    def taken_up(self, message_uuid: str) -> None:
        """Claude took the user message `message_uuid` up (its echo)."""
        if self._pending is not None and self._pending.command_uuid == message_uuid:
            self._pending.started = True

    def runtime_goal(self, value: object) -> list[dict[str, Any]]:
        """Claude Code's `active_goal` frame's `value`."""
        goal = _snapshot(value)
        if goal is _UNSET:
            return []
        pending = self._pending
        if pending is not None:
            if pending.expected is None:
                matches = goal is None
            else:
                matches = (
                    isinstance(goal, dict) and goal["objective"] == pending.expected["objective"]
                )
            if not matches:
                return []  # an older goal's frame, written before the command ran
            self._pending = None
        return self._publish(goal)

    def result(self, *, failed: bool) -> list[dict[str, Any]]:
        """A turn's result (`failed`: an error or a refusal): once the command's own result is
        in, it is pending no more; a failed command brings the goal before it back."""
        pending = self._pending
        if pending is None or not pending.started:
            return []
        self._pending = None
        if not failed:
            return []
        return self._publish(None if pending.previous is _UNSET else pending.previous)
