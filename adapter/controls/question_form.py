"""Claude Code's AskUserQuestion as an ACP form, and the form's answer as Claude Code expects it.

Pure functions, shaped as the reference adapter shapes them
(docs/reference-adapter.md#ask-user-question):
- the form (`form_params`): one field `question_<i>` per question, with its options (a string
  with `oneOf`, or an array with `items.anyOf` where Claude allows several), and after each an
  optional free-text field `question_<i>_custom` ("Other"); the field's title is the question's
  header; with one question the question is the form's message, with several each field's
  description; nothing is required;
- the answer (`fold_answer`): `answers` keyed by the question text, as AskUserQuestion's
  `updatedInput` takes them: the option picked, or the text typed in "Other" when nothing was
  picked (the text typed next to a pick becomes `annotations[q].notes`); several picks and the
  typed text are joined with ", " (an item containing ", " or a quote is JSON-quoted). A value
  that does not fit the form (not one of the question's options, not text) is dropped, so a
  question left empty or answered off the form gets no answer key at all.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from fsm import ASK_TOOL

__all__ = ["disallowed_tools", "fold_answer", "form_params", "valid_questions"]

log = logging.getLogger(__name__)


def disallowed_tools(ask_by_form: bool) -> tuple[str, ...]:
    """The tools Claude Code is started without: AskUserQuestion unless the client has forms.
    Here rather than in `questions`, so that a session's spawn does not import the asking."""
    return () if ask_by_form else (ASK_TOOL,)


_SEVERAL = "Please answer the following questions."
_OTHER_SINGLE = "Type your own answer, or add a note to the option you chose above (optional)."
_OTHER_MULTI = "Type your own answer to add to your selection above (optional)."
_PREVIEW_META = "_claude/askUserQuestionOption"


def valid_questions(tool_input: Any) -> list[dict[str, Any]]:
    """The questions that can be asked: a string `question` and a non-empty `options` list
    (each option a `label`); anything else is left out."""
    questions = tool_input.get("questions") if isinstance(tool_input, dict) else None
    found = []
    for question in questions if isinstance(questions, list) else []:
        if not isinstance(question, dict) or not isinstance(question.get("question"), str):
            continue
        options = question.get("options")
        labels = [o for o in options if _label(o)] if isinstance(options, list) else []
        if labels:
            found.append({**question, "options": labels})
    return found


def _label(option: Any) -> str | None:
    label = option.get("label") if isinstance(option, dict) else None
    return label if isinstance(label, str) and label else None


def _entry(option: dict[str, Any]) -> dict[str, Any]:
    label = option["label"]
    entry: dict[str, Any] = {"const": label, "title": label}
    if isinstance(option.get("description"), str) and option["description"]:
        entry["description"] = option["description"]
    if isinstance(option.get("preview"), str) and option["preview"]:
        entry["_meta"] = {_PREVIEW_META: {"preview": option["preview"]}}
    return entry


def form_params(
    session_id: str,
    tool_call_id: str | None,
    questions: list[dict[str, Any]],
    other_meta: Callable[[str], dict[str, Any] | None] = lambda _field: None,
) -> dict[str, Any]:
    """The params of the `elicitation/create` request that asks `questions`; `other_meta`: the
    `_meta` of the "Other" field that goes with a question's field, by that field's key
    (JetBrains AIR's custom answer marker, `AirClient.custom_answer`)."""
    several = len(questions) > 1
    properties: dict[str, Any] = {}
    for i, question in enumerate(questions):
        header = question.get("header")
        field: dict[str, Any] = {
            "title": header if isinstance(header, str) and header else f"Question {i + 1}"
        }
        if several:
            field["description"] = question["question"]
        entries = [_entry(o) for o in question["options"]]
        multi = question.get("multiSelect") is True
        if multi:
            field.update(type="array", items={"anyOf": entries})
        else:
            field.update(type="string", oneOf=entries)
        properties[f"question_{i}"] = dict(sorted(field.items(), key=_type_first))
        other: dict[str, Any] = {
            "type": "string",
            "title": "Other",
            "description": _OTHER_MULTI if multi else _OTHER_SINGLE,
        }
        meta = other_meta(f"question_{i}")
        if meta is not None:
            other["_meta"] = meta
        properties[f"question_{i}_custom"] = other
    params: dict[str, Any] = {
        "mode": "form",
        "sessionId": session_id,
        "message": questions[0]["question"] if not several else _SEVERAL,
        "requestedSchema": {"type": "object", "properties": properties},
    }
    if tool_call_id:
        params["toolCallId"] = tool_call_id
    return params


def _type_first(item: tuple[str, Any]) -> int:
    return 0 if item[0] == "type" else 1


def fold_answer(
    questions: list[dict[str, Any]], content: Any
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """(answers, annotations) for an accepted form's `content` (see the module doc)."""
    content = content if isinstance(content, dict) else {}
    answers: dict[str, str] = {}
    annotations: dict[str, dict[str, str]] = {}
    for i, question in enumerate(questions):
        text = question["question"]
        labels = [o["label"] for o in question["options"]]
        custom = content.get(f"question_{i}_custom")
        custom = custom.strip() if isinstance(custom, str) else ""
        picked = content.get(f"question_{i}")
        if question.get("multiSelect") is True:
            picks = picked if isinstance(picked, list) else [picked] if picked is not None else []
            fitting = [p for p in picks if isinstance(p, str) and p in labels]
            _note_misfits(len(picks) - len(fitting), i)
            items = [_quoted(p) for p in fitting] + ([_quoted(custom)] if custom else [])
            if items:
                answers[text] = ", ".join(items)
            continue
        fits = isinstance(picked, str) and picked in labels
        _note_misfits(0 if fits or picked in (None, "") else 1, i)
        if fits:
            answers[text] = picked
            if custom:
                annotations[text] = {"notes": custom}
        elif custom:
            answers[text] = custom
    return answers, annotations


def _quoted(item: str) -> str:
    return json.dumps(item) if ", " in item or '"' in item else item


def _note_misfits(count: int, index: int) -> None:
    if count:
        log.warning("question %d: %d answer value(s) not among its options, dropped", index, count)
