"""JetBrains AIR's Async Tasks panel (`fsm.air.async_tasks`): Claude Code's task frames in, the
reference adapter's `async_task_*` updates out."""

from __future__ import annotations

from typing import Any

from fsm.air.async_tasks import AsyncTasks, TaskReplay, task_notices


def _started(task_id: str = "b1", **fields: Any) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "system", "subtype": "task_started", "task_id": task_id}
    frame.update(fields)
    return frame


SHELL: dict[str, Any] = {
    "task_type": "local_bash",
    "is_backgrounded": True,
    "description": "npm run dev",
}


def test_a_background_command_is_spawned_with_its_tool_call_and_ends_once() -> None:
    tasks = AsyncTasks()
    assert tasks.started(_started(tool_use_id="toolu_1", **SHELL)) == [
        {
            "sessionUpdate": "async_task_spawned",
            "asyncTaskId": "b1",
            "name": "npm run dev",
            "taskType": "shell",
            "description": "npm run dev",
            "showInTranscript": True,
            "canStop": True,
            "toolCallId": "toolu_1",
        }
    ]
    progress: dict[str, Any] = {"task_id": "b1", "summary": "compiled", "last_tool_name": "Bash"}
    progress["usage"] = {"total_tokens": 12, "tool_uses": 1, "duration_ms": 500}
    assert tasks.progress(progress) == [
        {
            "sessionUpdate": "async_task_progress",
            "asyncTaskId": "b1",
            "summary": "compiled",
            "lastToolName": "Bash",
            "usage": {"totalTokens": 12, "toolUses": 1, "durationMs": 500},
        }
    ]
    # The same description again is no news: only changed fields are sent, or nothing.
    assert tasks.progress({"task_id": "b1", "description": "npm run dev"}) == []
    ended = {"task_id": "b1", "status": "completed", "summary": "exited 0", "output_file": "/t/b1"}
    assert tasks.notified(ended) == [
        {
            "sessionUpdate": "async_task_state_update",
            "asyncTaskId": "b1",
            "state": "completed",
            "summary": "exited 0",
            "outputFilePath": "/t/b1",
        }
    ]
    assert tasks.notified(ended) == []  # a terminal state is final
    assert tasks.updated({"task_id": "b1", "patch": {"status": "killed"}}) == []


def test_a_task_without_its_tool_call_waits_then_goes_out_at_the_turns_end() -> None:
    tasks = AsyncTasks()
    assert tasks.started(_started(**SHELL)) == []  # held for its tool call's id
    assert tasks.updated({"task_id": "b1", "patch": {"status": "paused"}}) == []  # queued
    [spawn, paused] = tasks.turn_ended()
    assert spawn["sessionUpdate"] == "async_task_spawned" and "toolCallId" not in spawn
    assert paused == {"sessionUpdate": "async_task_state_update", "asyncTaskId": "b1",
                      "state": "paused"}  # fmt: skip
    assert tasks.turn_ended() == []
    # A late id goes out as progress.
    assert tasks.progress({"task_id": "b1", "tool_use_id": "toolu_9"}) == [
        {"sessionUpdate": "async_task_progress", "asyncTaskId": "b1", "toolCallId": "toolu_9"}
    ]


def test_a_held_task_whose_id_comes_with_progress_is_spawned_then_updated() -> None:
    tasks = AsyncTasks()
    tasks.started(_started(**SHELL))
    out = tasks.progress({"task_id": "b1", "tool_use_id": "toolu_2", "summary": "half"})
    assert [u["sessionUpdate"] for u in out] == ["async_task_spawned", "async_task_progress"]
    assert out[0]["toolCallId"] == "toolu_2"
    assert out[1] == {"sessionUpdate": "async_task_progress", "asyncTaskId": "b1",
                      "summary": "half"}  # fmt: skip


def test_subagents_and_foreground_commands_are_not_async_tasks() -> None:
    tasks = AsyncTasks()
    agent = _started("a1", tool_use_id="t", subagent_type="general-purpose")
    assert tasks.started(agent) == []
    assert tasks.notified({"task_id": "a1", "status": "completed"}) == []
    foreground = _started("f1", tool_use_id="t2", task_type="local_bash")
    assert tasks.started(foreground) == [] and tasks.turn_ended() == []
    assert tasks.listed({"tasks": [{"task_id": "a2", "task_type": "local_agent"}]}) == []
    assert tasks.claim_stop("a1") is False


def test_the_level_list_stops_what_it_lost_and_a_late_end_corrects_it() -> None:
    tasks = AsyncTasks()
    tasks.started(_started(tool_use_id="toolu_1", **SHELL))
    assert tasks.listed({"tasks": []}) == [
        {"sessionUpdate": "async_task_state_update", "asyncTaskId": "b1", "state": "stopped"}
    ]
    assert tasks.notified({"task_id": "b1", "status": "failed"}) == [
        {"sessionUpdate": "async_task_state_update", "asyncTaskId": "b1", "state": "failed"}
    ]
    assert tasks.notified({"task_id": "b1", "status": "completed"}) == []  # only once
    # A task the level alone shows goes to the panel (once the turn's result says no tool
    # call will name it), not the transcript.
    assert tasks.listed({"tasks": [{"task_id": "w1", "task_type": "local_workflow"}]}) == []
    [spawn] = tasks.turn_ended()
    assert spawn["taskType"] == "workflow" and spawn["showInTranscript"] is False


def test_monitors_and_skip_transcript() -> None:
    tasks = AsyncTasks()
    monitor = _started("m1", tool_use_id="t", task_type="local_monitor", description="tail log")
    [spawn] = tasks.started(monitor)
    assert (spawn["taskType"], spawn["canStop"], spawn["showInTranscript"]) == (
        "monitor",
        False,
        False,
    )
    assert tasks.claim_stop("m1") is False
    quiet = _started("q1", tool_use_id="t3", task_type="local_workflow", skip_transcript=True,
                     workflow_name="Nightly")  # fmt: skip
    [spawn] = tasks.started(quiet)
    assert (spawn["name"], spawn["description"], spawn["showInTranscript"]) == (
        "Nightly",
        "Workflow",
        False,
    )


def test_a_stop_is_claimed_once_and_said_once() -> None:
    for notices in (True, False):
        tasks = AsyncTasks(notices=notices)
        tasks.started(_started(tool_use_id="toolu_1", **SHELL))
        assert tasks.claim_stop("nobody") is False
        assert tasks.claim_stop("b1") is True
        assert tasks.claim_stop("b1") is False  # already being stopped
        # Claude Code's own end wins the race: the line still answers the user's stop.
        tasks.updated({"task_id": "b1", "patch": {"status": "killed"}})
        line = tasks.stopped("b1")
        if notices:
            assert line == [
                {
                    "sessionUpdate": "notice",
                    "severity": "info",
                    "title": "Task stopped by user",
                    "description": "npm run dev.",
                }
            ]
        else:
            text = "**Task stopped by user:** npm run dev."
            assert line == [
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
            ]
        assert tasks.stopped("b1") == []


def test_a_failed_stop_may_be_tried_again() -> None:
    tasks = AsyncTasks()
    tasks.started(_started(tool_use_id="toolu_1", **SHELL))
    assert tasks.claim_stop("b1")
    tasks.release_stop("b1")
    assert tasks.claim_stop("b1")
    [update, _line] = tasks.stopped("b1")
    assert update == {"sessionUpdate": "async_task_state_update", "asyncTaskId": "b1",
                      "state": "stopped"}  # fmt: skip


def test_the_streams_end_finishes_every_open_task() -> None:
    tasks = AsyncTasks()
    tasks.started(_started("b1", tool_use_id="t1", **SHELL))
    tasks.started(_started("b2", **SHELL))  # held
    tasks.started(_started("b3", tool_use_id="t3", **SHELL))
    tasks.notified({"task_id": "b3", "status": "completed"})
    out = tasks.finish_all("failed")
    assert [(u["sessionUpdate"], u["asyncTaskId"], u.get("state")) for u in out] == [
        ("async_task_state_update", "b1", "failed"),
        ("async_task_spawned", "b2", None),
        ("async_task_state_update", "b2", "failed"),
    ]
    assert tasks.finish_all("failed") == []


def test_frames_without_ids_or_of_odd_shapes_change_nothing() -> None:
    tasks = AsyncTasks()
    for frame in (
        {"subtype": "task_started"},
        {"task_id": "  ", "is_backgrounded": True},
        {"task_id": 7, "is_backgrounded": True},
    ):
        assert tasks.started(frame) == []
    assert tasks.updated({"task_id": "x", "patch": "done"}) == []
    assert tasks.progress({"task_id": "unknown", "summary": "?"}) == []
    assert tasks.notified({"task_id": "unknown", "status": "weird"}) == []
    assert tasks.listed({"tasks": "all"}) == [] and tasks.listed({"tasks": [3, None]}) == []
    assert tasks.turn_ended() == [] and tasks.finish_all("failed") == []


def _notice(task: str, call: str, status: str = "completed", **extra: str) -> str:
    more = "".join(f"<{tag}>{value}</{tag}>" for tag, value in extra.items())
    return (
        f"<task-notification><task-id>{task}</task-id><tool-use-id>{call}</tool-use-id>"
        f"<status>{status}</status>{more}<result><status>failed</status></result>"
        "</task-notification>"
    )


def test_a_load_restores_each_task_on_the_session_of_the_call_that_started_it() -> None:
    child = "S:replay-subagent:toolu_agent"
    replay = TaskReplay(AsyncTasks())
    replay.read(
        [
            {"type": "tool_use", "id": "toolu_root", "name": "Bash", "input": {"command": "make"}},
            {"type": "tool_use", "id": "toolu_agent", "name": "Agent", "input": {}},
        ],
        "S",
    )
    replay.read(
        [{"type": "tool_use", "id": "toolu_child", "name": "Bash", "input": {"command": "npm t"}}],
        child,
    )
    content = [
        {"type": "text", "text": _notice("t-child", "toolu_child", "failed", summary="red")},
        {"type": "text", "text": _notice("t-root", "toolu_root", **{"output-file": "/o"})},
        # A subagent's end is no async task; a task no known call started stays unknown.
        {"type": "text", "text": _notice("a-1", "toolu_agent")},
        {"type": "text", "text": _notice("t-lost", "toolu_unknown")},
    ]
    routed = replay.notified(content)
    assert [(session, update["sessionUpdate"]) for session, update in routed] == [
        (child, "async_task_spawned"),
        (child, "async_task_state_update"),
        ("S", "async_task_spawned"),
        ("S", "async_task_state_update"),
    ]
    assert routed[0][1] == {
        "sessionUpdate": "async_task_spawned",
        "asyncTaskId": "t-child",
        "name": "npm t",
        "taskType": "shell",
        "description": "npm t",
        "showInTranscript": True,
        "canStop": True,
        "toolCallId": "toolu_child",
    }
    assert routed[1][1]["state"] == "failed" and routed[1][1]["summary"] == "red"
    assert routed[2][1]["outputFilePath"] == "/o"
    assert routed[3][1]["state"] == "completed"  # the result's own tags are not read
    # A client without asyncTasks: nothing restored.
    off = TaskReplay(None)
    off.read([{"type": "tool_use", "id": "toolu_root", "name": "Bash", "input": {}}], "S")
    assert off.notified(content) == []


def test_task_notices_need_an_id_and_a_status() -> None:
    running = "<task-notification><task-id>t</task-id>still running</task-notification>"
    assert task_notices(running) == []
    assert task_notices(None) == []
    assert task_notices(_notice("t", "c")) == [
        {"task_id": "t", "status": "completed", "tool_use_id": "c"}
    ]
