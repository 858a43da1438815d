"""The turn machine's callbacks: the only place the core makes effects for a turn.

Theory of operation: each public method here is named in a row of `turn.TRANSITIONS` (as a
`before` callback) and appends effects to `self.effects` or notes what the turn has seen. They
run after the row's guards chose it and before the state changes, so one that raises leaves the
state as it was. Nothing here decides which row applies; where a callback looks at data (is there
an explanation to show, which kind a result names), that is a title or payload choice, not a
transition.
"""

from __future__ import annotations

from typing import Any

from fsm import classify
from fsm.effects import (
    AnswerSteer,
    ForwardAssistantMessage,
    InterruptClaude,
    LogNotice,
    PublishRecord,
    SendAgentText,
    SendContinuation,
    SendPrompt,
    SettlePrompt,
    StartFreshContext,
    StopReason,
    StopRuntime,
)
from fsm.errors import FsmError
from fsm.events import (
    AssistantMessageReceived,
    BackgroundTaskSettled,
    BackgroundTasksListed,
    BackgroundTaskStarted,
    PromptReceived,
    PromptSent,
    ResultReceived,
    RetryAttempted,
    RuntimeStartFailed,
    SteerReceived,
)
from fsm.incident import IncidentTrigger
from fsm.records import redact
from fsm.turn_failures import (
    BROKEN_REASON,
    TURN_NO_RESULT_TITLE,
    TurnFailures,
)
from fsm.vocabulary import FailureKind, Severity

__all__ = [
    "BROKEN_REASON",
    "TURN_NO_RESULT_TITLE",
    "TurnActions",
]

_MAX_SUBAGENTS = 64


class TurnActions(TurnFailures):
    """The callbacks named in the turn table (failures: `turn_failures.py`)."""

    def forget_turn(self) -> None:
        raise NotImplementedError  # pragma: no cover

    # --- prompts ------------------------------------------------------------------------------

    def queue_prompt(self, event: PromptReceived) -> None:
        self.queued.append(event.turn_id)

    def dispatch_prompt(self, event: PromptReceived) -> None:
        self.dispatching = event.turn_id
        self.effects.append(SendPrompt(turn_id=event.turn_id))

    def refuse_prompt(self, event: PromptReceived) -> None:
        self.effects.append(self._rejection(event.turn_id))

    def open_turn(self, event: PromptSent) -> None:
        if self.dispatching not in (None, event.turn_id):
            raise FsmError(f"prompt {event.turn_id} was sent before {self.dispatching}")
        self.ledger.open_turn(event.turn_id)
        self.dispatching = None
        self.turn_id = event.turn_id
        self.outcome = None
        self.forget_turn()
        self.retry_after_ms = self.reset_at_ms = None
        self.between_failure_reported = False

    def cancel_queued(self, *_: Any) -> None:
        # Prompts waiting behind the live one never reached Claude: they end cancelled.
        for turn_id in self.queued:
            self.effects.append(SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id=turn_id))
        self.queued = []

    def interrupt_claude(self, *_: Any) -> None:
        self.grace_armed = True
        self.effects.append(InterruptClaude())

    def stop_runtime(self, *_: Any) -> None:
        # Claude ignored the interrupt for the whole grace period: its process is stopped,
        # which ends the turn as cancelled when the runtime's end is reported.
        self.grace_armed = False
        self.effects.append(LogNotice(message="Claude ignored the interrupt; stopping it"))
        self.effects.append(StopRuntime())

    # --- Claude's messages ---------------------------------------------------------------------

    def forward_message(self, *_: Any) -> None:
        self.effects.append(ForwardAssistantMessage())

    def take_answer(self, event: AssistantMessageReceived) -> None:
        if classify.is_real_model(event.model):
            self.real_model = True
            # The earlier failure (if any) is behind us: Claude answered after it.
            self.failure_error, self.failure_text, self.usage_limit = None, None, False
        if event.stop_reason == "refusal" and event.refusal_explanation:
            self.refusal_explanation = event.refusal_explanation
        self.answered_text += event.text
        self.effects.append(ForwardAssistantMessage())

    def note_failure(self, event: AssistantMessageReceived) -> None:
        # What the failure's record (or legacy answer) will say; a login prompt is an
        # instruction that every editor answers with its own sign-in flow, never prose.
        login = classify.is_synthetic_login(event.model, event.text_block_count, event.text)
        self.failure_error, self.failure_text = event.error, event.text
        self.usage_limit = classify.is_synthetic_usage_limit(event.model, event.text)
        self.login = self.login or login

    def withhold_failure(self, event: AssistantMessageReceived) -> None:
        # The text will be the record's title (row 20); released if it does not become one.
        self.withheld.append(event.text)

    def pass_on_failure_text(self, event: AssistantMessageReceived) -> None:
        if event.text.strip():
            self.effects.append(SendAgentText(text=redact(event.text, self.private)))

    def note_retry_hint(self, event: RetryAttempted) -> None:
        if event.retry_delay_ms is not None and event.retry_delay_ms >= 0:
            self.retry_after_ms = event.retry_delay_ms

    def warn_under_turn_id(self, event: RetryAttempted) -> None:
        self._warn(event, turn_scoped=True)

    def warn_between_turns(self, event: RetryAttempted) -> None:
        self._warn(event, turn_scoped=False)

    def _warn(self, event: RetryAttempted, *, turn_scoped: bool) -> None:
        kind = classify.kind_for_retry(event.error_status, event.error)
        assert kind is not None  # the row's `is_a_quiet_retry` guard took the other case
        title = classify.retry_title(
            attempt=event.attempt,
            max_retries=event.max_retries,
            has_status=event.error_status is not None,
        )
        propose = self.ledger.propose_turn if turn_scoped else self.ledger.propose_session
        record = propose(kind=kind, severity=Severity.WARNING, text=title, hints=self._hints())
        self.effects.append(PublishRecord(record=record))

    def log_silence(self, event: Any) -> None:
        # A client that takes no warnings sees nothing; the log still says the watchdog woke.
        self.effects.append(
            LogNotice(message=f"Claude has been silent for {event.waited_seconds} seconds")
        )

    def warn_stalled(self, event: Any) -> None:
        record = self.ledger.propose_turn(
            kind=FailureKind.TRANSPORT_LOST,
            severity=Severity.WARNING,
            text=classify.stall_title(event.waited_seconds),
        )
        self.effects.append(PublishRecord(record=record))

    # --- boundaries and settling ----------------------------------------------------------------

    # Boundaries and the runtime's end are recorded here and applied by `Turn.fire` once the
    # whole row ran, so a row that raises changes no other machine (`fsm/machine.py`).

    def confirm_boundary(self, *_: Any) -> None:
        self.reached.append((IncidentTrigger.ATTEMPT_CONFIRMED, self.turn_id))

    def recover_after_answer(self, *_: Any) -> None:
        self.reached.append((IncidentTrigger.REAL_ANSWER_GIVEN, self.turn_id))

    def explain_refusal(self, event: ResultReceived) -> None:
        # Row 29: the explanation reaches the client before `refusal`, once; the result brings
        # it when Claude Code said it only in a `model_refusal_no_fallback` frame.
        explanation = self.refusal_explanation or event.refusal_explanation
        if explanation and explanation.strip() not in self.answered_text:
            self.effects.append(SendAgentText(text=redact(explanation, self.private)))

    def settle_succeeded(self, *_: Any) -> None:
        self._settle("succeeded", StopReason.END_TURN)

    def settle_max_tokens(self, *_: Any) -> None:
        self._settle("succeeded", StopReason.MAX_TOKENS)

    def settle_turn_limit(self, *_: Any) -> None:
        self._settle("succeeded", StopReason.MAX_TURN_REQUESTS)

    def settle_refused(self, *_: Any) -> None:
        self._settle("refused", StopReason.REFUSAL)

    def settle_cancelled(self, *_: Any) -> None:
        self.release_withheld()
        self._settle("cancelled", StopReason.CANCELLED)

    # --- background subagents and steering: when a turn's answer waits ----------------------

    def note_subagent(self, event: BackgroundTaskStarted) -> None:
        # A turn runs a handful of subagents; past this many they are not this turn's to wait on.
        if len(self.subagents) < _MAX_SUBAGENTS:
            self.subagents.add(event.task_id)

    def note_task_settled(self, event: BackgroundTaskSettled) -> None:
        self.subagents.discard(event.task_id)  # an id it never started: nothing

    def keep_listed_subagents(self, event: BackgroundTasksListed) -> None:
        # A level never adds: a task it lists that the turn did not start is not the turn's.
        self.subagents &= event.task_ids

    def hold_answer(self, *_: Any) -> None:
        self.held = True

    def inject_steer(self, event: SteerReceived) -> None:
        # Interrupting Claude while a question waits would withdraw the question: `later`
        # delivers the message at the next tool boundary instead.
        self.steered = True
        priority = "later" if event.question_open else "now"
        self.effects.append(AnswerSteer(outcome="injected", priority=priority))

    def refuse_steer(self, event: SteerReceived) -> None:
        outcome = "promptRequired" if event.prompt_required_when_idle else "startedNewTurn"
        self.effects.append(AnswerSteer(outcome=outcome))

    # --- a plan exit that clears the context (reference-features-2.md section 2.3) ----------

    def note_fresh_context(self, *_: Any) -> None:
        self.fresh_context_chosen = True

    def start_fresh_context(self, *_: Any) -> None:
        # The same turn (and prompt) goes on in the fresh context; the runtime machine retires
        # the old process as this effect passes it (`SessionCore._dispatch`).
        self.fresh_context_chosen = False
        assert self.turn_id is not None
        self.effects.append(StartFreshContext(turn_id=self.turn_id))

    def send_continuation(self, *_: Any) -> None:
        # What the old context's turn saw says nothing about the fresh one's.
        self.forget_turn()
        assert self.turn_id is not None
        self.effects.append(SendContinuation(turn_id=self.turn_id))

    def log_fresh_context_unused(self, *_: Any) -> None:
        self.effects.append(LogNotice(message="a fresh context for no live turn: no plan sent"))

    # --- the runtime ----------------------------------------------------------------------------

    def note_runtime_lost(self, *_: Any) -> None:
        # The runtime machine's `runtime_lost` (WARNING: hand-coded, not drawn: fired by
        # `Turn.fire` after this row).
        self.runtime_ended = True

    def log_repeated_loss(self, *_: Any) -> None:
        # One runtime dies once: a failed write and the reader's end both report it.
        self.effects.append(LogNotice(message="the runtime's loss was already reported"))

    def log_start_failure(self, event: RuntimeStartFailed) -> None:
        self.effects.append(LogNotice(message=f"Claude did not start: {event.reason}"))
