"""Claude Code's task list as the session's plan, with the real Claude Code CLI: the
double answers with `TaskCreate` and `TaskUpdate` calls, the CLI runs them (and fires its
TaskCreated hook), and the client sees the list as `plan` updates and no card for them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.real_claude.api_double import Answer, MessagesApiDouble, ToolUse
from tests.real_claude.support import real_adapter, run_turn
from tests.support.harness import Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tasks_adapter(
    double: MessagesApiDouble, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Adapter]:
    """Claude Code 2.1.332 offers the Task* tools (not TodoWrite) to the model when asked to."""
    root = tmp_path_factory.mktemp("real-tasks")
    async with real_adapter(
        root, double, capable=True, CLAUDE_CODE_ENABLE_TODO_TOOLS="true"
    ) as running:
        yield running


async def test_task_tools_become_the_plan(
    tasks_adapter: Adapter, double: MessagesApiDouble
) -> None:
    adapter = tasks_adapter
    session = await adapter.new_session()
    create = ToolUse("TaskCreate", {"subject": "Write the parser tests", "description": "Cover"})
    update = ToolUse("TaskUpdate", {"taskId": "1", "status": "in_progress"})
    double.script(create, update, Answer("Working through the list."))
    turn = await run_turn(adapter, "Plan the work as tasks", session)
    assert turn.response.stop_reason == "end_turn"
    plans = [u["entries"] for u in turn.updates("plan")]
    assert plans[0] == [
        {"content": "Write the parser tests", "status": "pending", "priority": "medium"}
    ]
    assert plans[-1] == [
        {"content": "Write the parser tests", "status": "in_progress", "priority": "medium"}
    ]
    cards = turn.updates("tool_call") + turn.updates("tool_call_update")
    assert {c.get("toolCallId") for c in cards} & {create.id, update.id} == set()
