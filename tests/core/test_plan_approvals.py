"""Which approved plan becomes the session's markdown plan (`fsm.approved_plan`), as the
reference adapter decides it (docs/reference-adapter.md#approved-plan)."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import approved_plan, published_plan

PLAN = "# Fix the bug\n\n1. Read the code."


def _plan(
    tool_input: object = None,
    result: object = None,
    *,
    is_error: bool = False,
    subagent: bool = False,
    plan_updates: bool = True,
) -> str | None:
    return approved_plan(
        {"plan": PLAN} if tool_input is None else tool_input,
        result,
        is_error=is_error,
        subagent=subagent,
        plan_updates=plan_updates,
    )


def test_an_approved_plan_is_the_inputs_trimmed() -> None:
    assert _plan({"plan": f"\n  {PLAN}  \n"}) == PLAN
    assert _plan(result="User has approved your plan.") == PLAN  # text: no structured plan


def test_the_structured_results_plan_holds_the_users_edits_and_wins() -> None:
    edited = {"plan": " # Fix the bug, edited ", "isAgent": False, "filePath": "/p.md"}
    assert _plan(result=edited) == "# Fix the bug, edited"


@pytest.mark.parametrize(
    ("case", "kwargs"),
    [
        ("an error result (a denial, a clear context)", {"is_error": True}),
        ("a call under an Agent call", {"subagent": True}),
        ("a client without `plan`", {"plan_updates": False}),
        ("a subagent's result", {"result": {"plan": PLAN, "isAgent": True}}),
        ("waiting for the team lead", {"result": {"plan": PLAN, "awaitingLeaderApproval": True}}),
        ("an empty plan", {"tool_input": {"plan": "  \n "}}),
        ("an empty edited plan", {"result": {"plan": ""}}),
        ("no plan at all", {"tool_input": {}}),
        ("a plan that is not text", {"tool_input": {"plan": ["step"]}}),
        ("an input that is not an object", {"tool_input": "plan"}),
    ],
)
def test_no_plan_is_sent_for(case: str, kwargs: dict[str, Any]) -> None:
    assert _plan(**kwargs) is None, case


def test_a_result_that_is_not_an_object_falls_back_to_the_input() -> None:
    assert _plan(result=["User approved"]) == PLAN
    assert _plan(result={"plan": 3}) == PLAN


def test_a_clear_contexts_plan_follows_the_same_rule_for_the_client_and_the_plan() -> None:
    """The fresh context's plan (docs/reference-adapter.md#clear-context) goes to the client
    under the rule of an ordinary approval: trimmed, only to a client that declared `plan`."""
    assert published_plan(f" {PLAN}\n", plan_updates=True) == PLAN
    assert published_plan(PLAN, plan_updates=False) is None
    assert published_plan(" \n", plan_updates=True) is None
    assert published_plan(None, plan_updates=True) is None
