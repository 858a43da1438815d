"""JetBrains AIR's native subagent sessions (`fsm.air.native_subagents`), the reference adapter's
AIR form: who is told what, on which session, and when."""

from __future__ import annotations

from typing import Any

from fsm.air.client import air_client
from fsm.air.native_subagents import (
    MAX_PENDING_UPDATES_PER_PARENT,
    NativeSubagents,
    subagent_state,
)
from tests.support.child_options import model_option

ROOT = "root-session"
LAUNCH = "toolu_launch"
AGENT = "a1b2c3d4e5f6"


def _air(capabilities: list[str]) -> dict[str, Any]:
    return {"jetbrains": {"air": {"version": 1, "capabilities": capabilities}}}


def _launch_card(
    call: str = LAUNCH, *, parent: str | None = None, status: str = "pending", **raw: Any
) -> dict[str, Any]:
    claude: dict[str, Any] = {"toolName": "Agent"}
    if parent is not None:
        claude["parentToolUseId"] = parent
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": call,
        "title": "Explore the repo",
        "status": status,
        "rawInput": raw,
        "_meta": {"claudeCode": claude, "jetbrains": {"air": {"version": 1, "subagent": True}}},
    }


def _started(task: str = AGENT, call: str | None = LAUNCH, **more: Any) -> dict[str, Any]:
    frame: dict[str, Any] = {"task_id": task, "subagent_type": "Explore", "description": "Look"}
    if call is not None:
        frame["tool_use_id"] = call
    frame.update(more)
    return frame


def _words(text: str, parent: str = LAUNCH) -> dict[str, Any]:
    return {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": text},
        "_meta": {"claudeCode": {"parentToolUseId": parent}},
    }


def _child_call(call: str, parent: str = LAUNCH) -> dict[str, Any]:
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": call,
        "title": "Read a.py",
        "status": "pending",
        "_meta": {"claudeCode": {"toolName": "Read", "parentToolUseId": parent}},
    }


def _on() -> NativeSubagents:
    return NativeSubagents(ROOT, enabled=True)


def _spawned(session: str, name: str, task: str, **more: Any) -> dict[str, Any]:
    return {
        "sessionUpdate": "subagent_spawned",
        "subagentSessionId": session,
        "name": name,
        "task": task,
        **more,
        "capabilities": {},
    }


def _state(session: str, state: str) -> dict[str, Any]:
    return {"sessionUpdate": "subagent_state_update", "subagentSessionId": session, "state": state}


def test_negotiated_only_by_an_air_client_that_declared_it_or_sent_the_subagents_field() -> None:
    assert air_client(_air(["nativeSubagentSessions"])).native_subagents
    assert air_client({"jetbrains": {"air": {}}}, subagents=True).native_subagents
    assert not air_client({"jetbrains": {"air": {}}}).native_subagents
    assert not air_client(_air(["asyncTasks"])).native_subagents
    # A plain client with the RFD's field would get the RFD's form, which is not spoken here.
    assert not air_client(None, subagents=True).native_subagents
    assert not air_client({"capabilities": ["nativeSubagentSessions"]}).native_subagents


def test_the_declaration_lists_it_and_air_gets_the_subagents_session_capability() -> None:
    bare = air_client({"jetbrains": {"air": {}}})
    declared = bare.declaration()
    assert declared is not None and "nativeSubagentSessions" in declared["capabilities"]
    assert declared["capabilities"][:3] == [
        "sessionFailure",
        "agentFileChangeReport",  # the reference's order
        "nativeSubagentSessions",
    ]
    assert bare.session_capabilities() == {"subagents": {}}
    assert air_client(None).session_capabilities() == {}


def test_off_every_update_goes_to_the_root_as_it_is() -> None:
    off = NativeSubagents(ROOT)
    card = _launch_card(prompt="Find it")
    assert off.route(card) == [(ROOT, card)]
    assert off.route(_words("hi")) == [(ROOT, _words("hi"))]
    assert off.task_started(_started()) == []
    assert off.finish_all("failed") == []
    assert off.session_of_agent(AGENT) == ROOT


def test_a_child_is_announced_at_its_task_and_its_work_goes_to_its_session() -> None:
    subs = _on()
    launch = _launch_card(description="Explore the repo", prompt="Find where X is parsed")
    assert subs.route(launch) == []  # the Agent call is never shown
    announced = subs.task_started(_started(prompt="Find where X is parsed, exactly"))
    assert announced == [
        (
            ROOT,
            _spawned(
                AGENT,
                "Explore the repo",
                "Find where X is parsed",
                prompt="Find where X is parsed, exactly",
            ),
        )
    ]
    assert subs.route(_words("Looking")) == [(AGENT, _words("Looking"))]
    assert subs.route(_child_call("toolu_read")) == [(AGENT, _child_call("toolu_read"))]
    # Its result names no parent: the call's owner is remembered.
    result = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "toolu_read",
        "status": "completed",
    }
    assert subs.route(result) == [(AGENT, result)]
    root_words = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
    assert subs.route(root_words) == [(ROOT, root_words)]
    assert subs.session_of_agent(AGENT) == AGENT
    # The launch call's own updates stay hidden, its completion included.
    done = {"sessionUpdate": "tool_call_update", "toolCallId": LAUNCH, "status": "completed"}
    assert subs.route(done) == []
    assert subs.task_notification(
        {"task_id": AGENT, "tool_use_id": LAUNCH, "status": "completed"}
    ) == [(ROOT, _state(AGENT, "completed"))]
    # Ended for good: later words and a second end are dropped.
    assert subs.route(_words("late")) == []
    assert subs.task_updated({"task_id": AGENT, "patch": {"status": "failed"}}) == []


def test_work_before_the_announcement_waits_and_follows_it() -> None:
    subs = _on()
    subs.route(_launch_card(prompt="Do it"))
    assert subs.route(_words("early")) == []
    assert subs.route(_child_call("toolu_early")) == []
    assert subs.session_of_agent(AGENT) == ROOT  # not announced yet
    out = subs.task_started(_started())
    assert [session for session, _ in out] == [ROOT, AGENT, AGENT]
    assert out[0][1]["sessionUpdate"] == "subagent_spawned"
    assert out[1][1] == _words("early") and out[2][1] == _child_call("toolu_early")


def test_a_task_before_its_launch_call_is_announced_by_the_call() -> None:
    subs = _on()
    assert subs.task_started(_started(prompt="From the task")) == []
    out = subs.route(_launch_card(name="Scout", prompt="From the call"))
    assert out == [(ROOT, _spawned(AGENT, "Scout", "From the call", prompt="From the task"))]


def test_names_and_tasks_fall_back_as_the_reference_does() -> None:
    subs = _on()
    out = subs.task_started({"task_id": "abcdefghijkl", "subagent_type": " "})
    assert out == []  # no subagent type: not a subagent
    out = subs.task_started({"task_id": "abcdefghijkl", "subagent_type": "general-purpose"})
    assert out == [(ROOT, _spawned("abcdefghijkl", "general-purpose", "Delegated task"))]
    out = subs.task_started({"task_id": "xy", "subagent_type": "Explore", "description": "  "})
    assert out[0][1]["name"] == "Explore"
    assert subagent_state("killed") == "cancelled" and subagent_state("stopped") == "cancelled"
    assert subagent_state("running") is None


def test_a_launch_that_fails_without_a_child_is_shown_once_without_the_mark() -> None:
    subs = _on()
    assert subs.route(_launch_card(prompt="Do it")) == []
    failed = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": LAUNCH,
        "status": "failed",
        "content": [{"type": "content", "content": {"type": "text", "text": "no such agent"}}],
    }
    ((session, shown),) = subs.route(failed)
    assert session == ROOT
    assert shown["sessionUpdate"] == "tool_call" and shown["status"] == "failed"
    assert shown["title"] == "Explore the repo" and shown["rawInput"] == {"prompt": "Do it"}
    assert shown["content"] == failed["content"]
    assert shown["_meta"] == {
        "claudeCode": {"toolName": "Agent"},
        "jetbrains": {"air": {"version": 1}},
    }
    # A completed launch without a child stays invisible.
    subs.route(_launch_card("toolu_other"))
    done = {"sessionUpdate": "tool_call_update", "toolCallId": "toolu_other", "status": "completed"}
    assert subs.route(done) == []


def test_a_resumed_agent_opens_a_new_generation_with_the_message_as_its_prompt() -> None:
    subs = _on()
    subs.route(_launch_card(prompt="First"))
    subs.task_started(_started())
    subs.task_notification({"task_id": AGENT, "tool_use_id": LAUNCH, "status": "completed"})
    send = {
        "sessionUpdate": "tool_call",
        "toolCallId": "toolu_send",
        "rawInput": {"to": AGENT, "message": "Now the tests"},
        "_meta": {"claudeCode": {"toolName": "SendMessage"}},
    }
    assert subs.route(send) == [(ROOT, send)]
    out = subs.task_updated({"task_id": AGENT, "patch": {"status": "running"}})
    second = f"{AGENT}:generation:2"
    assert out == [(ROOT, _spawned(second, "Look", "First", prompt="Now the tests"))]
    assert subs.route(_words("again")) == [(second, _words("again"))]
    # A running patch of a child still running changes nothing; a result's resume neither.
    assert subs.task_updated({"task_id": AGENT, "patch": {"status": "running"}}) == []
    assert subs.send_message_result({"success": True, "resumedAgentId": AGENT}) == []
    subs.task_updated({"task_id": AGENT, "patch": {"status": "completed"}})
    out = subs.send_message_result({"success": True, "resumedAgentId": AGENT})
    assert out[0][1]["subagentSessionId"] == f"{AGENT}:generation:3"
    assert subs.send_message_result({"success": False, "resumedAgentId": AGENT}) == []


def test_a_cancel_of_the_parent_ends_every_open_child_once() -> None:
    subs = _on()
    subs.route(_launch_card("toolu_a", prompt="A"))
    subs.task_started(_started("agent-a", "toolu_a"))
    subs.route(_launch_card("toolu_b", prompt="B"))
    subs.task_started(_started("agent-b", "toolu_b"))
    subs.task_notification({"task_id": "agent-a", "tool_use_id": "toolu_a", "status": "failed"})
    assert subs.parent_cancelled() == [(ROOT, _state("agent-b", "cancelled"))]
    assert subs.parent_cancelled() == []
    assert subs.finish_all("failed") == []


def test_a_child_that_ends_unannounced_is_announced_first() -> None:
    subs = _on()
    subs.task_started(_started(prompt="P"))  # its launch call never came
    subs.route(_words("buffered"))
    out = subs.finish_all("failed")
    assert [u["sessionUpdate"] for _, u in out] == [
        "subagent_spawned",
        "agent_message_chunk",
        "subagent_state_update",
    ]
    assert out[1][0] == AGENT and out[2] == (ROOT, _state(AGENT, "failed"))


def test_a_nested_child_is_announced_on_its_parent_child() -> None:
    subs = _on()
    subs.route(_launch_card(prompt="Outer"))
    subs.task_started(_started())
    assert subs.route(_launch_card("toolu_inner", parent=LAUNCH, prompt="Inner")) == []
    out = subs.task_started(_started("inner-agent", "toolu_inner"))
    assert out == [(AGENT, _spawned("inner-agent", "Look", "Inner", prompt="Inner"))]
    assert subs.route(_words("deep", parent="toolu_inner")) == [
        ("inner-agent", _words("deep", parent="toolu_inner"))
    ]
    out = subs.task_notification(
        {"task_id": "inner-agent", "tool_use_id": "toolu_inner", "status": "killed"}
    )
    assert out == [(AGENT, _state("inner-agent", "cancelled"))]


def test_what_waits_is_bounded_per_launch() -> None:
    subs = _on()
    subs.route(_launch_card(prompt="P"))
    for n in range(MAX_PENDING_UPDATES_PER_PARENT + 5):
        subs.route(_words(f"w{n}"))
    assert subs.dropped == 5
    out = subs.task_started(_started())
    assert len(out) == 1 + MAX_PENDING_UPDATES_PER_PARENT


def test_a_task_that_is_not_a_subagent_drops_what_waited_on_its_call() -> None:
    subs = _on()
    subs.route(_words("for a shell", parent="toolu_bash"))
    assert (
        subs.task_started({"task_id": "b1", "tool_use_id": "toolu_bash", "task_type": "local_bash"})
        == []
    )
    subs.route(_launch_card("toolu_bash"))
    assert subs.task_started(_started("b1", "toolu_bash")) == [
        (ROOT, _spawned("b1", "Look", "Look"))
    ]


def test_async_tasks_of_a_child_stay_on_it_after_its_end() -> None:
    subs = _on()
    subs.route(_launch_card(prompt="P"))
    subs.task_started(_started())
    bash = _child_call("toolu_bash")
    subs.route(bash)
    spawned = {
        "sessionUpdate": "async_task_spawned",
        "asyncTaskId": "t1",
        "toolCallId": "toolu_bash",
    }
    assert subs.route(spawned) == [(AGENT, spawned)]
    subs.task_notification({"task_id": AGENT, "tool_use_id": LAUNCH, "status": "completed"})
    ended = {"sessionUpdate": "async_task_state_update", "asyncTaskId": "t1", "state": "completed"}
    assert subs.route(ended) == [(AGENT, ended)]
    other = {"sessionUpdate": "async_task_spawned", "asyncTaskId": "t2"}
    assert subs.route(other) == [(ROOT, other)]


def _model_update(value: str, name: str) -> dict[str, Any]:
    return {
        "sessionUpdate": "config_option_update",
        "configOptions": [model_option(value, name)],
        "_meta": {"claudeCode": {"parentToolUseId": LAUNCH}},
    }


def test_a_childs_model_is_its_own_one_option_picker_sent_when_it_changes() -> None:
    subs = _on()
    choices = [("sonnet", "Sonnet 4.5", "claude-sonnet-4-5"), ("opus", "Opus", None)]
    subs.route(_launch_card(prompt="P"))
    # Before the announcement only the latest waits.
    assert subs.child_model(LAUNCH, "claude-haiku", choices) == []
    assert subs.child_model(LAUNCH, "claude-sonnet-4-5", choices) == []
    out = subs.task_started(_started())
    assert out[1:] == [(AGENT, _model_update("sonnet", "Sonnet 4.5"))]
    assert subs.child_model(LAUNCH, "claude-sonnet-4-5", choices) == []  # unchanged
    assert subs.child_model(LAUNCH, "claude-x", choices) == [
        (AGENT, _model_update("claude-x", "claude-x"))
    ]
    assert subs.child_model(LAUNCH, "<synthetic>", choices) == []
    assert subs.child_model(None, "claude-x", choices) == []
    subs.task_notification({"task_id": AGENT, "tool_use_id": LAUNCH, "status": "completed"})
    assert subs.child_model(LAUNCH, "opus", choices) == []  # ended: nothing more
    assert NativeSubagents(ROOT).child_model(LAUNCH, "claude-x", choices) == []


def test_an_agent_from_before_a_load_is_restored_from_the_history() -> None:
    subs = _on()
    # Its output names a launch this session never saw: it waits, and the launch is looked up.
    assert not subs.wanting
    assert subs.route(_words("back again", parent="toolu_old")) == []
    assert subs.wanting
    assert subs.wanted() == (["toolu_old"], [])
    assert not subs.wanting
    assert subs.wanted() == ([], [])  # asked once
    out = subs.restore(
        "old-agent", "toolu_old", name=None, description="Audit", kind="Explore", now_ms=1000
    )
    assert out == [
        (ROOT, _spawned("old-agent:generation:1000", "Audit", "Audit")),
        ("old-agent:generation:1000", _words("back again", parent="toolu_old")),
    ]
    # A launch the history does not know is not looked up again; what waits stays unshown.
    subs.route(_words("lost", parent="toolu_gone"))
    assert subs.wanted() == (["toolu_gone"], [])
    subs.unresolved(launch="toolu_gone")
    subs.route(_words("lost again", parent="toolu_gone"))
    assert subs.wanted() == ([], [])


def test_a_restored_agent_goes_under_its_launching_agent_while_that_one_is_live() -> None:
    subs = _on()
    parent = subs.restore("lead", "toolu_lead", name="Lead", description=None, kind=None, now_ms=9)
    assert parent == [(ROOT, _spawned("lead:generation:9", "Lead", "Delegated task"))]
    # The lead's history holds the helper's launch, and the lead runs: the helper is its child.
    helper = subs.restore(
        "helper",
        "toolu_help",
        name="Helper",
        description=None,
        kind=None,
        now_ms=9,
        launcher="lead",
    )
    assert helper == [
        ("lead:generation:9", _spawned("helper:generation:10", "Helper", "Delegated task"))
    ]
    # A launcher this session does not run, or one that ended: the root.
    other = subs.restore(
        "other", "toolu_o", name="O", description=None, kind=None, now_ms=9, launcher="nobody"
    )
    assert other[0][0] == ROOT
    subs.task_notification({"task_id": "lead", "tool_use_id": "toolu_lead", "status": "completed"})
    late = subs.restore(
        "late", "toolu_late", name="L", description=None, kind=None, now_ms=9, launcher="lead"
    )
    assert late[0][0] == ROOT


def test_an_agent_woken_by_send_message_after_a_load_gets_a_generation_of_its_own() -> None:
    subs = _on()
    send = {
        "sessionUpdate": "tool_call",
        "toolCallId": "toolu_send",
        "rawInput": {"to": "old-agent", "message": "Go on"},
        "_meta": {"claudeCode": {"toolName": "SendMessage"}},
    }
    subs.route(send)
    assert subs.task_started(_started("old-agent", "toolu_send", prompt="Go on")) == []
    assert subs.wanted() == ([], ["old-agent"])
    out = subs.restore(
        "old-agent", "toolu_old", name="Scout", description=None, kind=None, now_ms=5
    )
    assert out == [
        (ROOT, _spawned("old-agent:generation:5", "Scout", "Delegated task", prompt="Go on"))
    ]
    # Its run goes on under the SendMessage call.
    assert subs.route(_words("going", parent="toolu_send")) == [
        ("old-agent:generation:5", _words("going", parent="toolu_send"))
    ]
    # A running patch of an agent nobody knows asks for it; the history's silence ends that.
    subs.task_updated({"task_id": "ghost", "patch": {"status": "running"}})
    assert subs.wanted() == ([], ["ghost"])
    subs.unresolved(agent="ghost")
    subs.task_updated({"task_id": "ghost", "patch": {"status": "running"}})
    assert subs.wanted() == ([], [])
    # A second restore in the same millisecond still gets an id of its own.
    subs.route(_words("x", parent="toolu_b"))
    subs.wanted()
    again = subs.restore("b-agent", "toolu_b", name="B", description=None, kind=None, now_ms=5)
    assert again[0][1]["subagentSessionId"] == "b-agent:generation:6"
