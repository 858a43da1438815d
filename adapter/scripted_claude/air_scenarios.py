"""Scenarios for a JetBrains AIR client: permission questions carrying what AIR shows in its
approval heading (Claude Code's reason for asking, its `default_to_no` hint).

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

from adapter.scripted_claude.session_scenarios import PLAN
from adapter.scripted_claude.steps import Permission, Result, Scenario, ToolUse

__all__ = ["AIR_SCENARIOS"]

_TEST = {"command": "npm  test\t--watch=false", "description": "Run the tests"}
_NOTES = {"file_path": "notes.md", "content": "Remember the milk.\n"}
_APP_EDIT = {
    "file_path": "{cwd}/src/app.py",
    "old_string": "    return 'Hello ' + name",
    "new_string": "    return f'Hello {name}!'",
}
_NEW_FILE = {"file_path": "{cwd}/src/new file.py", "content": "x = 1\ny = 2"}
# Where Claude Code drafted the plan: the test writes the file (or not) before the prompt.
PLAN_FILE = "{cwd}/plans/plan.md"

AIR_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="air_permission",
        description="A Bash permission with Claude Code's reason and default_to_no, then a "
        "Write permission with neither.",
        turns=(
            (
                Permission(
                    tool_name="Bash",
                    input=_TEST,
                    result="ok",
                    hints={
                        "default_to_no": True,
                        "decision_reason": " Needed to\x07 verify\nthe change. ",
                    },
                ),
                Permission(tool_name="Write", input=_NOTES, result="written"),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="air_plan_file",
        description="Claude plans and asks to leave plan mode; the ExitPlanMode input names "
        "its plan file ({cwd}/plans/plan.md), as Claude Code's does.",
        turns=(
            (
                ToolUse(name="EnterPlanMode", input={}, result="Entered plan mode."),
                Permission(
                    tool_name="ExitPlanMode",
                    input={"plan": PLAN, "planFilePath": PLAN_FILE},
                    result="User has approved your plan.",
                ),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="air_diff_patch",
        description="An Edit of {cwd}/src/app.py and a Write of {cwd}/src/new file.py, each "
        "asked about, allowed and carried out on disk; the results say what changed.",
        turns=(
            (
                Permission(tool_name="Edit", input=_APP_EDIT, result="updated", applies=True),
                Permission(tool_name="Write", input=_NEW_FILE, result="created", applies=True),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="air_skill",
        description="Claude loads the skill `deploy` (a SKILL.md the test writes under "
        "{cwd}/.claude/skills) and Claude Code's bundled `simplify`, which has no file.",
        turns=(
            (
                ToolUse(name="Skill", input={"skill": "deploy"}, result="Launching skill: deploy"),
                ToolUse(name="Skill", input={"skill": "simplify"}, result="Launching skill"),
                Result(),
            ),
        ),
    ),
)
