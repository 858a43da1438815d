"""A plan exit that clears the context, with the real Claude Code CLI, for a client that declares
`plan` (as the reference adapter does): after the fresh context's mode,
options and emptied meter, the approved plan arrives as a markdown `plan_update`, then the
ExitPlanMode card is completed, and the fresh Claude implements the plan in the same turn. An
approval that keeps the context sends the plan too, right after the call's result.

The plan reaches the CLI's callback only from its plan file (`test_asking.py` found it): the
test writes that file while the double holds back Claude's ExitPlanMode.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import cast

import pytest
import pytest_asyncio

from tests.real_claude.api_double import MessagesApiDouble
from tests.real_claude.support import approve_plan_from_file, real_adapter
from tests.support.asked_client import PLAN, AskedClient
from tests.support.harness import Adapter, RecordingClient

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def planning(
    double: MessagesApiDouble, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[Adapter, AskedClient]]:
    """One adapter whose client declares `plan` (and forms)."""
    client = AskedClient()
    async with real_adapter(
        tmp_path_factory.mktemp("real-plan-update"),
        double,
        capable=True,
        client=cast(RecordingClient, client),
        capabilities={"elicitation": {"form": {}}, "plan": {}},
    ) as running:
        yield running, client


async def test_clearing_the_context_sends_the_approved_plan_as_plan_update(
    planning: tuple[Adapter, AskedClient], double: MessagesApiDouble
) -> None:
    adapter, client = planning
    turn, leave, _ = await approve_plan_from_file(
        adapter, client, double, "exit-plan-clear-auto", "Implementing the plan."
    )

    assert "exit-plan-clear-auto" in [o.option_id for o in client.offered[-1]]
    updates = turn.updates()
    begin = max(i for i, u in enumerate(updates) if u["sessionUpdate"] == "current_mode_update")
    mode, options, meter, plan, card = updates[begin : begin + 5]
    assert mode == {"sessionUpdate": "current_mode_update", "currentModeId": "auto"}
    assert options["sessionUpdate"] == "config_option_update"
    assert meter["sessionUpdate"] == "usage_update" and meter["used"] == 0
    # The plan the user approved, as the CLI read it from its plan file (trimmed, as the
    # continuation carries it), under its approval's id: the capable client is a JetBrains AIR
    # client (docs/reference-adapter.md#clear-context).
    assert plan == {
        "sessionUpdate": "plan_update",
        "plan": {"type": "markdown", "planId": f"plan-mode:{leave.id}", "content": PLAN.strip()},
    }
    assert card == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": leave.id,
        "status": "completed",
    }
    # The fresh Claude got the plan as the same turn, and its answer ended it.
    *_, fresh = double.messages()
    assert "Implement the following plan:" in json.dumps(fresh.body)
    assert "".join(turn.texts()).endswith("Implementing the plan.")
    assert turn.response.stop_reason == "end_turn"
    assert [u for u in updates if u["sessionUpdate"] == "plan_update"] == [plan]


async def test_approving_without_clearing_sends_the_plan_after_the_calls_result(
    planning: tuple[Adapter, AskedClient], double: MessagesApiDouble
) -> None:
    # The reference sends every approved plan, not only a clear context's, right after the
    # ExitPlanMode call's result (docs/reference-adapter.md#approved-plan): here from the CLI's
    # structured result, its plan as read from the plan file.
    adapter, client = planning
    turn, leave, _ = await approve_plan_from_file(
        adapter, client, double, "exit-plan-default", "Coding now."
    )

    updates = turn.updates()
    [plan] = [u for u in updates if u["sessionUpdate"] == "plan_update"]
    assert plan == {
        "sessionUpdate": "plan_update",
        "plan": {"type": "markdown", "planId": f"plan-mode:{leave.id}", "content": PLAN.strip()},
    }
    card = updates[updates.index(plan) - 1]
    assert card["sessionUpdate"] == "tool_call_update" and card["toolCallId"] == leave.id
    assert card["status"] == "completed"
    assert "".join(turn.texts()).endswith("Coding now.")
    assert turn.response.stop_reason == "end_turn"
