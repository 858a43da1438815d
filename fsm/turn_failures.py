"""The turn machine's callbacks that fail a turn or report a failure between turns.

Theory of operation: as in `turn_actions.py` (of which this is the base), each public method is
named in a row of `turn.TRANSITIONS` and only appends effects. A live turn's failure is one
record on the prompt response, current at once; the turn's answer dialect (`fsm/wire.py`) makes
that settle a JSON-RPC error for a legacy client, so these callbacks make one effect for every
client. A failure with no live turn is a session-scoped record
(docs/decisions.md#failures-between-turns), or a log line for a client that takes no records: the
rows choose (`[takes_records]`). Withheld error prose that does not become the title goes out as
agent text first (docs/decisions.md#error-prose-without-record).
"""

from __future__ import annotations

from typing import Any

from fsm import classify
from fsm.effects import (
    Blame,
    FailedTurn,
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

    def _settled(self, outcome: str, settle: SettlePrompt) -> None:
        # The client's form of the answer (`answers.py`); a failure's record needs the turn open.
        answer = self.answers.answer(settle)
        self.outcome = TurnOutcome(outcome)
        self.grace_armed = False
        self.ledger.close_turn()
        self.effects.append(answer)
        if self.queued:
            self.dispatching = self.queued.pop(0)
            self.effects.append(SendPrompt(turn_id=self.dispatching))

    def _settle(self, outcome: str, stop_reason: StopReason) -> None:
        self._settled(outcome, SettlePrompt(stop_reason=stop_reason))

    def release_withheld(self, *_: Any) -> None:
        # docs/decisions.md#error-prose-without-record: prose that will become no record goes out as
        # agent text, in its place.
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
        # docs/decisions.md#internal-faults: our own bug, never Claude's failure ("connection
        # lost").
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
        """Fail the live turn: one settle for every client, which the answer dialect makes a
        record on the prompt response or a legacy JSON-RPC error. Withheld prose that is not
        the title goes out first (docs/decisions.md#error-prose-without-record)."""
        text = redact(text.strip(), self.private) or policy_for(kind).fallback_title
        self.withheld = [w for w in self.withheld if w != self.failure_text]
        self.release_withheld()
        after, reset = self._hints()
        failure = FailedTurn(
            kind=kind,
            text=text,
            error_kind=error_kind,
            retry_after_seconds=after,
            reset_at_epoch_ms=reset,
        )
        self._settled("failed", SettlePrompt(stop_reason=StopReason.END_TURN, failure=failure))

    # --- between turns (docs/decisions.md#failures-between-turns) ---------------------------------

    def log_failure_message(self, *_: Any) -> None:
        self.effects.append(LogNotice(message="a failure with no live turn"))

    def report_failure_message(self, event: AssistantMessageReceived) -> None:
        kind = classify.kind_for_assistant_error(
            event.error, usage_limit=classify.is_synthetic_usage_limit(event.model, event.text)
        )
        self._report(kind, event.text)
        self.between_failure_reported = True

    def report_error_result(self, event: ResultReceived) -> None:
        self._report(*self._between_result(event))

    def log_error_result(self, event: ResultReceived) -> None:
        self._log_between(*self._between_result(event))

    @staticmethod
    def _between_result(event: ResultReceived) -> tuple[FailureKind, str]:
        return classify.result_failure(
            subtype=event.subtype,
            errors=event.errors,
            result=event.result,
            failure_error=None,
            failure_text=None,
            usage_limit=False,
            login=False,
        )

    def report_transport_lost(self, *_: Any) -> None:
        self._report(FailureKind.TRANSPORT_LOST, "")

    def log_transport_lost(self, *_: Any) -> None:
        self._log_between(FailureKind.TRANSPORT_LOST, "")

    def report_worker_shutdown(self, *_: Any) -> None:
        self._report(FailureKind.WORKER_SHUTDOWN, "")

    def log_worker_shutdown(self, *_: Any) -> None:
        self._log_between(FailureKind.WORKER_SHUTDOWN, "")

    def _between_text(self, kind: FailureKind, text: str) -> str:
        return redact(text.strip(), self.private) or policy_for(kind).fallback_title

    def _log_between(self, kind: FailureKind, text: str) -> None:
        # A client that takes no records: nothing reaches it, the log says what happened.
        text = self._between_text(kind, text)
        self.effects.append(LogNotice(message=f"{kind.value} with no live turn: {text}"))

    def _report(self, kind: FailureKind, text: str) -> None:
        text = self._between_text(kind, text)
        record = self.ledger.propose_session(
            kind=kind, severity=Severity.ERROR, text=text, hints=self._hints()
        )
        self.effects.append(PublishRecord(record=record))
