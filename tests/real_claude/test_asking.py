"""Claude asks the user with the real Claude Code CLI: AskUserQuestion through an
`elicitation/create` form, and ExitPlanMode through a permission request with the plan-exit
choices. What is asserted is what the client was shown and what the CLI then told the API (the
`tool_result` in its next request), in the CLI's own words.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
import pytest_asyncio

from tests.real_claude.api_double import (
    Answer,
    MessagesApiDouble,
    ToolUse,
    tool_result_text,
)
from tests.real_claude.support import approve_plan_from_file, real_adapter, run_turn
from tests.support.asked_client import PLAN, AskedClient, decline
from tests.support.harness import TIMEOUT, Adapter, RecordingClient

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

DB = "Which database should the app use?"
QUESTION = {
    "questions": [
        {
            "question": DB,
            "header": "Database",
            "options": [
                {"label": "Postgres", "description": "Relational, the team knows it"},
                {"label": "SQLite", "description": "A file, nothing to run"},
            ],
            "multiSelect": False,
        }
    ]
}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def asking(
    double: MessagesApiDouble, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[Adapter, AskedClient]]:
    """One adapter whose client declares `elicitation.form` (opted into sessionFailure)."""
    client = AskedClient()
    async with real_adapter(
        tmp_path_factory.mktemp("real-asking"),
        double,
        capable=True,
        client=cast(RecordingClient, client),
        capabilities={"elicitation": {"form": {}}},
    ) as running:
        yield running, client


def _forms_sent(adapter: Adapter, start: int) -> list[dict[str, Any]]:
    """The `elicitation/create` params as they went over the wire, since frame `start`."""
    return [
        f.message["params"]
        for f in adapter.frames[start:]
        if f.direction == "incoming" and f.message.get("method") == "elicitation/create"
    ]


def _only_tool_result(double: MessagesApiDouble, tool: ToolUse) -> dict[str, Any]:
    """The one `tool_result` the CLI sent back for `tool`, in the request after the call."""
    first, second = double.messages()
    assert first.tool_results() == []
    (result,) = second.tool_results()
    assert result["tool_use_id"] == tool.id
    return result


async def test_a_question_becomes_a_form_and_claude_code_hears_the_pick(
    asking: tuple[Adapter, AskedClient], double: MessagesApiDouble
) -> None:
    adapter, client = asking

    async def pick(form: dict[str, Any]) -> Any:
        return {"action": "accept", "content": {"question_0": "Postgres"}}

    client.answer_form = pick
    ask = ToolUse("AskUserQuestion", QUESTION)
    double.script(ask, Answer("Postgres it is."))
    start, asked_before = len(adapter.frames), len(client.permission_requests)
    turn = await run_turn(adapter, "Build me an app")

    (form,) = _forms_sent(adapter, start)
    assert form["toolCallId"] == ask.id and form["sessionId"] == turn.session_id
    assert form["message"] == DB
    schema = form["requestedSchema"]
    assert list(schema["properties"]) == ["question_0", "question_0_custom"]
    choice = schema["properties"]["question_0"]
    assert choice["type"] == "string" and choice["title"] == "Database"
    assert [(o["const"], o["title"], o["description"]) for o in choice["oneOf"]] == [
        ("Postgres", "Postgres", "Relational, the team knows it"),
        ("SQLite", "SQLite", "A file, nothing to run"),
    ]
    assert schema["properties"]["question_0_custom"]["title"] == "Other"
    # The real CLI 2.1.332 words the answer it got as the tool's `answers` like this.
    result = _only_tool_result(double, ask)
    assert result.get("is_error") is not True
    assert tool_result_text(result) == (
        f'Your questions have been answered: "{DB}"="Postgres". '
        "You can now continue with these answers in mind."
    )
    assert len(client.permission_requests) == asked_before  # a form, never a Yes/No card
    assert "".join(turn.texts()) == "Postgres it is."
    assert turn.response.stop_reason == "end_turn"
    assert turn.records() == []


async def test_a_declined_form_tells_claude_code_the_user_did_not_answer(
    asking: tuple[Adapter, AskedClient], double: MessagesApiDouble
) -> None:
    adapter, client = asking
    client.answer_form = decline
    ask = ToolUse("AskUserQuestion", QUESTION)
    double.script(ask, Answer("I'll pick one myself."))
    start = len(adapter.frames)
    turn = await run_turn(adapter, "Build me an app")

    assert [f["toolCallId"] for f in _forms_sent(adapter, start)] == [ask.id]
    # Declined is `answers: {}`: the CLI tells Claude so, and the call is not an error.
    result = _only_tool_result(double, ask)
    assert result.get("is_error") is not True
    assert tool_result_text(result) == "The user did not answer the questions."
    assert "".join(turn.texts()) == "I'll pick one myself."
    assert turn.response.stop_reason == "end_turn"
    assert turn.records() == []


async def test_leaving_plan_mode_is_a_permission_choice_that_switches_to_manual(
    asking: tuple[Adapter, AskedClient], double: MessagesApiDouble
) -> None:
    adapter, client = asking
    session = await adapter.new_session()
    await asyncio.wait_for(
        adapter.conn.set_session_mode(session_id=session, mode_id="plan"), TIMEOUT
    )
    leave = ToolUse("ExitPlanMode", {"plan": PLAN})
    double.script(leave, Answer("Out of plan mode."))
    client.option = "exit-plan-default"
    try:
        turn = await run_turn(adapter, "Plan the fix", session)
    finally:
        client.option = "allow"

    asked = client.permission_requests[-1]
    assert asked.tool_call_id == leave.id
    # This client is AIR: the question is its share of the card it holds (its kind is there).
    assert asked.kind is None and asked.title == "Ready to code?"
    [card] = [u for u in turn.updates("tool_call") if u["toolCallId"] == leave.id]
    assert card["kind"] == "switch_mode"
    # The bundled CLI's models offer auto. No clear-context choice: the CLI 2.1.332 takes the
    # plan from its plan file, not from Claude's input (which reaches the callback as `{}`), and
    # this Claude wrote none (see the next test).
    assert asked.raw_input == {} and asked.content is None
    assert [(o.option_id, o.kind) for o in client.offered[-1]] == [
        ("exit-plan-default", "allow_once"),
        ("exit-plan-auto", "allow_always"),
        ("reject", "reject_once"),
    ]
    modes = [u["currentModeId"] for u in turn.updates("current_mode_update")]
    assert modes == ["default"]
    result = _only_tool_result(double, leave)
    assert result.get("is_error") is not True
    assert tool_result_text(result) == "User has approved exiting plan mode. You can now proceed."
    assert "".join(turn.texts()) == "Out of plan mode."
    assert turn.response.stop_reason == "end_turn"
    assert turn.records() == []


async def test_a_plan_in_the_clis_plan_file_is_shown_and_can_clear_the_context(
    asking: tuple[Adapter, AskedClient], double: MessagesApiDouble
) -> None:
    """The CLI 2.1.332 names its plan file in plan mode's reminder and, when the file holds a
    plan, hands it to the permission callback as ExitPlanMode's `plan` (with `planFilePath`).
    The test writes the file while the double holds back Claude's ExitPlanMode, as Claude
    would have written it first."""
    adapter, client = asking
    _, leave, plan_file = await approve_plan_from_file(
        adapter, client, double, "exit-plan-default", "Coding now."
    )

    asked = client.permission_requests[-1]
    assert asked.tool_call_id == leave.id
    # The plan to approve, in the input of AIR's share of the card (the card shows it too).
    assert asked.raw_input == {"plan": PLAN, "planFilePath": plan_file}
    assert asked.content is None
    assert [o.option_id for o in client.offered[-1]] == [
        "exit-plan-default",
        "exit-plan-clear-auto",
        "exit-plan-auto",
        "reject",
    ]
    result = _only_tool_result(double, leave)
    assert result.get("is_error") is not True
    assert tool_result_text(result).endswith(f"## Approved Plan:\n{PLAN}")


async def test_keep_planning_ends_the_turn_cancelled_without_a_record(
    asking: tuple[Adapter, AskedClient], double: MessagesApiDouble
) -> None:
    # "No, keep planning" denies ExitPlanMode with an interrupt: the real CLI ends the cycle
    # with an error result whose only error is its `[ede_diagnostic] …` line.
    adapter, client = asking
    session = await adapter.new_session()
    await asyncio.wait_for(
        adapter.conn.set_session_mode(session_id=session, mode_id="plan"), TIMEOUT
    )
    double.script(ToolUse("ExitPlanMode", {"plan": PLAN}))
    client.option = "reject"
    try:
        turn = await run_turn(adapter, "Plan the fix", session)
    finally:
        client.option = "allow"
    assert turn.response.stop_reason == "cancelled"
    assert turn.records() == []
    assert "ede_diagnostic" not in json.dumps(turn.frames)
    assert [u["currentModeId"] for u in turn.updates("current_mode_update")] == []
