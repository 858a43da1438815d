"""JetBrains AIR's goal (`fsm.air.goals`): `_session/goal`'s params, and which goal snapshot AIR is
shown when (the reference's `publishGoal*`: docs/reference-adapter.md#goals)."""

from __future__ import annotations

from typing import Any

from fsm import BadGoalRequest, GoalRequest, Goals, air_client, goal_request

ACTIVE = {"objective": "Ship it", "status": "active", "controlMethod": "_session/goal"}


def _goal(update: dict[str, Any]) -> Any:
    assert update["sessionUpdate"] == "session_info_update" and "title" not in update
    return update["_meta"]["jetbrains"]["air"]["goal"]


def _frame(condition: str, reason: str | None = None) -> dict[str, Any]:
    return {"condition": f" {condition} ", "iterations": 2, "set_at": 5, "last_reason": reason}


def test_goal_requests_become_the_goal_command() -> None:
    assert goal_request({"sessionId": "s", "action": "set", "objective": " Ship it "}) == (
        GoalRequest("s", "/goal Ship it")
    )
    assert goal_request({"sessionId": "s", "action": "clear", "objective": 7}) == GoalRequest(
        "s", "/goal clear"
    )
    for params, words in (
        (None, "goal params must be an object"),
        ([], "goal params must be an object"),
        ({"action": "set"}, "goal params require a non-empty sessionId"),
        ({"sessionId": 1, "action": "clear"}, "goal params require a non-empty sessionId"),
        ({"sessionId": "s", "action": "pause"}, 'goal action must be "set" or "clear"'),
        ({"sessionId": "s", "action": ["set"]}, 'goal action must be "set" or "clear"'),
        ({"sessionId": "s", "action": "set"}, 'goal action "set" requires a non-empty objective'),
        (
            {"sessionId": "s", "action": "set", "objective": " "},
            'goal action "set" requires a non-empty objective',
        ),
    ):
        assert goal_request(params) == BadGoalRequest(words), params


def test_every_air_client_is_told_how_to_set_a_goal() -> None:
    declared = air_client({"jetbrains": {"air": {}}}).declaration()
    assert declared is not None
    assert declared["goal"] == {
        "version": 1,
        "controlMethod": "_session/goal",
        "actions": ["set", "clear"],
    }


def test_a_goal_command_is_shown_at_once_then_claude_codes_frames_rule() -> None:
    goals = Goals(air=True)
    assert goals.prompted("/goal", "u0") == []  # a bare /goal names none
    assert goals.prompted("fix it", "u0") == []
    [shown] = goals.prompted("/goal  Ship it\n", "u1")
    assert _goal(shown) == ACTIVE
    # While the command is pending, a frame of another goal is an older one.
    assert goals.runtime_goal(_frame("Old goal")) == []
    [runtime] = goals.runtime_goal(_frame("Ship it", "Tests fail"))
    assert _goal(runtime) == {
        **ACTIVE,
        "iterations": 2,
        "lastReason": "Tests fail",
        "createdAt": 5,
    }
    # Pending no more: any frame is the truth now, a malformed one is not.
    assert goals.runtime_goal({"iterations": 1}) == []
    [other] = goals.runtime_goal(_frame("Other"))
    assert _goal(other)["objective"] == "Other"
    [cleared] = goals.runtime_goal(None)
    assert _goal(cleared) is None


def test_a_failed_goal_command_brings_the_goal_before_it_back() -> None:
    goals = Goals(air=True)
    goals.runtime_goal(_frame("Ship it"))
    [asked] = goals.prompted("/goal Impossible", "u1")
    assert _goal(asked)["objective"] == "Impossible"
    assert goals.result(failed=True) == []  # an earlier turn's result: not yet taken up
    goals.taken_up("other")
    assert goals.result(failed=True) == []
    goals.taken_up("u1")
    [back] = goals.result(failed=True)
    assert _goal(back)["objective"] == "Ship it" and _goal(back)["iterations"] == 2
    assert goals.result(failed=True) == []  # once
    # A command that succeeded without a frame simply stops being pending.
    goals.prompted("/goal clear", "u2")
    goals.taken_up("u2")
    assert goals.result(failed=False) == []
    [late] = goals.runtime_goal(_frame("Late"))
    assert _goal(late)["objective"] == "Late"


def test_a_failed_first_goal_clears_and_other_clients_are_told_nothing() -> None:
    goals = Goals(air=True)
    goals.prompted("/goal First", "u1")
    goals.taken_up("u1")
    [cleared] = goals.result(failed=True)
    assert _goal(cleared) is None
    plain = Goals(air=False)
    assert plain.prompted("/goal First", "u1") == []
    assert plain.runtime_goal(_frame("First")) == []
