"""The turn machine's callbacks that fail a turn or report a failure between turns.

Theory of operation: as in `turn_actions.py` (of which this is the base), each public method is
named in a row of `turn.TRANSITIONS` and only appends effects. A live turn's failure is one
record on the prompt response, current at once (capable), or one JSON-RPC error (legacy); a
failure with no live turn is a session-scoped record (row 26). Withheld error prose that does not
become the title goes out as agent text first (row 24).
"""

from __future__ import annotations

from typing import Any

from fsm import classify
from fsm.effects import (
    Blame,
    Effect,
    ForwardAssistantMessage,
    LogNotice,
    PublishRecord,
    RejectPrompt,
    SendAgentText,
    SendPrompt,
    SettlePrompt,
    StopReason,
)
from fsm.errors import FsmError
from fsm.events import (
    AssistantMessageReceived,
    MessageTooLarge,
    ResultReceived,
    RuntimeStartFailed,
)
from fsm.ledger import Hints
from fsm.records import redact
from fsm.turn_states import TurnFields, TurnOutcome
from fsm.vocabulary import FailureKind, Severity, policy_for

__all__ = [
    "BROKEN_REASON",
    "MESSAGE_TOO_LARGE_TITLE",
    "TURN_NO_RESULT_TITLE",
    "TurnFailures",
]

TURN_NO_RESULT_TITLE = (
    "The turn ended without a result: Claude stopped while this prompt was still in flight. "
    "Any partial output may be incomplete; please retry."
)
MESSAGE_TOO_LARGE_TITLE = (
    "Claude sent a message larger than {size}, the most this adapter accepts "
    "(CLAUDE_ACP_MAX_MESSAGE_BYTES), so the turn was stopped."
)
BROKEN_REASON = "This session failed inside the adapter; start a new session."


class TurnFailures(TurnFields):
    # --- settling and withheld prose (shared by every row that ends a turn) ---------------

    def _settled(self, outcome: str, effect: Effect) -> None:
        self.outcome = TurnOutcome(outcome)
        self.grace_armed = False
        self.ledger.close_turn()
        self.effects.append(effect)
        if self.queued:
            self.dispatching = self.queued.pop(0)
            self.effects.append(SendPrompt(turn_id=self.dispatching))

    def _settle(self, outcome: str, stop_reason: StopReason) -> None:
        self._settled(outcome, SettlePrompt(stop_reason=stop_reason))

    def release_withheld(self, *_: Any) -> None:
        # Row 24: prose that will become no record goes out as agent text, in its place.
        for text in self.withheld:
            if text.strip():
                self.effects.append(SendAgentText(text=redact(text, self.private)))
        self.withheld = []
        self.failure_error, self.failure_text, self.usage_limit = None, None, False

    # --- failing the turn ------------------------------------------------------------------------

    def fail_with_result(self, event: ResultReceived) -> None:
        """The turn ends in an error result with no warning of it out: a record of its own,
        titled from the result and the failure message Claude sent before it, if any."""
        self._fail_on(event)

    def escalate_warning(self, event: ResultReceived) -> None:
        """The turn ends in an error result while its warning is out: the warning's entry
        becomes the error (the same `<turnId>:error`, its next revision)."""
        if not self.ledger.turn_warning_is_out():
            raise FsmError("no warning of this turn is out to escalate")
        self._fail_on(event)

    def _fail_on(self, event: ResultReceived) -> None:
        kind, text = classify.result_failure(
            subtype=event.subtype,
            errors=event.errors,
            result=event.result,
            failure_error=self.failure_error,
            failure_text=self.failure_text,
            usage_limit=self.usage_limit,
            login=self.login,
        )
        self._fail(kind, text, error_kind=self.failure_error)

    def fail_with_claudes_words(self, *_: Any) -> None:
        kind = classify.kind_for_assistant_error(self.failure_error, usage_limit=self.usage_limit)
        if self.login:
            kind = FailureKind.AUTH_REQUIRED
        self._fail(kind, self.failure_text or "", error_kind=self.failure_error)

    def fail_no_result(self, *_: Any) -> None:
        self._fail(FailureKind.INTERNAL_ERROR, TURN_NO_RESULT_TITLE, error_kind="no_result")

    def fail_transport_lost(self, *_: Any) -> None:
        self._fail(FailureKind.TRANSPORT_LOST, "", error_kind=None)

    def fail_worker_shutdown(self, *_: Any) -> None:
        self._fail(FailureKind.WORKER_SHUTDOWN, "", error_kind=None)

    def fail_too_large(self, event: MessageTooLarge) -> None:
        # Its own clear record, not a lost connection: the stream cannot go on past it.
        mib, rest = divmod(event.limit_bytes, 1024 * 1024)
        size = f"{mib} MiB" if mib and not rest else f"{event.limit_bytes:,} bytes"
        text = MESSAGE_TOO_LARGE_TITLE.format(size=size)
        self._fail(FailureKind.CONTEXT_EXHAUSTED, text, error_kind="message_too_large")

    def fail_start(self, event: RuntimeStartFailed) -> None:
        self._fail(FailureKind.TRANSPORT_LOST, event.reason, error_kind=None)

    def fail_internal(self, *_: Any) -> None:
        # Row 30: our own bug, never Claude's failure ("connection lost").
        self._fail(FailureKind.INTERNAL_ERROR, "", error_kind=FailureKind.INTERNAL_ERROR.value)

    def reject_waiting(self, *_: Any) -> None:
        # The session is broken: prompts that wait for their turn are answered now.
        for turn_id in [*([self.dispatching] if self.dispatching else []), *self.queued]:
            self.effects.append(self._rejection(turn_id))
        self.dispatching, self.queued = None, []

    def _rejection(self, turn_id: str) -> RejectPrompt:
        return RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {BROKEN_REASON}",
            error_kind=FailureKind.INTERNAL_ERROR.value,
            turn_id=turn_id,
        )

    def _hints(self) -> Hints:
        after = self.retry_after_ms
        return (None if after is None else after / 1000.0, self.reset_at_ms)

    def _fail(self, kind: FailureKind, text: str, *, error_kind: str | None) -> None:
        """Fail the live turn: a record on the prompt response (capable), or a JSON-RPC error
        (legacy). Withheld prose that is not the title goes out first (row 24)."""
        text = redact(text.strip(), self.private) or policy_for(kind).fallback_title
        self.withheld = [w for w in self.withheld if w != self.failure_text]
        self.release_withheld()
        if not self.capable:
            self._settled("failed", self._legacy_rejection(kind, text, error_kind))
            return
        record = self.ledger.propose_turn(
            kind=kind, severity=Severity.ERROR, text=text, hints=self._hints()
        )
        # It rides on the prompt response, whose delivery the shell cannot observe: current
        # at once (reference D10).
        self.ledger.confirm(record.id, record.revision)
        self._settled("failed", SettlePrompt(stop_reason=StopReason.END_TURN, record=record))

    @staticmethod
    def _legacy_rejection(kind: FailureKind, text: str, error_kind: str | None) -> RejectPrompt:
        if kind is FailureKind.AUTH_REQUIRED:
            return RejectPrompt(blame=Blame.AUTH, message="Authentication required")
        return RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {text}",
            error_kind=error_kind or kind.value,
        )

    # --- between turns (row 26) -----------------------------------------------------------------

    def report_failure_message(self, event: AssistantMessageReceived) -> None:
        login = classify.is_synthetic_login(event.model, event.text_block_count, event.text)
        if login:
            return  # an instruction to the editor, not prose, turn or no turn
        if not self.capable:
            self.effects.append(ForwardAssistantMessage())
            self.effects.append(LogNotice(message="a failure with no live turn"))
            return
        kind = classify.kind_for_assistant_error(
            event.error, usage_limit=classify.is_synthetic_usage_limit(event.model, event.text)
        )
        self._report(kind, event.text)
        self.between_failure_reported = True

    def report_error_result(self, event: ResultReceived) -> None:
        kind, text = classify.result_failure(
            subtype=event.subtype,
            errors=event.errors,
            result=event.result,
            failure_error=None,
            failure_text=None,
            usage_limit=False,
            login=False,
        )
        self._report(kind, text)

    def report_transport_lost(self, *_: Any) -> None:
        self._report(FailureKind.TRANSPORT_LOST, "")

    def report_worker_shutdown(self, *_: Any) -> None:
        self._report(FailureKind.WORKER_SHUTDOWN, "")

    def _report(self, kind: FailureKind, text: str) -> None:
        text = redact(text.strip(), self.private) or policy_for(kind).fallback_title
        if not self.capable:
            self.effects.append(LogNotice(message=f"{kind.value} with no live turn: {text}"))
            return
        record = self.ledger.propose_session(
            kind=kind, severity=Severity.ERROR, text=text, hints=self._hints()
        )
        self.effects.append(PublishRecord(record=record))
