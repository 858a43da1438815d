"""The pure rules behind Claude's questions and the client's cancels: which `$/cancel_request` names
a running prompt, which questions can be asked, and how a form's answer folds into AskUserQuestion's
`answers`."""

from __future__ import annotations

from adapter.controls.question_form import fold_answer, valid_questions
from adapter.wire.cancel_requests import OpenPrompts

_PROMPT = {"jsonrpc": "2.0", "id": 5, "method": "session/prompt", "params": {"sessionId": "S"}}


def _cancel(request_id: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": request_id}}


def test_a_cancel_request_for_an_open_prompt_is_its_sessions_cancel() -> None:
    prompts = OpenPrompts()
    prompts.note_request(_PROMPT)
    assert prompts.translate(_cancel(5)) == {
        "jsonrpc": "2.0",
        "method": "session/cancel",
        "params": {"sessionId": "S"},
    }
    # Another id, the same id as text or as a boolean: not that prompt.
    assert [prompts.translate(_cancel(v)) for v in (6, "5", True, None)] == [None] * 4
    prompts.note_answer(5)
    assert prompts.translate(_cancel(5)) is None  # answered: nothing to cancel


def test_a_repeated_prompt_id_stays_open_until_each_is_answered() -> None:
    prompts = OpenPrompts()
    prompts.note_request(_PROMPT)
    prompts.note_request(_PROMPT)
    prompts.note_answer(5)
    assert prompts.translate(_cancel(5)) is not None
    prompts.note_answer(5)
    assert prompts.translate(_cancel(5)) is None


def test_requests_that_are_not_prompts_are_not_cancelled_here() -> None:
    prompts = OpenPrompts()
    prompts.note_request({"id": 1, "method": "session/new", "params": {"sessionId": "S"}})
    prompts.note_request({"id": 2, "method": "session/prompt", "params": ["S"]})
    assert prompts.translate(_cancel(1)) is None and prompts.translate(_cancel(2)) is None


def test_only_questions_with_text_and_options_are_asked() -> None:
    good = {"question": "Q?", "options": [{"label": "A"}, {"nolabel": 1}, "B"]}
    questions = valid_questions(
        {"questions": [good, {"question": "no options", "options": []}, {"options": [{}]}, 7]}
    )
    assert questions == [{"question": "Q?", "options": [{"label": "A"}]}]
    assert valid_questions({"questions": "Q?"}) == [] and valid_questions(None) == []


def test_several_picks_are_joined_and_quoted_where_ambiguous() -> None:
    multi = {
        "question": "Which?",
        "multiSelect": True,
        "options": [{"label": "a, b"}, {"label": 'say "hi"'}, {"label": "c"}],
    }
    answers, notes = fold_answer([multi], {"question_0": ["a, b", 'say "hi"', "c", "zzz", 3]})
    assert answers == {"Which?": '"a, b", "say \\"hi\\"", c'} and notes == {}
    # A single string for a multi-select question counts as one pick.
    assert fold_answer([multi], {"question_0": "c"})[0] == {"Which?": "c"}


def test_an_empty_custom_text_is_no_answer() -> None:
    single = {"question": "Q?", "options": [{"label": "A"}]}
    assert fold_answer([single], {"question_0_custom": "   "}) == ({}, {})
    assert fold_answer([single], {"question_0": "", "question_0_custom": " x "}) == (
        {"Q?": "x"},
        {},
    )
