"""An MCP server asks, the editor answers: MCP elicitation through ACP elicitation.

Claude Code asks its host with an `elicitation` control request, which the SDK refuses and the
adapter answers: the scripted Claude sends it as the real CLI sends it, a client declaring
`elicitation.form` gets it as one `elicitation/create` form, and the adapter's answer (recorded by
the scripted Claude as the exact control response it received) is what the server hears. A client
without forms, an answer that does not fit, and a cancelled turn all end with Claude answered and
every prompt answered once.

Played in process (`agent_in_process`: the agent, the real SDK and the scripted Claude in this
process)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.mcp_scenarios import DEPLOY_MESSAGE
from tests.support.form_client import (
    FORMS,
    Answer,
    FormClient,
    accept,
    action,
    forms_sent,
    never,
    withdrawn,
)
from tests.support.harness import TIMEOUT, Adapter
from tests.support.scripted_log import claude_log, elicitation_answers
from tests.support.shell_harness import agent_in_process

# The form the `deploy` server's schema becomes: every field ACP's forms know, with the keys
# ACP keeps; the `window` object field is left out.
DEPLOY_SCHEMA = {
    "type": "object",
    "properties": {
        "environment": {
            "type": "string",
            "title": "Environment",
            "enum": ["staging", "production"],
        },
        "notify": {"type": "boolean", "title": "Tell the team", "default": True},
        "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 5},
        "regions": {
            "type": "array",
            "title": "Regions",
            "items": {
                "anyOf": [{"const": "eu", "title": "Europe"}, {"const": "us", "title": "us"}]
            },
        },
        "note": {"type": "string", "description": "Anything the release notes should say"},
    },
    "required": ["environment"],
}


def initialize_requests(tmp_path: Path) -> list[dict[str, Any]]:
    """The `initialize` control requests the scripted Claude received (the hooks registered)."""
    return [
        e["request"]
        for e in claude_log(tmp_path)
        if e["kind"] == "control" and e["request"].get("subtype") == "initialize"
    ]


async def _elicit(
    tmp_path: Path, answer: Answer, capabilities: Any = FORMS
) -> tuple[Adapter, FormClient, Any, Any]:
    client = FormClient(answer)
    async with agent_in_process(
        tmp_path, "mcp_elicit", client=client, capabilities=capabilities
    ) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "release it")
        second = await adapter.prompt(session, "thanks")
    return adapter, client, first, second


def _ended_well(first: Any, second: Any, adapter: Adapter) -> None:
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert list(adapter.answers().values()) == [1, 1]


@pytest.mark.asyncio
async def test_the_adapter_answers_claude_codes_own_request_and_registers_no_hook(
    tmp_path: Path,
) -> None:
    adapter, _, first, second = await _elicit(tmp_path, action("decline"))
    # Claude Code 2.1.332 ignores a callback hook's answer; one would only ask twice.
    [initialize] = initialize_requests(tmp_path)
    assert "Elicitation" not in (initialize.get("hooks") or {})
    [answered] = elicitation_answers(tmp_path)
    assert answered["subtype"] == "success" and answered["response"] == {"action": "decline"}
    _ended_well(first, second, adapter)


@pytest.mark.asyncio
async def test_an_accepted_form_reaches_the_server_with_its_content(tmp_path: Path) -> None:
    content = {"environment": "staging", "notify": False, "replicas": 3, "regions": ["eu"]}
    adapter, client, first, second = await _elicit(tmp_path, accept(content))
    [form] = forms_sent(adapter)
    assert form["params"] == {
        "mode": "form",
        "sessionId": form["params"]["sessionId"],
        "message": DEPLOY_MESSAGE,
        "requestedSchema": DEPLOY_SCHEMA,
    }
    [answered] = elicitation_answers(tmp_path)
    assert answered["subtype"] == "success"
    assert answered["response"] == {"action": "accept", "content": content}
    said = f"The deploy server heard: accept {json.dumps(content, sort_keys=True)}."
    assert said in adapter.agent_texts()
    assert client.permission_requests == []
    _ended_well(first, second, adapter)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("reply", "outcome"),
    [("decline", "decline"), ("cancel", "cancel"), ("something-else", "cancel")],
)
async def test_decline_and_cancel_reach_the_server_as_such(
    tmp_path: Path, reply: str, outcome: str
) -> None:
    adapter, _, first, second = await _elicit(tmp_path, action(reply))
    assert len(forms_sent(adapter)) == 1
    [answered] = elicitation_answers(tmp_path)
    assert answered["response"] == {"action": outcome}
    assert f"The deploy server heard: {outcome}." in adapter.agent_texts()
    _ended_well(first, second, adapter)


@pytest.mark.asyncio
async def test_without_forms_the_server_is_declined_and_no_form_is_sent(tmp_path: Path) -> None:
    adapter, _, first, second = await _elicit(tmp_path, never, capabilities=None)
    assert forms_sent(adapter) == []
    [answered] = elicitation_answers(tmp_path)
    assert answered["response"] == {"action": "decline"}
    assert "The deploy server heard: decline." in adapter.agent_texts()
    _ended_well(first, second, adapter)


@pytest.mark.asyncio
async def test_misfit_values_are_dropped(tmp_path: Path) -> None:
    content = {"environment": "staging", "replicas": 9, "notify": "yes", "extra": 1}
    adapter, _, first, second = await _elicit(tmp_path, accept(content))
    [answered] = elicitation_answers(tmp_path)
    # Over the maximum, not a boolean, not a field: only what fits reaches the server.
    kept = {"environment": "staging"}
    assert answered["response"] == {"action": "accept", "content": kept}
    _ended_well(first, second, adapter)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "content",
    [{"environment": "moon"}, {"notify": True}, ["staging"], None],
    ids=["not-an-option", "required-missing", "a-list", "none"],
)
async def test_an_answer_lacking_a_required_value_is_a_cancel(tmp_path: Path, content: Any) -> None:
    adapter, _, first, second = await _elicit(tmp_path, accept(content))
    [answered] = elicitation_answers(tmp_path)
    assert answered["response"] == {"action": "cancel"}
    assert "The deploy server heard: cancel." in adapter.agent_texts()
    _ended_well(first, second, adapter)


@pytest.mark.asyncio
async def test_a_cancelled_turn_withdraws_the_form_and_leaves_no_one_waiting(
    tmp_path: Path,
) -> None:
    client = FormClient(never)
    async with agent_in_process(
        tmp_path, "mcp_elicit", client=client, capabilities=FORMS
    ) as adapter:
        session = await adapter.new_session()
        pending = asyncio.create_task(adapter.prompt(session, "release it"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        await adapter.conn.cancel(session_id=session)
        first = await pending
        second = await adapter.prompt(session, "thanks")
    [form] = forms_sent(adapter)
    assert withdrawn(adapter) == [form["id"]]
    assert isinstance(first, PromptResponse) and first.stop_reason == "cancelled"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert list(adapter.answers().values()) == [1, 1]
    # Claude was never left waiting: its request was answered `cancel`, or Claude withdrew it on
    # the interrupt (whichever came first); the server heard no acceptance.
    answers = [a["response"] for a in elicitation_answers(tmp_path)]
    gave_up = [e for e in claude_log(tmp_path) if e["kind"] == "withdrawn"]
    assert answers == [{"action": "cancel"}] or (answers == [] and len(gave_up) == 1)
    # What Claude says of it before the interrupt takes is its own (it may say it heard the
    # cancel); an acceptance it never heard.
    assert not [t for t in adapter.agent_texts() if "heard: accept" in t]
