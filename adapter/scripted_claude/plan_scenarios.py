"""Scenarios for leaving plan mode in a fresh context.

Theory of operation: Claude enters plan mode by itself and asks to leave it with a plan
(ExitPlanMode). A "clear context" answer is a denial with an interrupt, which ends the turn the
way an interrupt does; the adapter then starts a fresh process under a new session id that it
has linked to the ACP session (`<config>/claude-acp/links/<acp id>.json`), so the fake knows it
was started as a fresh context (`is_fresh_context`) and plays the scenario's `fresh_start`
first (a slow start, a failed one). That process's first message, "Implement the following
plan: ...", gets the scenario's `continuation` (`script_for`); every message it receives is in
the fake's log (kind `user`).

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapter.scripted_claude.goal_command import goal_script
from adapter.scripted_claude.session_scenarios import PLAN
from adapter.scripted_claude.steps import (
    Exit,
    Permission,
    Result,
    Scenario,
    Sleep,
    Text,
    ToolUse,
    TurnScript,
)
from adapter.scripted_claude.transcript import config_dir

__all__ = ["IMPLEMENTING", "PLAN_SCENARIOS", "is_fresh_context", "script_for"]

CONTINUATION_PREFIX = "Implement the following plan:"
IMPLEMENTING = "Implementing the plan: reading the code first."
# Long enough for a test to cancel while it waits, short enough not to hold a test up.
SLOW_START_SECONDS = 3.0

_PLANNING: TurnScript = (
    ToolUse(name="EnterPlanMode", input={}, result="Entered plan mode."),
    Text(text="Here is my plan."),
    Permission(tool_name="ExitPlanMode", input={"plan": PLAN}, result="Plan approved"),
    Result(),
)
_CONTINUATION: TurnScript = (Text(text=IMPLEMENTING), Result())


def _scenario(name: str, description: str, fresh_start: TurnScript = ()) -> Scenario:
    return Scenario(
        name=name,
        description=description,
        turns=(_PLANNING,),
        fresh_start=fresh_start,
        continuation=_CONTINUATION,
    )


PLAN_SCENARIOS: tuple[Scenario, ...] = (
    _scenario(
        "plan_clear",
        "Claude plans, asks to leave plan mode; a fresh context implements the plan.",
    ),
    _scenario(
        "plan_clear_slow_start",
        "As plan_clear, but the fresh context's process takes 3 s to start.",
        (Sleep(seconds=SLOW_START_SECONDS),),
    ),
    _scenario(
        "plan_clear_start_fails",
        "As plan_clear, but the fresh context's process exits before its handshake.",
        (Exit(code=1),),
    ),
)


def is_fresh_context(session_id: str | None, env: Mapping[str, str]) -> bool:
    """Whether the adapter linked an ACP session to `session_id` (a fresh context)."""
    if not session_id:
        return False
    folder = config_dir(env) / "claude-acp" / "links"
    try:
        paths = list(folder.glob("*.json"))
    except OSError:
        return False
    for path in paths:
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("claude") == session_id:
            return True
    return False


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def script_for(scenario: Scenario, turn_index: int, content: Any) -> TurnScript:
    """The script for one user message: the continuation for the plan, Claude Code's own
    `/goal` command, else the turn's."""
    goal = goal_script(content)
    if goal is not None:
        return goal
    if scenario.continuation and _text_of(content).startswith(CONTINUATION_PREFIX):
        return scenario.continuation
    return scenario.script_for(turn_index)
