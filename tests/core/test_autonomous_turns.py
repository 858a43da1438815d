"""JetBrains AIR's Async Tasks entry for a turn Claude Code runs with no prompt open
(`fsm.air.async_tasks.AsyncTasks`, docs/reference-adapter.md#autonomous-turns): each rule that
opens, describes, ends or stops it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fsm.air.async_tasks import AsyncTasks, scheduled_fire_cause


def _tasks(**kwargs: Any) -> AsyncTasks:
    ids: Iterator[str] = (f"u{n}" for n in range(1, 100))
    return AsyncTasks(fresh_id=lambda: next(ids), **kwargs)


def _spawned(task_id: str, description: str) -> dict[str, Any]:
    return {
        "sessionUpdate": "async_task_spawned",
        "asyncTaskId": task_id,
        "name": "Claude is working",
        "taskType": "turn",
        "description": description,
        "showInTranscript": False,
        "canStop": True,
    }


def _state(task_id: str, state: str) -> dict[str, Any]:
    return {"sessionUpdate": "async_task_state_update", "asyncTaskId": task_id, "state": state}


DEFAULT = "Claude Code started a turn without a prompt."


def test_running_with_no_prompt_open_opens_the_turn_and_idle_ends_it() -> None:
    tasks = _tasks()
    assert tasks.session_state("running", prompt_open=False) == [
        _spawned("autonomous-turn-u1", DEFAULT)
    ]
    assert tasks.autonomous_open
    assert tasks.session_state("running", prompt_open=False) == []  # no new transition
    assert tasks.session_state("idle", prompt_open=False) == [
        _state("autonomous-turn-u1", "completed")
    ]
    assert not tasks.autonomous_open
    assert tasks.session_state("idle", prompt_open=False) == []


def test_running_while_a_prompt_is_open_is_that_prompts_work() -> None:
    tasks = _tasks()
    assert tasks.session_state("running", prompt_open=True) == []
    assert tasks.session_state("idle", prompt_open=False) == []
    # From `requires_action` back to running is a transition into `running` too.
    tasks.session_state("requires_action", prompt_open=False)
    assert tasks.session_state("running", prompt_open=False)[0]["asyncTaskId"] == (
        "autonomous-turn-u1"
    )


def test_the_last_task_notifications_summary_describes_the_turn_it_starts_once() -> None:
    tasks = _tasks()
    tasks.notified({"task_id": "b1", "status": "completed", "summary": "Build finished"})
    assert tasks.session_state("running", prompt_open=False) == [
        _spawned("autonomous-turn-u1", "Build finished")
    ]
    tasks.session_state("idle", prompt_open=False)
    assert tasks.session_state("running", prompt_open=False) == [
        _spawned("autonomous-turn-u2", DEFAULT)
    ]


def test_a_scheduled_fire_opens_the_turn_with_its_cause() -> None:
    tasks = _tasks()
    frame = {
        "type": "command_lifecycle",
        "state": "started",
        "command_uuid": "c1",
        "wakeup_source": "loop_wakeup",
        "scheduled_for": 1_767_225_600_000,
    }
    cause = "A scheduled wakeup fired (set for 2026-01-01T00:00:00.000Z)."
    assert tasks.command_started(frame, prompt_open=False) == [
        _spawned("autonomous-turn-u1", cause)
    ]


def test_a_fire_after_running_opened_the_turn_names_its_cause_as_progress() -> None:
    tasks = _tasks()
    tasks.session_state("running", prompt_open=False)
    frame = {"state": "started", "wakeup_source": "schedule_wakeup"}
    assert tasks.command_started(frame, prompt_open=False) == [
        {
            "sessionUpdate": "async_task_progress",
            "asyncTaskId": "autonomous-turn-u1",
            "description": "A scheduled task fired.",
        }
    ]
    assert tasks.command_started(frame, prompt_open=False) == []  # nothing new


@pytest.mark.parametrize(
    ("frame", "prompt_open"),
    [
        ({"state": "started"}, False),  # the client's own prompt started
        ({"state": "queued", "wakeup_source": "schedule_wakeup"}, False),
        ({"state": "started", "wakeup_source": "schedule_wakeup"}, True),
        ({"state": "started", "wakeup_source": "something_new"}, False),
    ],
)
def test_a_start_that_is_no_fire_or_comes_with_a_prompt_open_opens_nothing(
    frame: dict[str, Any], prompt_open: bool
) -> None:
    assert _tasks().command_started(frame, prompt_open=prompt_open) == []


def test_the_fire_causes_are_the_references() -> None:
    assert scheduled_fire_cause({"wakeup_source": "loop_wakeup"}) == "A scheduled wakeup fired."
    bad = {"wakeup_source": "loop_wakeup", "scheduled_for": 1e300}
    assert scheduled_fire_cause(bad) == "A scheduled wakeup fired."
    flag = {"wakeup_source": "loop_wakeup", "scheduled_for": True}
    assert scheduled_fire_cause(flag) == "A scheduled wakeup fired."
    at = {"wakeup_source": "loop_wakeup", "scheduled_for": 1_767_225_600_123}
    assert scheduled_fire_cause(at) == (
        "A scheduled wakeup fired (set for 2026-01-01T00:00:00.123Z)."
    )
    leap = {"wakeup_source": "loop_wakeup", "scheduled_for": 951_825_600_000.9}
    assert scheduled_fire_cause(leap) == (
        "A scheduled wakeup fired (set for 2000-02-29T12:00:00.000Z)."
    )
    nan = {"wakeup_source": "loop_wakeup", "scheduled_for": float("nan")}
    assert scheduled_fire_cause(nan) == "A scheduled wakeup fired."
    assert scheduled_fire_cause({"wakeup_source": "schedule_wakeup"}) == "A scheduled task fired."
    assert scheduled_fire_cause({}) is None


def test_top_level_output_with_no_prompt_open_opens_the_turn_once() -> None:
    tasks = _tasks()
    assert tasks.output(prompt_open=True) == []
    assert tasks.output(prompt_open=False) == [_spawned("autonomous-turn-u1", DEFAULT)]
    assert tasks.output(prompt_open=False) == []


def test_a_cancels_tail_opens_nothing_until_a_prompt_takes_over() -> None:
    tasks = _tasks()
    tasks.cancelled()
    assert tasks.output(prompt_open=False) == []
    frame = {"state": "started", "wakeup_source": "schedule_wakeup"}
    assert tasks.command_started(frame, prompt_open=False) == []
    assert tasks.prompt_took_over() == []
    assert tasks.output(prompt_open=False) == [_spawned("autonomous-turn-u1", DEFAULT)]


MARKER_LISTS = {"capabilities": ["msg_lifecycle_v1", "request_marker_lists_v1"]}


def test_claude_s_own_request_after_a_cancel_ends_its_tail() -> None:
    """As the reference: once Claude Code names the prompts each model request serves
    (`request_marker_lists_v1`), a request after a cancel that serves none is Claude's own next
    work (a follow-up after a background command ended): its output opens the entry again."""
    tasks = _tasks()
    tasks.initialized(MARKER_LISTS)
    tasks.cancelled()
    # The stopped work's tail: a prompt Claude Code had taken off its queue still runs.
    tasks.status(
        {"status": "requesting", "user_message_uuids": ["cancelled-prompt"]}, prompt_open=False
    )
    assert tasks.output(prompt_open=False) == []
    tasks.status({"status": "compacting"}, prompt_open=False)
    assert tasks.output(prompt_open=False) == []
    # While the cancelled turn is still open, its request is that turn's.
    tasks.status({"status": "requesting", "user_message_uuids": []}, prompt_open=True)
    assert tasks.output(prompt_open=False) == []
    # A subagent's request is not Claude's own.
    subagent = {"status": "requesting", "user_message_uuids": [], "parent_tool_use_id": "t1"}
    tasks.status(subagent, prompt_open=False)
    assert tasks.output(prompt_open=False) == []
    tasks.status({"status": "requesting", "user_message_uuids": []}, prompt_open=False)
    assert tasks.output(prompt_open=False) == [_spawned("autonomous-turn-u1", DEFAULT)]
    # So does a scheduled fire's start.
    tasks.result(own_work=True, model_turns=1, is_error=False)
    tasks.cancelled()
    tasks.status({"status": "requesting", "user_message_uuids": []}, prompt_open=False)
    frame = {"state": "started", "wakeup_source": "schedule_wakeup"}
    assert tasks.command_started(frame, prompt_open=False)[0]["asyncTaskId"] == (
        "autonomous-turn-u2"
    )


def test_without_request_marker_lists_a_cancels_tail_lasts_until_a_prompt() -> None:
    """A Claude Code that does not name the prompts its requests serve cannot tell its own
    work from the stopped one's: nothing opens until a prompt takes over, as in the
    reference."""
    tasks = _tasks()
    tasks.initialized({"capabilities": ["msg_lifecycle_v1"]})
    tasks.cancelled()
    tasks.status({"status": "requesting", "user_message_uuids": []}, prompt_open=False)
    assert tasks.output(prompt_open=False) == []
    tasks.initialized({})  # a new Claude process says which it names
    tasks.status({"status": "requesting"}, prompt_open=False)
    assert tasks.output(prompt_open=False) == []


def test_a_prompt_taking_the_work_over_ends_the_turn_completed() -> None:
    tasks = _tasks()
    tasks.output(prompt_open=False)
    assert tasks.prompt_took_over() == [_state("autonomous-turn-u1", "completed")]
    assert tasks.prompt_took_over() == []


def test_its_own_result_ends_it_and_an_error_fails_it() -> None:
    tasks = _tasks()
    tasks.output(prompt_open=False)
    # A placeholder result (no model turn) comes before the follow-up: the turn goes on.
    assert tasks.result(own_work=True, model_turns=0, is_error=False) == []
    assert tasks.result(own_work=True, model_turns=2, is_error=False) == [
        _state("autonomous-turn-u1", "completed")
    ]
    tasks.output(prompt_open=False)
    assert tasks.result(own_work=True, model_turns=0, is_error=True) == [
        _state("autonomous-turn-u2", "failed")
    ]
    assert tasks.result(own_work=True, model_turns="2", is_error=False) == []


def test_a_result_a_waiting_prompt_takes_ends_the_turn_completed() -> None:
    tasks = _tasks()
    assert tasks.result(own_work=False, model_turns=1, is_error=True) == []
    tasks.output(prompt_open=False)
    assert tasks.result(own_work=False, model_turns=0, is_error=True) == [
        _state("autonomous-turn-u1", "completed")
    ]
    # It is no echo: a cancel's tail still opens nothing.
    tasks.cancelled()
    tasks.result(own_work=False, model_turns=1, is_error=False)
    assert tasks.output(prompt_open=False) == []


def test_the_level_list_never_stops_it_and_the_streams_end_does() -> None:
    tasks = _tasks()
    tasks.output(prompt_open=False)
    assert tasks.listed({"tasks": []}) == []
    assert tasks.finish_all("failed") == [_state("autonomous-turn-u1", "failed")]
    assert not tasks.autonomous_open
    assert tasks.session_state("idle", prompt_open=False) == []


def test_stopping_it_interrupts_once() -> None:
    tasks = _tasks(notices=True)
    tasks.output(prompt_open=False)
    task_id = "autonomous-turn-u1"
    assert tasks.stops_by_interrupt(task_id)
    assert not tasks.stops_by_interrupt("b1")
    assert tasks.claim_stop(task_id)
    assert not tasks.claim_stop(task_id)  # already being stopped
    assert tasks.stopped(task_id) == [
        _state(task_id, "stopped"),
        {
            "sessionUpdate": "notice",
            "severity": "info",
            "title": "Task stopped by user",
            "description": "Claude is working.",
        },
    ]
    assert not tasks.autonomous_open
    # The interrupted turn's idle ends nothing more.
    assert tasks.session_state("idle", prompt_open=False) == []


def test_without_a_source_of_ids_no_turn_task_opens() -> None:
    tasks = AsyncTasks()
    assert tasks.output(prompt_open=False) == []
    assert tasks.session_state("running", prompt_open=False) == []
    assert not tasks.autonomous_open
