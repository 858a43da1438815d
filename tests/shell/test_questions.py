"""Claude asks, the editor answers: AskUserQuestion through ACP elicitation.

A client declaring `elicitation.form` gets Claude's questions as one `elicitation/create` form
and its answer reaches Claude as AskUserQuestion's `answers` (the scripted Claude says what it
heard); a client without it never gets the tool (`--disallowedTools AskUserQuestion`), so Claude
asks in its reply. Bad answers, withdrawn forms and cancels racing them all end with Claude
answered and every prompt answered once.

Played in process (`agent_in_process`: the agent, the real SDK and the scripted Claude in this
process)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.asking_scenarios import ONE_QUESTION
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
from tests.support.scripted import SCENARIOS
from tests.support.scripted_log import claude_log
from tests.support.shell_harness import agent_in_process

DB = "Which database should the app use?"
FEATURES = "Which features come first?"


def argv_of(tmp_path: Path) -> list[str]:
    [argv] = [e["argv"] for e in claude_log(tmp_path) if e["kind"] == "argv"]
    return list(argv)


def _custom(question_id: str) -> dict[str, Any]:
    """An AIR client's marker on the "Other" field of `question_id`: in its namespace, and the
    same value under the root key released AIR builds read."""
    marker = {"questionId": question_id, "isCustomAnswer": True}
    return {
        "_askUserQuestionCustomAnswer": marker,
        "jetbrains": {"air": {"version": 1, "customAnswer": marker}},
    }


async def _ask(
    tmp_path: Path, answer: Answer, scenario: str = "ask_question", *, air: bool = True
) -> tuple[Adapter, FormClient, PromptResponse | acp.RequestError, Any]:
    """`air`: the client is a JetBrains AIR client (the harness's sessionFailure opt-in), else a
    plain one."""
    client = FormClient(answer)
    async with agent_in_process(
        tmp_path, scenario, client=client, capabilities=FORMS, capable=air, scenarios=SCENARIOS
    ) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "build me an app")
        second = await adapter.prompt(session, "thanks")
    return adapter, client, first, second


# --- a client with forms --------------------------------------------------------------------


@pytest.mark.asyncio
async def test_one_question_becomes_a_form_and_its_answer_reaches_claude(tmp_path: Path) -> None:
    content = {"question_0": "Postgres", "question_0_custom": "version 16"}
    adapter, client, first, second = await _ask(tmp_path, accept(content))
    [form] = forms_sent(adapter)
    tool_call_id = form["params"]["toolCallId"]
    assert form["params"] == {
        "mode": "form",
        "sessionId": form["params"]["sessionId"],
        "toolCallId": tool_call_id,
        "message": DB,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "question_0": {
                    "type": "string",
                    "title": "Database",
                    "oneOf": [
                        {
                            "const": "Postgres",
                            "title": "Postgres",
                            "description": "Relational, the team knows it",
                        },
                        {
                            "const": "SQLite",
                            "title": "SQLite",
                            "description": "A file, nothing to run",
                        },
                    ],
                },
                "question_0_custom": {
                    "type": "string",
                    "title": "Other",
                    "description": "Type your own answer, or add a note to the option you "
                    "chose above (optional).",
                    # This client is AIR: the field is marked as the question's custom answer.
                    "_meta": _custom("question_0"),
                },
            },
        },
    }
    # The form belongs to the AskUserQuestion tool call the client was shown.
    cards = [u for u in adapter.updates() if u.get("toolCallId") == tool_call_id]
    assert cards[0]["sessionUpdate"] == "tool_call"
    # It opens as the call starts streaming (with no `rawInput`: this client is AIR), then
    # carries the questions.
    assert [c["rawInput"] for c in cards if "rawInput" in c] == [ONE_QUESTION]
    # Titled "Asking for your input" from its opening on, as the reference titles it for AIR,
    # which shows the question as the call's input (docs/reference-adapter.md#ask-user-question).
    titles = [c["title"] for c in cards if "title" in c]
    assert len(titles) >= 2 and set(titles) == {"Asking for your input"}
    refined = next(c for c in cards if c.get("rawInput"))
    assert refined["kind"] == "other"
    # What Claude heard: the pick as the answer, the typed text as its note.
    assert f'You answered: "{DB}"="Postgres". Notes: {{"{DB}": {{"notes": "version 16"}}}}.' in (
        adapter.agent_texts()
    )
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert client.permission_requests == []  # never a Yes/No card
    assert "--disallowedTools" not in " ".join(argv_of(tmp_path))


@pytest.mark.asyncio
async def test_a_client_other_than_air_sees_one_question_as_its_cards_title(
    tmp_path: Path,
) -> None:
    adapter, _, first, _ = await _ask(tmp_path, accept({"question_0": "Postgres"}), air=False)
    [form] = forms_sent(adapter)
    cards = [u for u in adapter.updates() if u.get("toolCallId") == form["params"]["toolCallId"]]
    # The question itself, once Claude has written it, as the reference titles it for every
    # client but AIR.
    titles = [c["title"] for c in cards if "title" in c]
    assert titles[0] == "Asking for your input" and titles[-1] == DB
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_several_questions_and_several_picks(tmp_path: Path) -> None:
    content = {
        "question_0_custom": "DuckDB",  # nothing picked: the typed text is the answer
        "question_1": ["Sign-in", "Search"],
        "question_1_custom": "Billing, later",
    }
    adapter, _, first, _ = await _ask(tmp_path, accept(content), "ask_questions")
    [form] = forms_sent(adapter)
    params = form["params"]
    assert params["message"] == "Please answer the following questions."
    properties = params["requestedSchema"]["properties"]
    assert list(properties) == [
        "question_0",
        "question_0_custom",
        "question_1",
        "question_1_custom",
    ]
    assert properties["question_0"]["description"] == DB
    assert properties["question_1"] == {
        "type": "array",
        "title": "Features",
        "description": FEATURES,
        "items": {
            "anyOf": [
                {"const": "Sign-in", "title": "Sign-in"},
                {
                    "const": "Search",
                    "title": "Search",
                    "_meta": {
                        "_claude/askUserQuestionOption": {"preview": "A search box on every page"}
                    },
                },
                {"const": "Export", "title": "Export"},
            ]
        },
    }
    assert properties["question_1_custom"]["description"] == (
        "Type your own answer to add to your selection above (optional)."
    )
    assert [properties[f"question_{i}_custom"]["_meta"] for i in (0, 1)] == [
        _custom("question_0"),
        _custom("question_1"),
    ]
    expected = f'"{DB}"="DuckDB", "{FEATURES}"="Sign-in, Search, "Billing, later""'
    assert f"You answered: {expected}." in adapter.agent_texts()
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_a_plain_clients_form_has_no_air_marker(tmp_path: Path) -> None:
    content = {"question_0_custom": "DuckDB", "question_1": ["Search"]}
    adapter, _, first, _ = await _ask(tmp_path, accept(content), "ask_questions", air=False)
    [form] = forms_sent(adapter)
    properties = form["params"]["requestedSchema"]["properties"]
    assert [properties[f"question_{i}_custom"]["title"] for i in (0, 1)] == ["Other", "Other"]
    assert all("_meta" not in properties[f"question_{i}_custom"] for i in (0, 1))
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_decline_tells_claude_the_user_skipped(tmp_path: Path) -> None:
    adapter, _, first, second = await _ask(tmp_path, action("decline"))
    assert "You skipped my questions." in adapter.agent_texts()
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["cancel", "something-else"])
async def test_cancel_or_an_unknown_action_aborts_the_tool(tmp_path: Path, name: str) -> None:
    adapter, _, first, second = await _ask(tmp_path, action(name))
    assert "The question was withdrawn (Tool use aborted)." in adapter.agent_texts()
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"


# --- bad answers ------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "content",
    [
        {"question_0": "MySQL"},  # not one of the options
        {"question_0": 7, "question_0_custom": 8},  # not text
        {"question_0": ["Postgres"]},  # a list for a single choice
        "Postgres",  # not an object at all
        None,
    ],
    ids=["unknown-option", "numbers", "list", "string", "none"],
)
async def test_an_answer_that_does_not_fit_the_form_reaches_claude_as_no_answer(
    tmp_path: Path, content: Any
) -> None:
    adapter, _, first, second = await _ask(tmp_path, accept(content))
    assert "You skipped my questions." in adapter.agent_texts()
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_a_client_error_denies_the_question(tmp_path: Path) -> None:
    async def fail(form: dict[str, Any]) -> Any:
        raise acp.RequestError.internal_error({"reason": "no UI"})

    adapter, _, first, _ = await _ask(tmp_path, fail)
    assert (
        "AskUserQuestion was denied: Could not present the question to the user."
        in adapter.agent_texts()
    )
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"


# --- withdrawn forms -----------------------------------------------------------------------------


async def _cancel_while_asked(
    tmp_path: Path,
    cancel: Callable[[Adapter, str], Awaitable[None]],
    answer: Answer = never,
) -> tuple[Adapter, Any, Any]:
    client = FormClient(answer)
    async with agent_in_process(
        tmp_path, "ask_question", client=client, capabilities=FORMS
    ) as adapter:
        session = await adapter.new_session()
        pending = asyncio.create_task(adapter.prompt(session, "build me an app"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        await cancel(adapter, session)
        first = await pending
        second = await adapter.prompt(session, "thanks")
    return adapter, first, second


async def _session_cancel(adapter: Adapter, session: str) -> None:
    await adapter.conn.cancel(session_id=session)


async def _cancel_request(adapter: Adapter, session: str) -> None:
    [prompt_id] = [
        f.message["id"]
        for f in adapter.frames
        if f.direction == "outgoing" and f.message.get("method") == "session/prompt"
    ]
    await adapter.conn._conn.send_notification("$/cancel_request", {"requestId": prompt_id})


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "cancel", [_session_cancel, _cancel_request], ids=["session-cancel", "cancel-request"]
)
async def test_a_cancelled_turn_withdraws_an_unanswered_form(
    tmp_path: Path, cancel: Callable[[Adapter, str], Awaitable[None]]
) -> None:
    adapter, first, second = await _cancel_while_asked(tmp_path, cancel)
    [form] = forms_sent(adapter)
    assert withdrawn(adapter) == [form["id"]]
    assert isinstance(first, PromptResponse) and first.stop_reason == "cancelled"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert list(adapter.answers().values()) == [1, 1]
    # Claude withdrew its own question and heard no answer.
    assert not [t for t in adapter.agent_texts() if t.startswith("You answered")]


@pytest.mark.asyncio
async def test_a_cancel_racing_the_answer(tmp_path: Path) -> None:
    holder: list[Adapter] = []

    async def cancel_then_accept(form: dict[str, Any]) -> Any:
        # The user answers just as the turn is cancelled: the answer arrives after the cancel.
        await holder[0].conn.cancel(session_id=form["sessionId"])
        await asyncio.sleep(0.2)
        return {"action": "accept", "content": {"question_0": "Postgres"}}

    client = FormClient(cancel_then_accept)
    async with agent_in_process(
        tmp_path, "ask_question", client=client, capabilities=FORMS
    ) as adapter:
        holder.append(adapter)
        session = await adapter.new_session()
        first = await adapter.prompt(session, "build me an app")
        second = await adapter.prompt(session, "thanks")
    assert isinstance(first, PromptResponse) and first.stop_reason == "cancelled"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert list(adapter.answers().values()) == [1, 1]
    assert not [t for t in adapter.agent_texts() if t.startswith("You answered")]


# --- a client without forms -----------------------------------------------------------------


@pytest.mark.asyncio
async def test_without_forms_claude_has_no_question_tool_and_asks_in_its_reply(
    tmp_path: Path,
) -> None:
    client = FormClient(never)
    async with agent_in_process(tmp_path, "ask_question", client=client) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "build me an app")
    argv = argv_of(tmp_path)
    assert argv[argv.index("--disallowedTools") + 1] == "AskUserQuestion"
    assert adapter.agent_texts() == [
        "Before I start: which database should the app use, Postgres or SQLite?"
    ]
    assert forms_sent(adapter) == [] and client.permission_requests == []
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"


# --- a Claude Code that takes the unanswered annotations ----------------------------------------


@pytest.mark.asyncio
async def test_a_question_left_blank_is_marked_skipped_where_claude_code_takes_it(
    tmp_path: Path,
) -> None:
    # Its init lists ask_user_question_unanswered_v1: the blank question says how it ended.
    content = {"question_0": "Postgres"}
    adapter, _, first, _ = await _ask(tmp_path, accept(content), "ask_questions_unanswered")
    notes = f'{{"{FEATURES}": {{"unanswered": "skipped"}}}}'
    assert f'You answered: "{DB}"="Postgres". Notes: {notes}.' in adapter.agent_texts()
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_a_declined_form_marks_every_question_dismissed_where_claude_code_takes_it(
    tmp_path: Path,
) -> None:
    adapter, _, first, _ = await _ask(tmp_path, action("decline"), "ask_questions_unanswered")
    dismissed = '{"unanswered": "dismissed"}'
    notes = f'{{"{DB}": {dismissed}, "{FEATURES}": {dismissed}}}'
    assert f"You skipped my questions. Notes: {notes}." in adapter.agent_texts()
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_without_the_capability_a_blank_question_is_not_annotated(tmp_path: Path) -> None:
    # The same answer to a Claude Code whose init does not list it: no annotation it may refuse.
    adapter, _, _, _ = await _ask(tmp_path, accept({"question_0": "Postgres"}), "ask_questions")
    assert f'You answered: "{DB}"="Postgres".' in adapter.agent_texts()
    declined, _, _, _ = await _ask(tmp_path / "declined", action("decline"), "ask_questions")
    assert "You skipped my questions." in declined.agent_texts()
