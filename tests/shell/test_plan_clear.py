"""Leaving plan mode in a fresh context, in process (`agent_in_process`).

The agent, the real SDK and the scripted Claude (`plan_clear*` scenarios,
`adapter/scripted_claude/plan_scenarios.py`), which logs its argv, the control requests and
answers it receives and every user message (`<tmp_path>/claude-log.jsonl`): the client is
offered the clear-context choice, the old Claude is told no with an interrupt, a new Claude
session starts under the same ACP id, gets the plan as the same turn, and its result answers
the same prompt; a cancel during the restart answers the prompt once. A fresh Claude that cannot
start (its process exits) is end to end: tests/e2e/test_plan_clear.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.plan_scenarios import IMPLEMENTING
from adapter.scripted_claude.session_scenarios import PLAN
from tests.support.choosing_client import ChoosingClient, option
from tests.support.harness import TIMEOUT, until
from tests.support.scripted_log import by_process, users
from tests.support.shell_harness import agent_in_process

CLEAR = "exit-plan-clear-accept-edits"
FRESH_CONTEXT = "User accepted the plan and requested a fresh context"


def _argv_value(argv: list[str], flag: str) -> str | None:
    """`flag`'s value, given as `--flag value` or `--flag=value`."""
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(f"{flag}="):
            return arg.split("=", 1)[1]
    return None


def _permission_answers(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e["response"]["response"]
        for e in entries
        if e["kind"] == "response"
        and isinstance(e["response"].get("response"), dict)
        and "behavior" in e["response"]["response"]
    ]


@pytest.mark.asyncio
async def test_a_clear_context_choice_goes_on_in_a_fresh_claude_session(tmp_path: Path) -> None:
    client = ChoosingClient(option(CLEAR))
    async with agent_in_process(tmp_path, "plan_clear", client=client) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "fix the bug")
        after_restart = len(adapter.incoming())
        second = await adapter.prompt(session, "and the docs?")
        listed = await asyncio.wait_for(
            adapter.conn.list_sessions(cwd=str(adapter.workdir)), TIMEOUT
        )
        config_dir = adapter.config_dir
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"

    # The choices, in the reference's wire order; the meter's share of the window.
    [offered] = client.offered
    assert [(o.option_id, o.name, o.kind) for o in offered] == [
        ("exit-plan-default", "Yes, manually approve edits", "allow_once"),
        (CLEAR, "Yes, clear context (0% used) and auto-accept edits", "allow_always"),
        ("exit-plan-accept-edits", "Yes, auto-accept edits", "allow_always"),
        ("reject", "No, keep planning", "reject_once"),
    ]

    # Two Claude processes: the second a new session, nothing resumed, in the chosen mode.
    first, fresh = by_process(tmp_path)
    first_argv, fresh_argv = first[0]["argv"], fresh[0]["argv"]
    assert _argv_value(first_argv, "--session-id") == session
    new_id = _argv_value(fresh_argv, "--session-id")
    assert new_id is not None and new_id != session
    assert _argv_value(fresh_argv, "--resume") is None
    assert _argv_value(fresh_argv, "--permission-mode") == "acceptEdits"
    assert [e["kind"] for e in first].count("exit") == 1  # the old process was closed

    # The old Claude was told no, with an interrupt; the fresh one got the plan as the turn.
    [denial] = _permission_answers(first)
    assert denial["behavior"] == "deny" and denial["message"] == FRESH_CONTEXT
    assert denial["interrupt"] is True
    [prompt] = users(first)
    continuation, follow_up = users(fresh)
    assert continuation["content"] == [
        {"type": "text", "text": f"Implement the following plan:\n\n{PLAN}"}
    ]
    assert continuation["uuid"] == prompt["uuid"]  # the same turn
    assert follow_up["content"][0]["text"] == "and the docs?"

    # What the client saw between the interrupted result and the continuation's answer.
    updates = adapter.updates()
    kinds = [u["sessionUpdate"] for u in updates]
    cleared = next(
        i
        for i, u in enumerate(updates)
        if u == {"sessionUpdate": "usage_update", "used": 0, "size": 200000}
    )
    assert kinds[cleared - 2 : cleared] == ["current_mode_update", "config_option_update"]
    assert updates[cleared - 2]["currentModeId"] == "acceptEdits"
    card = updates[cleared + 1]
    assert card["sessionUpdate"] == "tool_call_update" and card["status"] == "completed"
    assert "plan_update" not in kinds  # the client did not declare `plan`
    assert card["toolCallId"] == client.permission_requests[0].tool_call_id
    assert IMPLEMENTING in adapter.agent_texts()
    # The prompt's usage counts both contexts' results.
    assert answer.usage is not None and answer.usage.input_tokens == 48
    # One answer per prompt.
    assert sorted(adapter.answers().values()) == [1, 1]
    assert after_restart > 0

    # The link is durable and private; `session/list` shows the ACP id once.
    link_path = config_dir / "claude-acp" / "links" / f"{session}.json"
    assert stat.S_IMODE(os.stat(link_path).st_mode) == 0o600
    assert json.loads(link_path.read_text()) == {"claude": new_id, "earlier": []}
    ids = [s.session_id for s in listed.sessions]
    assert ids.count(session) == 1 and new_id not in ids


@pytest.mark.asyncio
async def test_a_client_that_declares_plan_gets_the_approved_plan_after_the_meter(
    tmp_path: Path,
) -> None:
    client = ChoosingClient(option(CLEAR))
    async with agent_in_process(
        tmp_path, "plan_clear", client=client, capabilities={"plan": {}}
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "fix the bug")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    updates = adapter.updates()
    # From the mode switch the fresh context starts in (the one before it entered plan mode).
    start = max(i for i, u in enumerate(updates) if u["sessionUpdate"] == "current_mode_update")
    mode, options, meter, plan, card = updates[start : start + 5]
    # Section 2.3 step 5, in its order, then the ExitPlanMode card completed.
    assert mode == {"sessionUpdate": "current_mode_update", "currentModeId": "acceptEdits"}
    assert options["sessionUpdate"] == "config_option_update"
    [picked] = [o for o in options["configOptions"] if o["id"] == "mode"]
    assert picked["currentValue"] == "acceptEdits"
    assert meter == {"sessionUpdate": "usage_update", "used": 0, "size": 200000}
    # The harness's client is a JetBrains AIR client: one plan per approval, joined to its card,
    # as the reference gives AIR (docs/reference-adapter.md#clear-context).
    approval = client.permission_requests[0].tool_call_id
    assert plan == {
        "sessionUpdate": "plan_update",
        "plan": {"type": "markdown", "planId": f"plan-mode:{approval}", "content": PLAN},
    }
    assert card == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": client.permission_requests[0].tool_call_id,
        "status": "completed",
    }
    # Sent once, in the fresh context only, before Claude implements the plan.
    assert [u for u in updates if u["sessionUpdate"] == "plan_update"] == [plan]

    def said(part: list[dict[str, Any]]) -> str:
        return "".join(
            u["content"]["text"] for u in part if u["sessionUpdate"] == "agent_message_chunk"
        )

    assert IMPLEMENTING not in said(updates[: start + 5]) and IMPLEMENTING in said(updates)
    assert list(adapter.answers().values()) == [1]


@pytest.mark.asyncio
async def test_a_client_other_than_air_gets_the_sessions_one_approved_plan(tmp_path: Path) -> None:
    client = ChoosingClient(option(CLEAR))
    async with agent_in_process(
        tmp_path, "plan_clear", client=client, client_meta={}, capabilities={"plan": {}}
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "fix the bug")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    # Each approval replaces the one plan, as the reference has it for every client but AIR.
    assert [u for u in adapter.updates() if u["sessionUpdate"] == "plan_update"] == [
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "markdown", "planId": "plan-mode", "content": PLAN},
        }
    ]
    assert list(adapter.answers().values()) == [1]


@pytest.mark.asyncio
@pytest.mark.parametrize("choice", ["exit-plan-default", "exit-plan-accept-edits"])
async def test_a_plan_capable_client_approving_without_clearing_gets_the_plan_after_the_card(
    tmp_path: Path, choice: str
) -> None:
    client = ChoosingClient(option(choice))
    async with agent_in_process(
        tmp_path, "plan_clear", client=client, capabilities={"plan": {}}
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "fix the bug")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    updates = adapter.updates()
    # The reference sends every approved plan of the main conversation, not only a clear
    # context's, right after the call's result (docs/reference-adapter.md#approved-plan).
    approval = client.permission_requests[0].tool_call_id
    [plan] = [u for u in updates if u["sessionUpdate"] == "plan_update"]
    assert plan == {
        "sessionUpdate": "plan_update",
        "plan": {"type": "markdown", "planId": f"plan-mode:{approval}", "content": PLAN},
    }
    at = updates.index(plan)
    card = updates[at - 1]
    assert card["sessionUpdate"] == "tool_call_update" and card["toolCallId"] == approval
    assert card["status"] == "completed"
    assert "current_mode_update" in [u["sessionUpdate"] for u in updates]
    assert len(by_process(tmp_path)) == 1  # no fresh context
    assert list(adapter.answers().values()) == [1]


@pytest.mark.asyncio
async def test_a_client_without_plan_approving_without_clearing_gets_no_plan_update(
    tmp_path: Path,
) -> None:
    client = ChoosingClient(option("exit-plan-default"))
    async with agent_in_process(tmp_path, "plan_clear", client=client) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "fix the bug")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    updates = adapter.updates()
    approval = client.permission_requests[0].tool_call_id
    completed = [
        u
        for u in updates
        if u["sessionUpdate"] == "tool_call_update"
        and u["toolCallId"] == approval
        and u.get("status") == "completed"
    ]
    assert completed  # the plan was approved ...
    assert "plan_update" not in [u["sessionUpdate"] for u in updates]  # ... and not sent
    assert list(adapter.answers().values()) == [1]


@pytest.mark.asyncio
async def test_a_load_of_the_acp_id_resumes_the_fresh_context(tmp_path: Path) -> None:
    client = ChoosingClient(option(CLEAR))
    async with agent_in_process(tmp_path, "plan_clear", client=client) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "fix the bug")
        await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        start = len(adapter.incoming())
        await asyncio.wait_for(
            adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        replayed = [
            m["params"]["update"]
            for m in adapter.incoming()[start:]
            if m.get("method") == "session/update"
        ]
        again = await adapter.prompt(session, "next step")
    assert isinstance(again, PromptResponse) and again.stop_reason == "end_turn"
    processes = by_process(tmp_path)
    assert len(processes) == 3
    fresh_id = _argv_value(processes[1][0]["argv"], "--session-id")
    # The loaded session resumes the continuation's Claude session, under the ACP id.
    assert _argv_value(processes[2][0]["argv"], "--resume") == fresh_id
    texts = [
        u["content"]["text"]
        for u in replayed
        if u["sessionUpdate"] in ("user_message_chunk", "agent_message_chunk")
    ]
    # The turn before the clear first, then the continuation's (tests/shell/test_plan_clear_load).
    assert texts[0] == "fix the bug"
    continued = texts.index(f"Implement the following plan:\n\n{PLAN}")
    assert IMPLEMENTING in texts[continued:]


@pytest.mark.asyncio
async def test_a_cancel_during_the_restart_answers_cancelled_and_sends_no_plan(
    tmp_path: Path,
) -> None:
    # Clear the context the first time; the fresh Claude's own plan is then approved as is.
    choices = iter([CLEAR, "exit-plan-default"])
    client = ChoosingClient(lambda options: next(choices))
    async with agent_in_process(tmp_path, "plan_clear_slow_start", client=client) as adapter:
        session = await adapter.new_session()
        pending = asyncio.create_task(adapter.prompt(session, "fix the bug"))
        # The fresh process has started (its argv is logged) and sleeps before its handshake.
        await until(lambda: len(by_process(tmp_path)) == 2, "the fresh Claude to start")
        await adapter.conn.cancel(session_id=session)
        answer = await asyncio.wait_for(pending, TIMEOUT)
        later = await adapter.prompt(session, "start over")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert isinstance(later, PromptResponse) and later.stop_reason == "end_turn"
    _, fresh = by_process(tmp_path)
    # No plan reached the fresh context; the next prompt did, as a turn of its own.
    [received] = users(fresh)
    assert received["content"][0]["text"] == "start over"
    assert [a["behavior"] for a in _permission_answers(fresh)] == ["allow"]
    assert _argv_value(fresh[0]["argv"], "--session-id") != session
    assert sorted(adapter.answers().values()) == [1, 1]
