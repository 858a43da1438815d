"""JetBrains AIR's Async Tasks panel (`asyncTasks`) and `_session/async_task/stop`, in process
(`agent_in_process`) with the scripted Claude playing turns written here: a client that declared
it gets Claude Code's background commands as `async_task_*` updates (and the backgrounded Bash
card marked), in the reference adapter's shapes; Stop stops the task through Claude Code and says
so once; a client that did not declare it gets none of it, and its Stop stops nothing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.steps import RawFrame, Result, Scenario, Text, ToolUse
from tests.support.harness import TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process


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


server = ToolUse(
    name="Bash",
    id="bg1",
    input={"command": "npm run dev", "run_in_background": True},
    result="Command running in background with ID: b1",
    tool_use_result={"backgroundTaskId": "b1"},
)
# The scripted Claude's turns these tests play, besides the shipped scenarios.
MINE = [
    Scenario(
        name="async_bash",
        description="",
        turns=(
            (
                system(
                    "task_started",
                    task_id="b1",
                    tool_use_id="bg1",
                    task_type="local_bash",
                    description="npm run dev",
                ),
                server,
                Text(text="The dev server runs."),
                Result(),
            ),
            (
                system(
                    "task_progress",
                    task_id="b1",
                    tool_use_id="bg1",
                    summary="compiled",
                    description="npm run dev",
                    last_tool_name="Bash",
                    usage={"total_tokens": 0, "tool_uses": 1, "duration_ms": 900},
                ),
                system(
                    "task_notification",
                    task_id="b1",
                    tool_use_id="bg1",
                    status="completed",
                    output_file="/tmp/b1.output",
                    summary="dev server exited",
                ),
                Text(text="It exited."),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="async_stop",
        description="",
        turns=(
            (
                system(
                    "task_started",
                    task_id="w1",
                    tool_use_id="tw1",
                    task_type="local_bash",
                    description="tail -f app.log",
                    is_backgrounded=True,
                ),
                Text(text="Watching the log."),
                Result(),
            ),
        ),
    ),
]

AIR_TASKS = {"jetbrains": {"air": {"version": 1, "capabilities": ["asyncTasks"]}}}
CLIENTS = {"air_tasks": AIR_TASKS, "plain": None}


def _task_updates(adapter: Adapter) -> list[dict[str, Any]]:
    return [
        u
        for u in (m.get("params", {}).get("update", {}) for m in adapter.incoming())
        if str(u.get("sessionUpdate", "")).startswith("async_task")
    ]


async def _stop(adapter: Adapter, **params: Any) -> Any:
    return await asyncio.wait_for(
        adapter.conn._conn.send_request("_session/async_task/stop", params), TIMEOUT
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", list(CLIENTS))
async def test_a_background_command_is_an_async_task_for_the_client_that_declared_it(
    tmp_path: Path, kind: str
) -> None:
    meta = CLIENTS[kind]
    async with agent_in_process(
        tmp_path, "async_bash", scenarios=MINE, client_meta=meta, capable=False
    ) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "start the server")
        second = await adapter.prompt(session, "is it done?")
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    bash_meta = [
        u.get("_meta")
        for u in adapter.updates("tool_call_update")
        if u.get("toolCallId") == "bg1" and u.get("_meta", {}).get("jetbrains")
    ]
    if meta is None:
        assert _task_updates(adapter) == [] and bash_meta == []
        return
    assert _task_updates(adapter) == [
        {
            "sessionUpdate": "async_task_spawned",
            "asyncTaskId": "b1",
            "name": "npm run dev",
            "taskType": "shell",
            "description": "npm run dev",
            "showInTranscript": True,
            "canStop": True,
            "toolCallId": "bg1",
        },
        {
            "sessionUpdate": "async_task_progress",
            "asyncTaskId": "b1",
            "summary": "compiled",
            "lastToolName": "Bash",
            "usage": {"totalTokens": 0, "toolUses": 1, "durationMs": 900},
        },
        {
            "sessionUpdate": "async_task_state_update",
            "asyncTaskId": "b1",
            "state": "completed",
            "summary": "dev server exited",
            "outputFilePath": "/tmp/b1.output",
        },
    ]
    [marked] = bash_meta
    assert isinstance(marked, dict)
    assert marked["jetbrains"]["air"] == {"version": 1, "asyncTasks": {"backgrounded": True}}


@pytest.mark.asyncio
async def test_stop_stops_the_task_through_claude_code_and_says_so_once(tmp_path: Path) -> None:
    log = tmp_path / "claude.log"
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    async with agent_in_process(
        tmp_path, "async_stop", env=env, scenarios=MINE, client_meta=AIR_TASKS, capable=False
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "watch the log")
        stopped = await _stop(adapter, sessionId=session, asyncTaskId=" w1 ")
        again = await _stop(adapter, sessionId=session, asyncTaskId="w1")
        unknown = await _stop(adapter, sessionId=session, asyncTaskId="nobody")
        elsewhere = await _stop(adapter, sessionId="no-such-session", asyncTaskId="w1")
        for params in (
            {"sessionId": session},
            {"sessionId": session, "asyncTaskId": "   "},
            {"sessionId": 3, "asyncTaskId": "w1"},
        ):
            with pytest.raises(acp.RequestError) as caught:
                await _stop(adapter, **params)
            assert caught.value.code == -32602
        after = await adapter.prompt(session, "anything else?")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert stopped == {"stopped": True}
    assert again == unknown == elsewhere == {"stopped": False}
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    states = [u for u in _task_updates(adapter) if u["sessionUpdate"] != "async_task_spawned"]
    assert states == [
        {"sessionUpdate": "async_task_state_update", "asyncTaskId": "w1", "state": "stopped"}
    ]
    said = [t for t in adapter.agent_texts() if "stopped by user" in t]
    assert said == ["**Task stopped by user:** tail -f app.log."]
    controls = [json.loads(line) for line in log.read_text().splitlines()]
    asked = [c["request"] for c in controls if c["kind"] == "control"]
    assert [r for r in asked if r.get("subtype") == "stop_task"] == [
        {"subtype": "stop_task", "task_id": "w1"}
    ]


@pytest.mark.asyncio
async def test_a_client_without_async_tasks_stops_nothing(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "async_stop", scenarios=MINE, capable=False) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "watch the log")
        stopped = await _stop(adapter, sessionId=session, asyncTaskId="w1")
    assert stopped == {"stopped": False} and _task_updates(adapter) == []
