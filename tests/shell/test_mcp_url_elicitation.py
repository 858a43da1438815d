"""An MCP server asks the user to go to a page (URL-mode MCP elicitation).

In process (`agent_in_process`): the agent, the real SDK and the scripted Claude
(`mcp_elicit_url*` scenarios, `adapter/scripted_claude/mcp_scenarios.py`), which sends the
`elicitation` control request the bundled CLI sends for `mode: "url"` (with the server's `url`
and `elicitation_id`) and, when the server confirms, Claude Code's `system`
`elicitation_complete` frame. A client declaring `elicitation.url` gets
`elicitation/create {mode: "url", ...}` and then `elicitation/complete`; its answer is what the
server hears. A client with forms only hears nothing of it (the server gets `cancel`), one
without elicitation neither (`decline`). The URL reaches the client's form and no title or log
line (the agent's log records).
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.mcp_scenarios import SIGN_IN_ID, SIGN_IN_MESSAGE, SIGN_IN_URL
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

URLS: dict[str, Any] = {"elicitation": {"url": {}}}
BOTH: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}


async def _refuse(form: dict[str, Any]) -> Any:
    raise acp.RequestError.internal_error({"reason": "the editor could not open it"})


async def _sign_in(
    tmp_path: Path,
    answer: Answer,
    capabilities: Any = URLS,
    scenario: str = "mcp_elicit_url",
) -> tuple[Adapter, str, Any, Any]:
    client = FormClient(answer)
    async with agent_in_process(
        tmp_path, scenario, client=client, capabilities=capabilities
    ) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "what is on my tickets?")
        second = await adapter.prompt(session, "thanks")
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert list(adapter.answers().values()) == [1, 1]
    return adapter, session, first, second


def _completions(adapter: Adapter) -> list[dict[str, Any]]:
    return [m for m in adapter.incoming() if m.get("method") == "elicitation/complete"]


def _url_kept_private(adapter: Adapter) -> None:
    titles = [u.get("title") for u in adapter.updates("session_info_update")]
    assert not [t for t in titles if isinstance(t, str) and "tracker.example" in t]
    logged = [line for line in adapter.stderr().splitlines() if "tracker.example" in line]
    # Only debug tracing may carry it (the SDK's own frame dumps); nothing at INFO or above.
    assert [line for line in logged if " DEBUG " not in line] == []


@pytest.mark.asyncio
@pytest.mark.parametrize("capabilities", [URLS, BOTH], ids=["url-only", "form-and-url"])
async def test_a_url_client_is_sent_the_page_and_then_told_it_is_done(
    tmp_path: Path, capabilities: Any
) -> None:
    adapter, session, _, _ = await _sign_in(tmp_path, action("accept"), capabilities=capabilities)
    [form] = forms_sent(adapter)
    assert form["params"] == {
        "mode": "url",
        "sessionId": session,
        "message": SIGN_IN_MESSAGE,
        "url": SIGN_IN_URL,
        "elicitationId": SIGN_IN_ID,
    }
    [answered] = elicitation_answers(tmp_path)
    assert answered["subtype"] == "success"
    assert answered["response"] == {"action": "accept"}  # no content for a page
    # The server's confirmation, once, after the client's answer, before the prompt's.
    [done] = _completions(adapter)
    assert done == {
        "jsonrpc": "2.0",
        "method": "elicitation/complete",
        "params": {"elicitationId": SIGN_IN_ID},
    }
    frames = adapter.incoming()
    reply = next(i for i, m in enumerate(frames) if m.get("id") == form["id"] and "result" in m)
    answer = next(i for i, m in enumerate(frames) if "result" in m and "stopReason" in m["result"])
    assert reply < frames.index(done) < answer
    assert "The tracker server heard: accept." in adapter.agent_texts()
    _url_kept_private(adapter)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        (action("decline"), "decline"),
        (action("cancel"), "cancel"),
        (action("something-else"), "cancel"),
        (accept({"user": "me"}), "accept"),
        (_refuse, "cancel"),
    ],
    ids=["decline", "cancel", "unknown-action", "accept-with-content", "json-rpc-error"],
)
async def test_the_clients_answer_maps_back_to_the_server(
    tmp_path: Path, answer: Answer, outcome: str
) -> None:
    adapter, _, _, _ = await _sign_in(tmp_path, answer)
    assert len(forms_sent(adapter)) == 1
    [answered] = elicitation_answers(tmp_path)
    # Whatever content a client puts in a URL answer, the server gets none.
    assert answered["response"] == {"action": outcome}
    assert f"The tracker server heard: {outcome}." in adapter.agent_texts()
    # The scripted server confirms an accepted sign-in only.
    assert len(_completions(adapter)) == (1 if outcome == "accept" else 0)


@pytest.mark.asyncio
async def test_a_request_without_an_id_gets_a_fresh_one(tmp_path: Path) -> None:
    adapter, _, _, _ = await _sign_in(tmp_path, action("accept"), scenario="mcp_elicit_url_no_id")
    [form] = forms_sent(adapter)
    ident = form["params"]["elicitationId"]
    assert uuid.UUID(ident).version == 4
    assert form["params"]["url"] == SIGN_IN_URL
    [answered] = elicitation_answers(tmp_path)
    assert answered["response"] == {"action": "accept"}
    assert _completions(adapter) == []  # the server has no id to confirm


@pytest.mark.asyncio
async def test_a_url_request_without_a_url_is_cancelled_unasked(tmp_path: Path) -> None:
    adapter, _, _, _ = await _sign_in(tmp_path, action("accept"), scenario="mcp_elicit_url_no_url")
    assert forms_sent(adapter) == []
    [answered] = elicitation_answers(tmp_path)
    assert answered["response"] == {"action": "cancel"}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("capabilities", "outcome"),
    [(FORMS, "cancel"), (None, "decline")],
    ids=["form-only", "no-elicitation"],
)
async def test_a_client_without_url_mode_is_never_asked_nor_told(
    tmp_path: Path, capabilities: Any, outcome: str
) -> None:
    # The server confirms whatever it heard: the completion still reaches no such client.
    adapter, _, _, _ = await _sign_in(
        tmp_path, never, capabilities=capabilities, scenario="mcp_elicit_url_confirmed"
    )
    assert forms_sent(adapter) == []
    [answered] = elicitation_answers(tmp_path)
    assert answered["response"] == {"action": outcome}
    assert f"The tracker server heard: {outcome}." in adapter.agent_texts()
    assert _completions(adapter) == []
    _url_kept_private(adapter)


@pytest.mark.asyncio
async def test_a_url_client_is_told_of_a_completion_after_it_declined(tmp_path: Path) -> None:
    adapter, _, _, _ = await _sign_in(
        tmp_path, action("decline"), scenario="mcp_elicit_url_confirmed"
    )
    [answered] = elicitation_answers(tmp_path)
    assert answered["response"] == {"action": "decline"}
    assert [m["params"] for m in _completions(adapter)] == [{"elicitationId": SIGN_IN_ID}]


@pytest.mark.asyncio
async def test_a_url_only_client_is_not_shown_a_form(tmp_path: Path) -> None:
    client = FormClient(never)
    async with agent_in_process(
        tmp_path, "mcp_elicit", client=client, capabilities=URLS
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "release it")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert forms_sent(adapter) == []
    [answered] = elicitation_answers(tmp_path)
    assert answered["response"] == {"action": "cancel"}  # a mode it did not declare


@pytest.mark.asyncio
async def test_a_cancel_mid_question_withdraws_the_page_and_leaves_no_one_waiting(
    tmp_path: Path,
) -> None:
    client = FormClient(never)
    async with agent_in_process(
        tmp_path, "mcp_elicit_url", client=client, capabilities=URLS
    ) as adapter:
        session = await adapter.new_session()
        pending = asyncio.create_task(adapter.prompt(session, "what is on my tickets?"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        await adapter.conn.cancel(session_id=session)
        first = await pending
        second = await adapter.prompt(session, "thanks")
    [form] = forms_sent(adapter)
    assert form["params"]["mode"] == "url"
    assert withdrawn(adapter) == [form["id"]]
    assert isinstance(first, PromptResponse) and first.stop_reason == "cancelled"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert list(adapter.answers().values()) == [1, 1]
    # Claude was never left waiting: its request heard `cancel`, or Claude withdrew it on the
    # interrupt, whichever came first; the server never heard an acceptance, nor confirmed.
    answers = [a["response"] for a in elicitation_answers(tmp_path)]
    gave_up = [e for e in claude_log(tmp_path) if e["kind"] == "withdrawn"]
    assert answers == [{"action": "cancel"}] or (answers == [] and len(gave_up) == 1)
    assert _completions(adapter) == []
