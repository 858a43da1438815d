"""Claude Code's task list as the session's plan, in process (`agent_in_process`: the agent, a
real ACP client and the scripted Claude under the real SDK, playing turns written here): the
Task* tools (TaskCreate, TaskUpdate, TaskList, TaskGet) and the TaskCreated/TaskCompleted hooks
become `plan` updates and never cards, the plan is kept across turns, and a conversation reset
clears it. Calls and hooks of an unusable shape change nothing and lose nothing else.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.steps import FireHook, RawFrame, Reply, Result, Scenario, ToolUse
from tests.support.shell_harness import agent_in_process

# The scripted Claude's turns these tests play, besides the shipped scenarios.
TASKS = Scenario(
    name="tasks",
    description="",
    turns=(
        (
            ToolUse(
                name="TaskCreate",
                id="c1",
                input={"subject": "Write tests", "activeForm": "Writing tests"},
                result="Task #1 created successfully: Write tests",
                tool_use_result={"task": {"id": "1", "subject": "Write tests"}},
            ),
            FireHook(event="TaskCreated", input={"task_id": "2", "task_subject": "Ship it"}),
            FireHook(event="TaskCreated", input={"task_subject": "no id"}),
            ToolUse(
                name="TaskUpdate",
                id="u1",
                input={"taskId": "1", "status": "in_progress"},
                result="Updated task #1 status",
                tool_use_result={"success": True, "taskId": "1", "updatedFields": ["status"]},
            ),
            ToolUse(
                name="TaskUpdate",
                id="u2",
                input={"status": "completed"},
                result="Task # not found",
                is_error=True,
            ),
            ToolUse(name="TaskGet", id="g1", input={"taskId": "1"}, result="Task #1: Write tests"),
            Reply(),
            Result(),
        ),
        (
            FireHook(event="TaskCompleted", input={"task_id": "1", "task_subject": "Write tests"}),
            ToolUse(
                name="TaskList",
                id="l1",
                input={},
                result="#1 [completed] Write tests\n#2 [pending] Ship it",
            ),
            Reply(),
            Result(),
        ),
        (
            RawFrame(
                frame={
                    "type": "system",
                    "subtype": "conversation_reset",
                    "session_id": "x",
                    "uuid": "r1",
                    "new_conversation_id": "c2",
                }
            ),
            Reply(),
            Result(),
        ),
    ),
)
# The first two turns again, then one after the session was loaded: a TaskUpdate that names
# only its task's id, which a plan rebuilt from the transcript must know.
TASKS_RESUMED = Scenario(
    name="tasks_resumed",
    description="",
    turns=(
        *TASKS.turns[:2],
        (
            ToolUse(
                name="TaskUpdate",
                id="u3",
                input={"taskId": "2", "status": "in_progress"},
                result="Updated task #2 status",
                tool_use_result={"success": True, "taskId": "2", "updatedFields": ["status"]},
            ),
            Reply(),
            Result(),
        ),
    ),
)
MINE = [TASKS, TASKS_RESUMED]


def _entry(content: str, status: str) -> dict[str, str]:
    return {"content": content, "status": status, "priority": "medium"}


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_the_task_list_is_the_plan_across_turns_until_a_reset(
    tmp_path: Path, capable: bool
) -> None:
    async with agent_in_process(tmp_path, "tasks", scenarios=MINE, capable=capable) as adapter:
        session = await adapter.new_session()
        answers = [await adapter.prompt(session, f"turn {n}") for n in range(3)]
    assert all(isinstance(a, PromptResponse) and a.stop_reason == "end_turn" for a in answers)
    write, ship = "Write tests", "Ship it"
    assert [p["entries"] for p in adapter.updates("plan")] == [
        [_entry(write, "pending")],
        [_entry(write, "pending"), _entry(ship, "pending")],
        [_entry("Writing tests", "in_progress"), _entry(ship, "pending")],
        # Turn 2: the hook completes task 1, TaskList confirms the list Claude Code holds.
        [_entry(write, "completed"), _entry(ship, "pending")],
        [_entry(write, "completed"), _entry(ship, "pending")],
        # Turn 3: a fresh conversation's tasks are new; the old plan is cleared.
        [],
    ]
    # No Task* call is a card, not even the failed one or the read.
    cards = adapter.updates("tool_call") + adapter.updates("tool_call_update")
    assert {c.get("toolCallId") for c in cards} & {"c1", "u1", "u2", "g1", "l1"} == set()
    assert len(adapter.agent_texts()) == 3


@pytest.mark.asyncio
async def test_the_task_list_replays_as_the_plan_on_load(tmp_path: Path) -> None:
    # The first two turns live, then a new agent loads the session: the stored
    # Task* calls become the plan again, as they did live, and never cards; the live session
    # goes on from that plan. (The hooks are not in Claude Code's transcript: what only a hook
    # said is not replayed, until Claude Code's own TaskList says it.)
    async with agent_in_process(tmp_path, "tasks_resumed", scenarios=MINE) as live:
        session = await live.new_session()
        for n in range(2):
            answer = await live.prompt(session, f"turn {n}")
            assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    async with agent_in_process(tmp_path, "tasks_resumed", scenarios=MINE) as loaded:
        await loaded.conn.load_session(cwd=str(loaded.workdir), session_id=session, mcp_servers=[])
        replayed = len(loaded.updates("plan"))
        answer = await loaded.prompt(session, "turn 2")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    write, ship = "Write tests", "Ship it"
    plans = [p["entries"] for p in loaded.updates("plan")]
    assert plans[:replayed] == [
        [_entry(write, "pending")],
        [_entry("Writing tests", "in_progress")],
        # TaskList's answer is Claude Code's own list: the hook's task is back.
        [_entry(write, "completed"), _entry(ship, "pending")],
    ]
    # The live session ended its second turn with the same plan.
    assert live.updates("plan")[-1]["entries"] == plans[replayed - 1]
    # After the load, a TaskUpdate that names only a task's id updates the replayed plan.
    assert plans[replayed:] == [[_entry(write, "completed"), _entry(ship, "in_progress")]]
    cards = loaded.updates("tool_call") + loaded.updates("tool_call_update")
    assert {c.get("toolCallId") for c in cards} & {"c1", "u1", "u2", "g1", "l1", "u3"} == set()
