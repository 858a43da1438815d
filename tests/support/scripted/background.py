"""Work Claude does in the background, and steering, as the scripted Claude plays them: for
tests/shell/test_background_and_steering.py (in process) and, a Claude that hangs,
tests/e2e/test_background_and_steering.py.
"""

from __future__ import annotations

from typing import Any

from adapter.scripted_claude.background_scenarios import autonomous_result
from adapter.scripted_claude.steps import (
    Hang,
    Permission,
    RawFrame,
    Reply,
    Result,
    Scenario,
    Sleep,
    Text,
    ToolResult,
    ToolUse,
)

__all__ = ["SCENARIOS"]


def system(subtype: str, **fields: Any) -> RawFrame:
    return RawFrame(
        frame={
            "type": "system",
            "subtype": subtype,
            "session_id": "x",
            "uuid": "u-" + subtype + str(len(fields)),
            **fields,
        }
    )


agent = ToolUse(
    name="Agent",
    id="ag1",
    result="Async agent launched successfully.",
    input={"description": "Audit the code", "prompt": "Audit", "run_in_background": True},
)
started = system(
    "task_started",
    task_id="a1",
    tool_use_id="ag1",
    description="Audit the code",
    subagent_type="general-purpose",
    task_type="local_agent",
)
# The bundled CLI's start of a subagent that runs in the background.
started_bg = system(
    "task_started",
    task_id="a1",
    tool_use_id="ag1",
    description="Audit the code",
    subagent_type="general-purpose",
    task_type="local_agent",
    is_backgrounded=True,
)
ended = system("task_updated", task_id="a1", patch={"status": "completed"})
finished = system(
    "task_notification",
    task_id="a1",
    tool_use_id="ag1",
    status="completed",
    output_file="/tmp/a1.out",
    summary="Audit done",
)
followed_up = autonomous_result(4, input_tokens=3, cost_usd=0.0)
# The bundled CLI's start of a subagent in the foreground, and its move to the background (a
# steer, or the user): a `task_updated` whose patch says so.
started_fg = system(
    "task_started",
    task_id="a1",
    tool_use_id="ag1",
    description="Audit the code",
    subagent_type="general-purpose",
    task_type="local_agent",
    is_backgrounded=False,
)
moved = system("task_updated", task_id="a1", patch={"is_backgrounded": True})
# The result of work Claude Code ran on its own with no origin that says so (a scheduled task,
# a `/loop` fire): the follow-up's frame without its `origin`.
fired = RawFrame(frame={k: v for k, v in followed_up.frame.items() if k != "origin"})
SCENARIOS = [
    Scenario(
        name="background",
        description="",
        turns=(
            (
                agent,
                started,
                Text(text="The audit runs in the background."),
                Result(),
                Sleep(seconds=0.3),
                finished,
                Permission(tool_name="Bash", input={"command": "git diff"}, result="diff"),
                Text(text="The audit found two issues."),
                followed_up,
            ),
        ),
    ),
    # The bundled CLI with a quick subagent: it ends before the turn's own result, and the
    # follow-up it woke Claude for comes right after that result.
    Scenario(
        name="background_early",
        description="",
        turns=(
            (
                agent,
                started_bg,
                Text(text="The audit runs in the background."),
                ended,
                finished,
                Result(),
                Text(text="The audit found two issues."),
                followed_up,
            ),
        ),
    ),
    Scenario(
        name="background_early_quiet",
        description="",
        turns=(
            (
                agent,
                started_bg,
                Text(text="The audit runs in the background."),
                ended,
                finished,
                Result(),
            ),
        ),
    ),
    Scenario(
        name="background_plan",
        description="",
        turns=(
            (
                agent,
                started,
                Text(text="The audit runs in the background."),
                Result(),
                Sleep(seconds=0.3),
                finished,
                Permission(
                    tool_name="ExitPlanMode", input={"plan": "1. Fix the parser"}, result="ok"
                ),
                Text(text="The audit found two issues."),
                followed_up,
            ),
        ),
    ),
    # The subagent asks the user while the turn is held; the user never answers.
    Scenario(
        name="background_asks",
        description="",
        turns=(
            (
                agent,
                started,
                Text(text="The audit runs in the background."),
                Result(),
                Permission(tool_name="Bash", input={"command": "git push"}, result="pushed"),
                Text(text="Pushed."),
                finished,
                followed_up,
            ),
        ),
    ),
    # After the turn was answered (AIR's opt-out), Claude's own follow-up opens a card its
    # result leaves open.
    Scenario(
        name="background_open_card",
        description="",
        turns=(
            (
                agent,
                started,
                Text(text="The audit runs in the background."),
                Result(),
                finished,
                ToolUse(name="Read", id="rd1", input={"file_path": "/tmp/audit.txt"}, result=None),
                Text(text="The audit found two issues."),
                followed_up,
            ),
        ),
    ),
    # After the turn was answered, a `/loop` fire runs between turns: a card, then a result
    # with no origin (docs/decisions.md#own-work-ends-its-cards).
    Scenario(
        name="loop_fire_open_card",
        description="",
        turns=(
            (
                Text(text="The loop is set."),
                Result(),
                ToolUse(name="Read", id="lp1", input={"file_path": "/tmp/build.log"}, result=None),
                Text(text="The build is green."),
                fired,
            ),
        ),
    ),
    # A foreground subagent moved to the background with its call open; the turn's answer
    # comes (AIR's opt-out), then its call's result.
    Scenario(
        name="background_moved_call_open",
        description="",
        turns=(
            (
                ToolUse(
                    name="Agent",
                    id="ag1",
                    result=None,
                    input={"description": "Audit the code", "prompt": "Audit"},
                ),
                started_fg,
                ToolUse(
                    name="Read",
                    id="sr1",
                    input={"file_path": "/tmp/parser.py"},
                    parent="ag1",
                    result=None,
                ),
                moved,
                ToolResult(id="ag1", result="Moved to the background."),
                Text(text="The audit runs in the background."),
                Result(),
                ToolResult(id="sr1", result="def parse(): ..."),
                ended,
                finished,
                Text(text="The audit found two issues."),
                followed_up,
            ),
        ),
    ),
    # The subagent's own call is open when the turn's answer comes (AIR's opt-out); its
    # result comes after.
    Scenario(
        name="background_call_open",
        description="",
        turns=(
            (
                agent,
                started_bg,
                ToolUse(
                    name="Read",
                    id="sr1",
                    input={"file_path": "/tmp/parser.py"},
                    parent="ag1",
                    result=None,
                ),
                Text(text="The audit runs in the background."),
                Result(),
                ToolResult(id="sr1", result="def parse(): ..."),
                ended,
                finished,
                Text(text="The audit found two issues."),
                followed_up,
            ),
        ),
    ),
    Scenario(
        name="background_hang",
        description="",
        turns=((agent, started, Text(text="The audit runs in the background."), Result(), Hang()),),
    ),
    Scenario(
        name="background_level",
        description="",
        turns=(
            (
                agent,
                started,
                Text(text="The audit runs in the background."),
                Result(),
                system("background_tasks_changed", tasks=[]),
            ),
        ),
    ),
    Scenario(
        name="odd_tasks",
        description="",
        turns=(
            (
                system(
                    "task_notification",
                    task_id="nobody",
                    status="completed",
                    output_file="/tmp/x",
                    summary="?",
                ),
                RawFrame(
                    frame={
                        "type": "system",
                        "subtype": "task_started",
                        "session_id": "x",
                        "uuid": "u-bad",
                        "description": "no id",
                    }
                ),
                RawFrame(
                    frame={
                        "type": "system",
                        "subtype": "task_updated",
                        "session_id": "x",
                        "uuid": "u-bad2",
                        "patch": {"status": "completed"},
                    }
                ),
                Reply(),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="background_bash",
        description="",
        turns=(
            (
                ToolUse(
                    name="Bash",
                    id="bg1",
                    input={"command": "npm run dev", "run_in_background": True},
                    result="Command running in background with ID: b1",
                    tool_use_result={"backgroundTaskId": "b1"},
                ),
                Reply(),
                Result(),
            ),
            (
                system(
                    "task_notification",
                    task_id="b1",
                    status="completed",
                    output_file="/tmp/b1.out",
                    summary="dev server exited",
                ),
                Reply(),
                Result(),
            ),
        ),
    ),
    # Claude Code takes a prompt pushed mid-turn up at the next tool boundary: here the tool
    # runs until the prompt is there, then its result, the echo, and the rest of the work.
    Scenario(
        name="taken_up_mid_turn",
        description="",
        turns=(
            (
                Text(text="Working on it."),
                ToolUse(name="Bash", id="tb1", input={"command": "make"}, result=None),
                Sleep(seconds=60.0, until_queued=True),
                ToolResult(id="tb1", result="built"),
                Text(text="Steered: using tabs."),
                Result(),
            ),
            (Text(text="Never played: taken up mid-turn."), Result()),
        ),
    ),
    # Claude follows up on its own between turns and takes the user's next prompt up in that
    # cycle, whose result (a task notification's) names it.
    Scenario(
        name="folded_into_own_work",
        description="",
        turns=(
            (
                Text(text="Done."),
                Result(),
                Text(text="Following up on the audit."),
                ToolUse(name="Bash", id="fb1", input={"command": "make check"}, result=None),
                Sleep(seconds=60.0, until_queued=True),
                ToolResult(id="fb1", result="ok"),
                Text(text="The check passes, and here is your answer."),
                followed_up,
            ),
            (Text(text="Never played: taken up in Claude's own work."), Result()),
        ),
    ),
    # Claude asks the user; a steer comes while the question is open.
    Scenario(
        name="asks_then_steered",
        description="",
        turns=(
            (
                Permission(tool_name="Bash", input={"command": "make"}, result="built"),
                Text(text="Made."),
                Result(),
            ),
            (Text(text="Steered: after the build."), Result()),
        ),
    ),
    Scenario(
        name="steered",
        description="",
        turns=(
            (
                Text(text="Working on it."),
                Sleep(seconds=3.0),
                Text(text="Done with the first."),
                Result(),
            ),
            (Text(text="Steered: using tabs."), Result()),
        ),
    ),
]
