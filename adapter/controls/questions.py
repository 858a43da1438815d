"""Claude's questions to the user (the AskUserQuestion tool), asked through ACP elicitation.

Theory of operation, as the reference adapter does it (docs/reference-adapter.md#ask-user-question):
- a client that declares `elicitation.form` gets each AskUserQuestion call as one
  `elicitation/create` form (`adapter.controls.question_form`); the answer goes back to Claude
  Code as the tool's `updatedInput` with `answers` (and `annotations` for notes);
- a client without it never sees the tool: Claude Code starts with `--disallowedTools
  AskUserQuestion` (`question_form.disallowed_tools`), so Claude asks in plain text instead; a
  call that gets here anyway is refused with a reason, never offered as a Yes/No card that
  answers nothing;
- the user's answers to Claude:

  | the client's answer                | to Claude                                       |
  |------------------------------------|-------------------------------------------------|
  | `accept` with content              | allow, `answers` folded from the fields          |
  | `decline`                          | allow, `answers: {}` (the user skipped; go on)   |
  | `cancel`, an unknown action        | an error, "Tool use aborted" (the call is off)   |
  | a JSON-RPC error, no client        | deny, "Could not present the question ..."       |
  | no valid question in the input     | deny, "AskUserQuestion called with no valid ..." |

- where Claude Code's init lists `ask_user_question_unanswered_v1`, the answer also marks each
  question left without an answer: `annotations[question].unanswered` is `"dismissed"` for
  every question of a declined form, `"skipped"` for one an accepted form left blank
  (`fsm.with_unanswered`, docs/reference-adapter.md#unanswered-questions);
- a form still open when its turn is cancelled (`withdraw`), or when Claude Code withdraws its
  question (the SDK cancels the callback), is withdrawn from the client with `$/cancel_request`
  and Claude is answered at once ("Tool use aborted"), whatever the client does with it later.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from claude_agent_sdk.types import (
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

from adapter.controls.form_presenter import FormPresenter
from adapter.controls.question_form import fold_answer, form_params, valid_questions
from adapter.wire.client_link import ClientLink
from fsm import with_unanswered

__all__ = ["QuestionAsker", "ToolUseAborted"]

log = logging.getLogger(__name__)

_NO_QUESTIONS = "AskUserQuestion called with no valid questions."
_NOT_PRESENTED = "Could not present the question to the user."
_NO_FORMS = (
    "This editor cannot show questions. Ask the user in your reply instead, then wait for "
    "their next message."
)


class ToolUseAborted(Exception):
    """Raised from the permission callback: the SDK answers Claude Code with an error control
    response carrying this text, as the reference adapter's abort does
    (docs/reference-adapter.md#ask-user-question)."""

    def __init__(self) -> None:
        super().__init__("Tool use aborted")


class QuestionAsker:
    def __init__(
        self,
        *,
        session_id: str,
        link: ClientLink,
        ask_by_form: bool,
        other_meta: Callable[[str], dict[str, Any] | None] = lambda _field: None,
    ) -> None:
        self._session_id = session_id
        self.ask_by_form = ask_by_form
        # The "Other" fields' `_meta` for this client (JetBrains AIR's custom answer marker).
        self._other_meta = other_meta
        self._forms = FormPresenter(link)
        self.forms = self._forms  # open ones: `SessionControls.asking_user`
        # Claude Code's init listed `ask_user_question_unanswered_v1`: the answer marks each
        # question left unanswered (`fsm.with_unanswered`).
        self.report_unanswered = False

    def withdraw(self) -> None:
        """Stop waiting for every open form (the turn was cancelled)."""
        self._forms.withdraw()

    async def ask(
        self, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        if not self.ask_by_form:
            return PermissionResultDeny(message=_NO_FORMS)
        questions = valid_questions(tool_input)
        if not questions:
            return PermissionResultDeny(message=_NO_QUESTIONS)
        params = form_params(self._session_id, context.tool_use_id, questions, self._other_meta)
        answer = await self._forms.present(params)
        action = answer.get("action") if isinstance(answer, dict) else None
        if answer is None:
            return PermissionResultDeny(message=_NOT_PRESENTED)
        if action == "accept":
            answers, annotations = fold_answer(questions, answer.get("content"))
        elif action == "decline":
            answers, annotations = {}, {}
        else:
            raise ToolUseAborted()
        annotations = with_unanswered(
            [q["question"] for q in questions],
            answers,
            annotations,
            declined=action == "decline",
            report=self.report_unanswered,
        )
        updated: dict[str, Any] = {**tool_input, "answers": answers}
        if annotations:
            updated["annotations"] = annotations
        return PermissionResultAllow(updated_input=updated)
