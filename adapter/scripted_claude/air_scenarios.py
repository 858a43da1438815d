"""Scenarios for a JetBrains AIR client: permission questions carrying what AIR shows in its
approval heading (Claude Code's reason for asking, its `default_to_no` hint), and a subagent
whose work AIR shows as a session of its own (`nativeSubagentSessions`), with the
configuration its hooks report.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

from adapter.scripted_claude.background_scenarios import system_frame, task_notification
from adapter.scripted_claude.session_scenarios import PLAN
from adapter.scripted_claude.steps import (
    FireHook,
    Permission,
    RawFrame,
    Result,
    Scenario,
    Text,
    ToolProgress,
    ToolResult,
    ToolUse,
)

__all__ = [
    "AIR_SCENARIOS",
    "ISSUE_CALL",
    "REVIEW_AGENT",
    "REVIEW_CALL",
    "SCOUT_AGENT",
    "SCOUT_CALL",
    "TESTS_CALL",
]

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

# The subagent of `air_subagents`: the Agent call that launches it, and its agent id.
SCOUT_CALL = "toolu_scout"
SCOUT_AGENT = "a91c2e7f5d3b4c60"
_SCOUT_INPUT = {
    "description": "Scout the parser",
    "prompt": "Find where the input is parsed and report the function.",
    "subagent_type": "Explore",
}


def _subagent_started(agent_id: str, call: str, agent_input: dict[str, str]) -> RawFrame:
    """Claude Code started the subagent of the Agent call `call`, in the foreground, as the
    call's input asked."""
    return system_frame(
        "task_started",
        uuid=f"started-{agent_id}",
        task_id=agent_id,
        tool_use_id=call,
        description=agent_input["description"],
        subagent_type=agent_input["subagent_type"],
        task_type="local_agent",
        prompt=agent_input["prompt"],
    )


_SCOUT_STARTED = _subagent_started(SCOUT_AGENT, SCOUT_CALL, _SCOUT_INPUT)
_SCOUT_GREP = {"command": "grep -n parse src/app.py", "description": "Find the parser"}

# The subagent of `air_subagent_config`: a `reviewer` (the project's own agent type) whose hooks
# say what it runs with.
REVIEW_CALL = "toolu_review"
REVIEW_AGENT = "b72d4e1f0a9c3b85"
_REVIEW = {"agent_id": REVIEW_AGENT, "agent_type": "reviewer"}
_REVIEW_READ = {"file_path": "{cwd}/src/app.py"}
_REVIEW_INPUT = {
    "description": "Review the change",
    "prompt": "Review the parser change.",
    "subagent_type": "reviewer",
}


# The calls of `air_repeated_meta`: a running shell command whose card is reported again and
# again (refined, running, beating, ended), and an MCP server's tool.
TESTS_CALL = "toolu_01tests00000000000000000"
ISSUE_CALL = "toolu_01issue00000000000000000"


def _review_hook(event: str, **more: object) -> FireHook:
    return FireHook(event=event, input={**_REVIEW, **more})


def _review_read_hook(event: str) -> FireHook:
    """A hook around the reviewer's Read (`PreToolUse` or `PostToolUse`), as it runs then."""
    return _review_hook(
        event,
        permission_mode="default",
        effort={"level": "high"},
        tool_name="Read",
        tool_input=_REVIEW_READ,
        tool_use_id="toolu_review_read",
    )


AIR_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="air_subagents",
        description="Claude sends an Explore subagent to scout the parser (its words, a Read "
        "and a Bash it asks about are its own session's), then asks for an agent type that "
        "does not exist (that call fails); a second prompt has the scout speak again.",
        turns=(
            (
                ToolUse(name="Agent", id=SCOUT_CALL, input=_SCOUT_INPUT, result=None),
                _SCOUT_STARTED,
                Text(text="Reading the parser first.", parent=SCOUT_CALL),
                ToolUse(
                    name="Read",
                    input={"file_path": "{cwd}/src/app.py"},
                    result="def parse(text):\n    return text.split()",
                    parent=SCOUT_CALL,
                ),
                Permission(
                    tool_name="Bash",
                    input=_SCOUT_GREP,
                    result="1:def parse(text):",
                    hints={"agent_id": SCOUT_AGENT},
                    parent=SCOUT_CALL,
                ),
                Text(text="The input is parsed by parse() in src/app.py.", parent=SCOUT_CALL),
                task_notification(SCOUT_AGENT, SCOUT_CALL, "Found the parser", "completed"),
                ToolResult(id=SCOUT_CALL, result="The input is parsed by parse() in src/app.py."),
                ToolUse(
                    name="Agent",
                    id="toolu_missing",
                    input={
                        "description": "Ask a planner",
                        "prompt": "Plan.",
                        "subagent_type": "Planner",
                    },
                    result="Agent type 'Planner' not found.",
                    is_error=True,
                ),
                Text(text="The scout found the parser: parse() in src/app.py."),
                Result(),
            ),
            # After a load, Claude Code runs the scout again: its words name its old launch.
            (
                Text(text="Picking up where I left off.", parent=SCOUT_CALL),
                Text(text="The scout is back on it."),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="air_subagent_config",
        description="Claude sends a reviewer subagent whose hooks say what it runs with (its "
        "mode and agent type before it is announced, then its effort, a hook of another shape, "
        "a model it switched to, and a hook after its end).",
        turns=(
            (
                ToolUse(
                    name="Agent",
                    id=REVIEW_CALL,
                    input=_REVIEW_INPUT,
                    result=None,
                ),
                _review_hook("SubagentStart", permission_mode="default"),
                _subagent_started(REVIEW_AGENT, REVIEW_CALL, _REVIEW_INPUT),
                Text(text="Reading the change.", parent=REVIEW_CALL),
                _review_read_hook("PreToolUse"),
                ToolUse(
                    name="Read",
                    id="toolu_review_read",
                    input=_REVIEW_READ,
                    result="def parse(text):\n    return text.split()",
                    parent=REVIEW_CALL,
                ),
                _review_read_hook("PostToolUse"),
                # A hook of another shape, and one of the main thread: nothing to tell.
                FireHook(
                    event="PostToolUseFailure",
                    input={"agent_id": 7, "permission_mode": ["plan"], "effort": "max"},
                ),
                FireHook(event="PreToolUse", input={"permission_mode": "plan"}),
                Text(text="The change looks right.", parent=REVIEW_CALL),
                _review_hook(
                    "PostModelSwitch", from_model="sonnet", to_model="opus", source="command"
                ),
                task_notification(REVIEW_AGENT, REVIEW_CALL, "Reviewed", "completed"),
                # After its end: AIR takes no configuration of an ended child.
                _review_hook("SubagentStop", permission_mode="plan", stop_hook_active=False),
                ToolResult(id=REVIEW_CALL, result="The change looks right."),
                Text(text="The reviewer approved the change."),
                Result(),
            ),
        ),
    ),
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
    Scenario(
        name="air_repeated_meta",
        description="Claude runs the tests (a Bash call whose card is refined as its input "
        "streams, then beats twice while it runs and ends with its output), then files an "
        "issue through the github MCP server's tool.",
        turns=(
            (
                ToolUse(name="Bash", input=_TEST, result=None, id=TESTS_CALL),
                ToolProgress(id=TESTS_CALL, tool_name="Bash", elapsed=1),
                ToolProgress(id=TESTS_CALL, tool_name="Bash", elapsed=2.5),
                ToolResult(id=TESTS_CALL, result="2 passed"),
                ToolUse(
                    name="mcp__github__create_issue",
                    input={"title": "Flaky test"},
                    result="Created #7",
                    id=ISSUE_CALL,
                ),
                Text(text="Filed it."),
                Result(),
            ),
        ),
    ),
)
