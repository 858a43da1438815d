"""JetBrains AIR's native subagent sessions on load (`fsm.air.subagent_replay`): the reference's AIR
replay of a stored session's subagents."""

from __future__ import annotations

from typing import Any

from fsm.air.subagent_replay import SubagentReplay, replayed_end_state
from tests.support.child_options import model_option

ROOT = "s-1"


def _launch(ident: str, **spec: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": "Agent", "input": spec}


def _result(ident: str, text: str = "done", *, error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": ident, "content": text, "is_error": error}


def _child(launch: str) -> str:
    return f"{ROOT}:replay-subagent:{launch}"


def test_off_everything_goes_to_the_root() -> None:
    off = SubagentReplay(ROOT)
    assert off.read([_launch("t1", prompt="p")], None) == []
    assert off.target("t1") == (ROOT, [])
    card = {"sessionUpdate": "tool_call", "toolCallId": "t1"}
    assert off.route(card, ROOT) == [(ROOT, card)]
    assert off.finish() == []


def test_a_launch_is_a_child_announced_after_its_message_and_ended_by_its_result() -> None:
    replay = SubagentReplay(ROOT, enabled=True)
    assert replay.read(
        [{"type": "text", "text": "x"}, _launch("t1", description="Scout", prompt="Find it")], None
    ) == ["t1"]
    # The launch call itself is never shown.
    assert replay.route({"sessionUpdate": "tool_call", "toolCallId": "t1"}, ROOT) == []
    assert replay.announce("t1") == [
        (
            ROOT,
            {
                "sessionUpdate": "subagent_spawned",
                "subagentSessionId": _child("t1"),
                "name": "Scout",
                "task": "Find it",
                "capabilities": {},
            },
        )
    ]
    assert replay.announce("t1") == []
    session, announced = replay.target("t1")
    assert (session, announced) == (_child("t1"), [])
    call = {"sessionUpdate": "tool_call", "toolCallId": "r1"}
    assert replay.route(call, session) == [(session, call)]
    # A later update of its call follows the call, wherever it is made.
    closed = {"sessionUpdate": "tool_call_update", "toolCallId": "r1", "status": "failed"}
    assert replay.route(closed, ROOT) == [(session, closed)]
    replay.read([_result("t1")], None)
    assert replay.finish() == [
        (
            ROOT,
            {
                "sessionUpdate": "subagent_state_update",
                "subagentSessionId": _child("t1"),
                "state": "completed",
            },
        )
    ]


def test_nested_and_unknown_launches_and_end_states() -> None:
    replay = SubagentReplay(ROOT, enabled=True)
    replay.read([_launch("outer")], None)
    replay.read([_launch("inner", subagent_type="Explore")], "outer")
    _, announced = replay.target("inner")
    # The chain is announced parent first, each on its parent's session.
    assert [(sid, u["subagentSessionId"], u["name"]) for sid, u in announced] == [
        (ROOT, _child("outer"), "Restored agent"),
        (_child("outer"), _child("inner"), "Explore"),
    ]
    assert announced[0][1]["task"] == "Delegated task restored from session history"
    _, orphan = replay.target("ghost")
    assert orphan[0][1]["name"] == "Disconnected agent"
    replay.read([_result("inner", "Request interrupted by user", error=True)], "outer")
    replay.read([_result("ghost")], None)
    ends = {u["subagentSessionId"]: (sid, u["state"]) for sid, u in replay.finish()}
    assert ends == {
        _child("outer"): (ROOT, "disconnected"),  # no result
        _child("inner"): (_child("outer"), "cancelled"),
        _child("ghost"): (ROOT, "disconnected"),  # no launch metadata
    }
    assert (
        replayed_end_state({"is_error": True, "content": [{"type": "text", "text": "boom"}]})
        == "failed"
    )
    assert replayed_end_state({"content": "ok"}) == "completed"


def test_a_replayed_childs_model_is_shown_by_its_id_when_it_changes() -> None:
    replay = SubagentReplay(ROOT, enabled=True)
    replay.read([_launch("t1", prompt="p")], None)
    assert replay.model("t1", "claude-x") == []  # not announced yet
    replay.announce("t1")
    ((session, update),) = replay.model("t1", "claude-x")
    assert session == _child("t1")
    assert update["configOptions"][0]["currentValue"] == "claude-x"
    assert update["configOptions"][0]["options"] == [{"value": "claude-x", "name": "claude-x"}]
    assert replay.model("t1", "claude-x") == [] and replay.model("t1", "<synthetic>") == []
    assert SubagentReplay(ROOT).model("t1", "claude-x") == []


def test_a_replayed_childs_model_is_named_by_the_list_once_the_load_is_answered() -> None:
    replay = SubagentReplay(ROOT, enabled=True)
    choices = [("sonnet", "Sonnet 4.5", "claude-sonnet-4-5"), ("opus", "Opus 4.1", None)]
    for launch in ("t1", "t2", "t3"):
        replay.read([_launch(launch, prompt="p")], None)
        replay.announce(launch)
    # The list is not known while the load replays: each model by its id.
    replay.model("t1", "claude-sonnet-4-5")
    replay.model("t2", "claude-haiku-4-5")
    # A list known already names it at once, and the answer has nothing to refine.
    ((_, named),) = replay.model("t3", "opus", choices)
    assert named["configOptions"][0]["options"] == [{"value": "opus", "name": "Opus 4.1"}]
    refined = replay.refined_models(choices)
    assert refined == [
        (
            _child("t1"),
            {
                "sessionUpdate": "config_option_update",
                "configOptions": [model_option("sonnet", "Sonnet 4.5")],
            },
        )
    ]  # t2's model is not on the list: its id stands; t3's was named already
    assert replay.refined_models(choices) == []  # once
    assert SubagentReplay(ROOT, enabled=True).refined_models(choices) == []


def test_a_fork_childs_inherited_context_is_not_its_own() -> None:
    from fsm.air.subagent_replay import fork_directive

    inherited = {"type": "assistant", "message": {"content": [_launch("t0")]}}
    placeholder = {"type": "user", "message": {"content": [_result("t0", "Fork started")]}}
    directive = {
        "type": "user",
        "message": {
            "content": [
                _result("t0", "This is the parent's call"),
                {
                    "type": "text",
                    "text": "<fork-boilerplate>rules</fork-boilerplate>\nYour directive: Fix it.",
                },
            ]
        },
    }
    own = {"type": "assistant", "message": {"content": [{"type": "text", "text": "On it."}]}}
    assert fork_directive([inherited, placeholder, directive, own]) == (2, "Fix it.")
    odd = {
        "type": "user",
        "message": {"content": [{"type": "text", "text": "<fork-boilerplate>x"}]},
    }
    assert fork_directive([odd, own]) == (0, None)
    assert fork_directive([placeholder, own]) is None
    assert fork_directive([{"type": "user", "message": {"content": "<fork-boilerplate>"}}]) is None


def test_a_task_notice_in_the_history_says_how_a_background_subagent_ended() -> None:
    replay = SubagentReplay(ROOT, enabled=True)
    replay.read([_launch("bg", prompt="audit", run_in_background=True)], None)
    replay.announce("bg")
    replay.read([_result("bg", "Async agent launched successfully.")], None)
    notice = (
        "<task-notification><task-id>a1</task-id><tool-use-id>bg</tool-use-id>"
        "<status>killed</status><summary>stopped</summary></task-notification>"
    )
    replay.notified([{"type": "text", "text": notice}])
    replay.notified("<task-notification><status>failed</status></task-notification>")  # no ids
    ((_, end),) = replay.finish()
    assert end["state"] == "cancelled"  # not the launch's `completed`
