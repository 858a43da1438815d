"""The turn view's part of JetBrains AIR's Async Tasks panel, in process: a Bash command that
went to the background marks its card (`_meta.jetbrains.air.asyncTasks.backgrounded`) and
spawns its task; only structured data says so, and only for a client that declared it."""

from __future__ import annotations

from typing import Any

from adapter.view.turn_view import TurnView
from fsm import AsyncTasks, air_client

BACKGROUNDED = {"jetbrains": {"air": {"version": 1, "asyncTasks": {"backgrounded": True}}}}


def _view(declared: bool) -> TurnView:
    names = ["asyncTasks"] if declared else []
    air = air_client({"jetbrains": {"air": {"version": 1, "capabilities": names}}})
    view = TurnView(cwd="/w", live=True, air=air)
    if air.async_tasks:
        view.async_tasks = AsyncTasks()
    return view


def _run(view: TurnView, tool_input: dict[str, Any], result: Any, *, error: bool = False) -> Any:
    call = {"type": "tool_use", "id": "bg1", "name": "Bash", "input": tool_input}
    view.assistant([call], message_id="m1", parent=None)
    block = {"type": "tool_result", "tool_use_id": "bg1", "content": "ok", "is_error": error}
    return view.user([block], tool_use_result=result)


def _marks(updates: list[dict[str, Any]]) -> list[Any]:
    return [
        u.get("_meta", {}).get("jetbrains")
        for u in updates
        if u.get("sessionUpdate") == "tool_call_update" and u.get("_meta", {}).get("jetbrains")
    ]


def test_a_backgrounded_command_marks_its_card_and_spawns_its_task() -> None:
    command = {"command": "npm run dev", "run_in_background": True}
    updates = _run(_view(True), command, {"backgroundTaskId": "b1"})
    assert _marks(updates) == [BACKGROUNDED["jetbrains"]]
    spawns = [u for u in updates if u.get("sessionUpdate") == "async_task_spawned"]
    assert spawns == [
        {
            "sessionUpdate": "async_task_spawned",
            "asyncTaskId": "b1",
            "name": "npm run dev",
            "taskType": "shell",
            "description": "npm run dev",
            "showInTranscript": True,
            "canStop": True,
            "toolCallId": "bg1",
        }
    ]


def test_only_structured_data_backgrounds_a_command() -> None:
    # `run_in_background` on a call that did not fail marks it; no task id: no spawn.
    asked = _run(_view(True), {"command": "sleep 9", "run_in_background": True}, None)
    assert _marks(asked) == [BACKGROUNDED["jetbrains"]]
    assert not [u for u in asked if u.get("sessionUpdate") == "async_task_spawned"]
    failed = _run(_view(True), {"command": "sleep 9", "run_in_background": True}, None, error=True)
    assert _marks(failed) == []
    # Words in the output are no task: a foreground command may print anything.
    said = _run(_view(True), {"command": "echo 'running in background with ID: b9'"}, None)
    assert _marks(said) == []


def test_a_client_that_did_not_declare_it_gets_neither() -> None:
    command = {"command": "npm run dev", "run_in_background": True}
    updates = _run(_view(False), command, {"backgroundTaskId": "b1"})
    assert _marks(updates) == []
    assert not [u for u in updates if str(u.get("sessionUpdate")).startswith("async_task")]
