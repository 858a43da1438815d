"""Which of Claude's questions (AskUserQuestion) went unanswered, as Claude Code is told it.

Theory of operation, as the reference adapter has it
(docs/reference-adapter.md#unanswered-questions): a Claude Code whose `system/init` lists the
capability `ask_user_question_unanswered_v1` takes `annotations[question].unanswered` in the
answer to an AskUserQuestion call: `"dismissed"` for every question when the user declined the
form, `"skipped"` for each question an accepted form left without an answer. The model does not
read the field; the tool's result carries it for clients and transcripts. A Claude Code without
the capability may refuse the whole answer over an annotation it does not know, so it gets
none. An answered question keeps what it had (a note beside its pick); the capability, once
listed, holds for the process (the reference never unlatches it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["ASK_TOOL", "UNANSWERED_CAPABILITY", "reports_unanswered", "with_unanswered"]

ASK_TOOL = "AskUserQuestion"  # Claude Code's tool that asks the user its questions
UNANSWERED_CAPABILITY = "ask_user_question_unanswered_v1"


def reports_unanswered(capabilities: object) -> bool:
    """Whether a `system/init`'s `capabilities` (any shape) list the unanswered annotations."""
    return isinstance(capabilities, list | tuple) and UNANSWERED_CAPABILITY in capabilities


def with_unanswered(
    questions: Sequence[str],
    answers: Mapping[str, str],
    annotations: Mapping[str, Mapping[str, str]],
    *,
    declined: bool,
    report: bool,
) -> dict[str, dict[str, str]]:
    """The annotations of an answer to `questions` (their texts): `annotations` as folded from
    the form, plus each unanswered question's `unanswered` when `report` (the capability is
    listed); `declined`: the user declined the whole form."""
    shaped = {text: dict(note) for text, note in annotations.items()}
    if not report:
        return shaped
    for text in questions:
        if declined:
            shaped[text] = {"unanswered": "dismissed"}
        elif text not in answers:
            shaped[text] = {"unanswered": "skipped"}
    return shaped
