"""Claude Code as it works today, in the scripted Claude: the frames of work it does in the
background and of the turn's edges, as named builders, and the scenarios that play them.

The builders write the frames the real CLI writes (and the SDK parses): `task_started`,
`task_notification`, `task_updated` (a background subagent or command), a result whose origin
is a task notification (Claude's own follow-up), `local_command_output`, `informational`,
`permission_denied`, `memory_recall` and `conversation_reset`. A steer (a user message with a
`priority`) is played by the player itself, in the same busy stretch as the turn it joined
(`wire.Inbox.steer_waiting`). Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

from adapter.scripted_claude.steps import (
    RawFrame,
    Result,
    Scenario,
    Sleep,
    Text,
    ToolUse,
)

__all__ = [
    "BACKGROUND_SCENARIOS",
    "autonomous_result",
    "system_frame",
    "task_notification",
    "task_started",
    "task_updated",
]


def system_frame(subtype: str, **fields: object) -> RawFrame:
    """A `system` frame of `subtype` (`local_command_output`, `informational`,
    `permission_denied`, `memory_recall`, `conversation_reset`, …) with `fields`."""
    frame: dict[str, object] = {"type": "system", "subtype": subtype, "session_id": "scripted"}
    frame.update(fields)
    frame["uuid"] = str(fields.get("uuid") or f"{subtype}-{len(str(sorted(fields.items())))}")
    return RawFrame(frame=frame)


def task_started(task_id: str, tool_use_id: str, description: str, *, subagent: bool) -> RawFrame:
    """Claude Code started a task: a subagent of the Agent call `tool_use_id`, or a command."""
    fields: dict[str, object] = {"task_id": task_id, "tool_use_id": tool_use_id}
    fields["description"] = description
    if subagent:
        # As the bundled CLI says of an Agent call with `run_in_background`.
        fields.update(subagent_type="general-purpose", task_type="local_agent")
        fields["is_backgrounded"] = True
    else:
        fields["task_type"] = "local_bash"
    return system_frame("task_started", uuid=f"started-{task_id}", **fields)


def task_notification(task_id: str, tool_use_id: str, summary: str, status: str) -> RawFrame:
    """The task ended (`completed`, `failed`, `stopped`); Claude is woken to follow up."""
    return system_frame(
        "task_notification",
        uuid=f"notified-{task_id}",
        task_id=task_id,
        tool_use_id=tool_use_id,
        status=status,
        output_file=f"/tmp/claude-tasks/{task_id}.output",
        summary=summary,
    )


def task_updated(task_id: str, status: str) -> RawFrame:
    """A patch of the task's state (a final status ends it, with or without a notification)."""
    return system_frame(
        "task_updated",
        uuid=f"updated-{task_id}-{status}",
        task_id=task_id,
        patch={"status": status},
    )


def autonomous_result(
    output_tokens: int = 12,
    *,
    input_tokens: int = 40,
    result: str = "",
    cost_usd: float = 0.0002,
) -> RawFrame:
    """The result of a cycle Claude ran on its own after a task notification: its words
    (`result`), its tokens and its cost."""
    return RawFrame(
        frame={
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "session_id": "scripted",
            "duration_ms": 900,
            "duration_api_ms": 800,
            "num_turns": 1,
            "result": result,
            "stop_reason": "end_turn",
            "total_cost_usd": cost_usd,
            "origin": {"kind": "task-notification"},
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
            },
            "modelUsage": {},
        }
    )


_AUDIT = ToolUse(
    name="Agent",
    id="toolu_audit",
    input={
        "description": "Audit the parser",
        "prompt": "Look for unchecked input in the parser.",
        "run_in_background": True,
    },
    result="Async agent launched successfully.\nagentId: a7f3 (use SendMessage to continue)",
)

BACKGROUND_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="background_subagent",
        description=(
            "Claude audits the code with a background subagent (the turn stays open until "
            "its report), then a steered follow-up joins a running turn."
        ),
        turns=(
            (
                _AUDIT,
                task_started("a7f3", "toolu_audit", "Audit the parser", subagent=True),
                Text(text="I started an audit of the parser in the background."),
                Result(),
                Sleep(seconds=1.0),
                task_notification("a7f3", "toolu_audit", "Found 2 unchecked inputs", "completed"),
                Text(text="The audit is back: two inputs of the parser are never checked."),
                autonomous_result(),
            ),
            (
                Text(text="Formatting the file with spaces."),
                Sleep(seconds=2.0),
                Text(text="The first pass is done."),
                Result(),
            ),
            (Text(text="Switching to tabs, as you asked."), Result()),
        ),
    ),
)
