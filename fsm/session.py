"""The session core: Claude's signals in, ordered effects out.

Theory of operation: one `SessionCore` per ACP session. `handle(event)` classifies the event
(`classify.py`), moves the turn-lifecycle machine (`turn.py`), mints ids and revisions and
keeps the active set (`ledger.py`), and returns the effects for the shell to perform in order.

Decisions made here (DECISIONS rows in brackets):
- A failure while a turn is live is turn-terminal: capable clients get `<turnId>:error` on the
  prompt response with `end_turn` [4, 11]; legacy clients get a JSON-RPC error [5, 19].
- A failure with no live turn is session-scoped and goes out as a `session_info_update` [13].
- `api_retry` publishes a warning under the live turn's id with the next revision [11]; a
  terminal failure of the same turn revises that entry to an error.
- Refusal and cancellation never produce a record [17]. A stream that ends without a result is
  `internal_error`; a runtime that dies is `transport_lost` [18].
- Error prose that became a record's title is not forwarded to capable clients [20].
- Records of a replaced runtime are dropped [21]: every Claude event carries its epoch.
- Turn-terminal records ride on the prompt response, whose delivery the shell cannot observe;
  they become current at once (reference D10). `session_info_update` records become current
  only on `DeliveryConfirmed`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from fsm import classify
from fsm.effects import (
    Effect,
    ForwardAssistantMessage,
    LogNotice,
    PublishRecord,
    RejectPrompt,
    SendAgentText,
    SettlePrompt,
    StopReason,
)
from fsm.errors import FsmError
from fsm.events import (
    AssistantMessageReceived,
    AuthStatusReported,
    CancelRequested,
    ClaudeEvent,
    ClaudeSilent,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    HistoryFailureFound,
    MessageTooLarge,
    ModelFellBack,
    PromptSent,
    RateLimitReported,
    ResultReceived,
    RetryAttempted,
    RuntimeStarted,
    RuntimeStartFailed,
    StreamEnded,
    TransportLost,
    TurnWentBusy,
    TurnWentIdle,
    WorkerShuttingDown,
)
from fsm.ledger import Ledger
from fsm.records import FailureRecord, redact
from fsm.turn import TurnLifecycle, TurnState, TurnTrigger
from fsm.vocabulary import FailureKind, Severity, policy_for

__all__ = [
    "AUTH_REQUIRED_CODE",
    "INTERNAL_ERROR_CODE",
    "MESSAGE_TOO_LARGE_TITLE",
    "TURN_NO_RESULT_TITLE",
    "SessionCore",
]

AUTH_REQUIRED_CODE = -32000
INTERNAL_ERROR_CODE = -32603

MESSAGE_TOO_LARGE_TITLE = (
    "Claude sent a message larger than {size}, the most this adapter accepts "
    "(CLAUDE_ACP_MAX_MESSAGE_BYTES), so the turn was stopped."
)
TURN_NO_RESULT_TITLE = (
    "The turn ended without a result: Claude stopped while this prompt was still in flight. "
    "Any partial output may be incomplete; please retry."
)


class _Hints(TypedDict):
    retry_after_seconds: float | None
    reset_at_epoch_ms: int | None


@dataclass(slots=True)
class _TurnNotes:
    """What the live turn has seen so far; reset when a prompt is sent."""

    failure_error: str | None = None  # the latest top-level assistant `error`
    failure_text: str | None = None  # that message's text (Claude's own words)
    usage_limit: bool = False
    login: bool = False
    real_model: bool = False
    refusal_explanation: str | None = None
    cancel_requested: bool = False


class SessionCore:
    """Pure decision core for one session. Not thread-safe; the shell feeds it in order."""

    def __init__(
        self, *, session_id: str, epoch: str, capable: bool, private: tuple[str, ...] = ()
    ) -> None:
        self.session_id = session_id
        self.capable = capable
        # Values that must never reach a client (the user's home, credentials in the
        # environment); the shell reads them, the core only masks them.
        self._private = private
        self.ledger = Ledger(session_id=session_id, epoch=epoch)
        self.turn = TurnLifecycle()
        self.runtime_lost = False
        self._notes = _TurnNotes()
        self._worker_shutting_down = False
        # Claude's latest word on when to retry (ms): kept on records for dialects that carry it.
        self._retry_after_ms: int | None = None
        self._reset_at_ms: int | None = None

    # --- read-only views -------------------------------------------------------------------

    @property
    def epoch(self) -> str:
        return self.ledger.epoch

    @property
    def turn_state(self) -> TurnState:
        return self.turn.state

    def active(self) -> list[FailureRecord]:
        return self.ledger.active()

    def close(self) -> None:
        """Detach the machines' models; the core must not be used afterwards."""
        self.ledger.close()
        self.turn.detach()

    # --- the one entry point ----------------------------------------------------------------

    def handle(self, event: Event) -> list[Effect]:
        """Apply one event; return the effects to perform, in order.

        Raises `InvalidTransition` when the shell breaks the protocol (a prompt while a turn
        is live), `FsmError` for a delivery report that names no pending revision.
        """
        if isinstance(event, ClaudeEvent) and not isinstance(event, RuntimeStarted):
            if event.epoch != self.ledger.epoch:
                return [
                    LogNotice(message=f"dropped {type(event).__name__} from a replaced runtime")
                ]
            quiet = StreamEnded | TransportLost | ClaudeSilent | TurnWentIdle | MessageTooLarge
            if self.turn.live and not isinstance(event, quiet):
                self.turn.fire(TurnTrigger.CLAUDE_RESPONDED)
        match event:
            case PromptSent(turn_id=turn_id):
                self.turn.start(turn_id)
                self._notes = _TurnNotes()
                self._retry_after_ms = self._reset_at_ms = None
                return []
            case CancelRequested():
                if self.turn.live:
                    self._notes.cancel_requested = True
                return []
            case DeliveryConfirmed(id=id, revision=revision):
                self.ledger.confirm(id, revision)
                return []
            case DeliveryFailed(id=id, revision=revision):
                self.ledger.fail(id, revision)
                return [LogNotice(message=f"failed to publish {id} revision {revision}")]
            case HistoryFailureFound():
                return self._on_history(event)
            case RuntimeStarted(epoch=epoch):
                if epoch == self.ledger.epoch:
                    # The same runtime cannot start twice; resetting its counter would reuse ids.
                    return [LogNotice(message="ignored a second start of the same runtime")]
                self.ledger.replace_runtime(epoch)
                self.runtime_lost = False
                self._worker_shutting_down = False
                return []
            case RuntimeStartFailed(reason=reason):
                if not self.turn.live:
                    return [LogNotice(message=f"Claude did not start: {reason}")]
                return self._fail(FailureKind.TRANSPORT_LOST, reason, error_kind=None)
            case AssistantMessageReceived():
                return self._on_assistant(event)
            case RetryAttempted():
                return self._on_retry(event)
            case ResultReceived():
                return self._on_result(event)
            case ModelFellBack():
                return self._on_fallback(event)
            case AuthStatusReported(is_authenticating=authenticating, error=error):
                if not authenticating and error is None:
                    self.ledger.recover_auth()
                return []
            case RateLimitReported(status=status, resets_at=resets_at):
                if status != "allowed" and resets_at is not None:
                    self._reset_at_ms = resets_at * 1000
                return []
            case ClaudeSilent(waited_seconds=waited):
                return self._on_silent(waited)
            case TurnWentBusy():
                # Claude took the prompt (the claude_responded above moved the turn on), so an
                # idle from now on belongs to this turn.
                return []
            case TurnWentIdle():
                return self._on_idle()
            case WorkerShuttingDown():
                self._worker_shutting_down = True
                return []
            case StreamEnded():
                return self._on_runtime_gone(clean=True)
            case TransportLost():
                return self._on_runtime_gone(clean=False)
            case MessageTooLarge(limit_bytes=limit):
                return self._on_too_large(limit)
        raise FsmError(f"unknown event {type(event).__name__}")

    # --- Claude's messages -------------------------------------------------------------------

    def _on_assistant(self, event: AssistantMessageReceived) -> list[Effect]:
        if not event.top_level:
            return [ForwardAssistantMessage()]
        notes = self._notes
        if event.model is not None and event.model != classify.SYNTHETIC_MODEL:
            notes.real_model = True
        if event.stop_reason == "refusal" and event.refusal_explanation:
            notes.refusal_explanation = event.refusal_explanation
        usage_limit = classify.is_synthetic_usage_limit(event.model, event.text)
        login = classify.is_synthetic_login(event.model, event.text_block_count, event.text)
        if not (usage_limit or login or event.error is not None):
            if notes.real_model and notes.failure_text is not None and not notes.login:
                # Claude answered after the failure message: the turn got past it.
                notes.failure_error, notes.failure_text, notes.usage_limit = None, None, False
            return [ForwardAssistantMessage()]
        if not self.turn.live:
            # No turn to attach it to and no record will carry it: never silence it. (The
            # login prompt is the exception: it is an instruction to the editor, not prose.)
            return [] if login else [ForwardAssistantMessage()]
        notes.failure_error = event.error
        notes.failure_text = event.text
        notes.usage_limit = usage_limit
        notes.login = notes.login or login
        # The failure text will be a record's title (capable) or is a login prompt that legacy
        # editors answer with their own sign-in flow; otherwise the prose stays in the transcript.
        if self.capable or login:
            return []
        return [ForwardAssistantMessage()]

    def _on_retry(self, event: RetryAttempted) -> list[Effect]:
        kind = classify.kind_for_retry(event.error_status, event.error)
        if event.retry_delay_ms is not None and event.retry_delay_ms >= 0:
            self._retry_after_ms = event.retry_delay_ms
        if kind is None or not self.capable:
            return []
        title = classify.retry_title(
            attempt=event.attempt,
            max_retries=event.max_retries,
            has_status=event.error_status is not None,
        )
        if self.turn.live and self.turn.turn_id is not None:
            turn_id = self.turn.turn_id
            record = self.ledger.propose(
                id=self.ledger.turn_failure_id(turn_id),
                kind=kind,
                severity=Severity.WARNING,
                text=title,
                turn_id=turn_id,
                **self._hints(),
            )
            self.turn.fire(TurnTrigger.RETRY_WARNED)
        else:
            record = self.ledger.propose(
                id=self.ledger.session_failure_id(),
                kind=kind,
                severity=Severity.WARNING,
                text=title,
                turn_id=None,
                **self._hints(),
            )
        return [PublishRecord(record=record)]

    def _on_idle(self) -> list[Effect]:
        """Claude went idle. After a result that is routine; while this turn still waits for
        its result, the result will never come (row 18: `internal_error`). An idle that
        arrives before Claude said anything for this turn (not even `running`) belongs to the
        previous turn: Claude reports idle after each result, and that frame can be read after
        the next prompt was sent."""
        if self.turn.state not in (TurnState.RUNNING, TurnState.RETRYING):
            return []
        if self._notes.cancel_requested:
            return self._settle(TurnTrigger.TURN_CANCELLED, StopReason.CANCELLED)
        return self._fail(FailureKind.INTERNAL_ERROR, TURN_NO_RESULT_TITLE, error_kind="no_result")

    def _on_silent(self, waited_seconds: int) -> list[Effect]:
        """A live turn's Claude has gone quiet: a `connection` warning under the turn's id,
        revised as the wait grows. It never ends the turn; cancelling still works."""
        turn_id = self.turn.turn_id
        if not self.capable or not self.turn.live or turn_id is None:
            return []
        if self._notes.cancel_requested:
            return []
        record = self.ledger.propose(
            id=self.ledger.turn_failure_id(turn_id),
            kind=FailureKind.TRANSPORT_LOST,
            severity=Severity.WARNING,
            text=classify.stall_title(waited_seconds),
            turn_id=turn_id,
        )
        self.turn.fire(TurnTrigger.RETRY_WARNED)
        return [PublishRecord(record=record)]

    def _on_result(self, event: ResultReceived) -> list[Effect]:
        if event.autonomous:
            return []
        notes = self._notes
        if not self.turn.live or self.turn.turn_id is None:
            if event.is_error:
                # The last turn's notes say nothing about a result no turn is waiting for.
                kind, text = self._result_failure(event, _TurnNotes())
                return self._fail(kind, text, error_kind=None)
            return []
        turn_id = self.turn.turn_id
        self.ledger.recover_earlier_turns(turn_id)
        if notes.cancel_requested:
            return self._settle(TurnTrigger.TURN_CANCELLED, StopReason.CANCELLED)
        if event.stop_reason == "refusal":
            effects: list[Effect] = []
            if notes.refusal_explanation:
                effects.append(SendAgentText(text=notes.refusal_explanation))
            return effects + self._settle(TurnTrigger.TURN_REFUSED, StopReason.REFUSAL)
        # A failure message Claude never got past fails the turn even when the result does
        # not say so: otherwise a capable client, whose copy of that prose was withheld for
        # the record, would be told nothing at all (rows 18, 20).
        failed = event.is_error or notes.login or notes.failure_text is not None
        if not failed and notes.real_model:
            # Only a turn that really succeeded proves recovery; one that ends in a failure
            # message must not retire the warning its failure is about to revise.
            self.ledger.recover_after_real_answer(turn_id)
        if event.stop_reason == "max_tokens" and notes.failure_text is None and not notes.login:
            return self._settle(TurnTrigger.TURN_SUCCEEDED, StopReason.MAX_TOKENS)
        if failed:
            kind, text = self._result_failure(event, notes)
            return self._fail(kind, text, error_kind=notes.failure_error)
        if classify.kind_for_result_subtype(event.subtype) is not None:
            return self._settle(TurnTrigger.TURN_SUCCEEDED, StopReason.MAX_TURN_REQUESTS)
        return self._settle(TurnTrigger.TURN_SUCCEEDED, StopReason.END_TURN)

    def _result_failure(self, event: ResultReceived, notes: _TurnNotes) -> tuple[FailureKind, str]:
        """The kind and Claude's words for an error result (reference §2.4; D6)."""
        fixed = classify.kind_for_result_subtype(event.subtype)
        joined = ", ".join(e for e in event.errors if e)
        if fixed is not None:
            return fixed, joined
        result_text = event.result or ""
        if notes.login or classify.is_login_text(result_text):
            return FailureKind.AUTH_REQUIRED, notes.failure_text or result_text
        kind = classify.kind_for_assistant_error(notes.failure_error, usage_limit=notes.usage_limit)
        if event.subtype == "success":
            return kind, notes.failure_text or result_text
        return kind, notes.failure_text or joined

    def _on_fallback(self, event: ModelFellBack) -> list[Effect]:
        text = classify.model_fallback_text(
            original_model=event.original_model,
            fallback_model=event.fallback_model,
            refusal_category=event.refusal_category,
            explanation=event.explanation,
            direction=event.direction,
            scope=event.scope,
        )
        if not self.capable:
            return [SendAgentText(text=f"**Model fallback:** {text}")]
        record = self.ledger.propose(
            id=self.ledger.notice_id(text),
            kind=FailureKind.ADVISORY,
            severity=Severity.WARNING,
            text=redact(text, self._private),
            turn_id=None,
        )
        return [PublishRecord(record=record)]

    def _on_runtime_gone(self, *, clean: bool) -> list[Effect]:
        if self.runtime_lost:
            # One runtime dies once: a failed write and the reader's end both report it.
            return [LogNotice(message="the runtime's loss was already reported")]
        self.runtime_lost = True
        error_kind: str | None = None
        notes = self._notes
        if self.turn.live and notes.failure_text is not None and not notes.cancel_requested:
            # Claude already said what went wrong before its process went away: its words are
            # the news (and were withheld from the transcript for the record, row 20).
            kind = classify.kind_for_assistant_error(
                notes.failure_error, usage_limit=notes.usage_limit
            )
            if notes.login:
                kind = FailureKind.AUTH_REQUIRED
            return self._fail(kind, notes.failure_text, error_kind=notes.failure_error)
        if self._worker_shutting_down:
            kind, text = FailureKind.WORKER_SHUTDOWN, ""
        elif clean:
            kind, text = FailureKind.INTERNAL_ERROR, TURN_NO_RESULT_TITLE
            error_kind = "no_result"
        else:
            kind, text = FailureKind.TRANSPORT_LOST, ""
        if self.turn.live and self._notes.cancel_requested:
            return self._settle(TurnTrigger.TURN_CANCELLED, StopReason.CANCELLED)
        if not self.turn.live and kind is FailureKind.INTERNAL_ERROR:
            # An idle runtime that ended cleanly broke no promise; the next prompt replaces it.
            return []
        return self._fail(kind, text, error_kind=error_kind)

    def _on_too_large(self, limit: int) -> list[Effect]:
        # The turn fails with its own clear record, not as a lost connection: the runtime's
        # end that follows is this fault's, already reported here.
        self.runtime_lost = True
        if self.turn.live and self._notes.cancel_requested:
            return self._settle(TurnTrigger.TURN_CANCELLED, StopReason.CANCELLED)
        mib, rest = divmod(limit, 1024 * 1024)
        size = f"{mib} MiB" if mib and not rest else f"{limit:,} bytes"
        text = MESSAGE_TOO_LARGE_TITLE.format(size=size)
        return self._fail(FailureKind.CONTEXT_EXHAUSTED, text, error_kind="message_too_large")

    def _on_history(self, event: HistoryFailureFound) -> list[Effect]:
        if not self.capable:
            return []
        record = self.ledger.propose_historical(
            id=event.id, text=redact(event.title, self._private), active=event.active
        )
        return [PublishRecord(record=record)]

    # --- settling ------------------------------------------------------------------------

    def _hints(self) -> _Hints:
        after = self._retry_after_ms
        return {
            "retry_after_seconds": None if after is None else after / 1000.0,
            "reset_at_epoch_ms": self._reset_at_ms,
        }

    def _settle(self, trigger: TurnTrigger, stop_reason: StopReason) -> list[Effect]:
        self.turn.fire(trigger)
        return [SettlePrompt(stop_reason=stop_reason)]

    def _fail(self, kind: FailureKind, text: str, *, error_kind: str | None) -> list[Effect]:
        """A failure: turn-terminal when a turn is live, session-scoped otherwise."""
        text = redact(text.strip(), self._private) or policy_for(kind).fallback_title
        live = self.turn.live and self.turn.turn_id is not None
        if not self.capable:
            if not live:
                return [LogNotice(message=f"{kind.value} with no live turn: {text}")]
            self.turn.fire(TurnTrigger.TURN_FAILED)
            if kind is FailureKind.AUTH_REQUIRED:
                return [RejectPrompt(code=AUTH_REQUIRED_CODE, message="Authentication required")]
            return [
                RejectPrompt(
                    code=INTERNAL_ERROR_CODE,
                    message=f"Internal error: {text}",
                    error_kind=error_kind or kind.value,
                )
            ]
        if not live or self.turn.turn_id is None:
            record = self.ledger.propose(
                id=self.ledger.session_failure_id(),
                kind=kind,
                severity=Severity.ERROR,
                text=text,
                turn_id=None,
                **self._hints(),
            )
            return [PublishRecord(record=record)]
        turn_id = self.turn.turn_id
        record = self.ledger.propose(
            id=self.ledger.turn_failure_id(turn_id),
            kind=kind,
            severity=Severity.ERROR,
            text=text,
            turn_id=turn_id,
            **self._hints(),
        )
        self.ledger.confirm(record.id, record.revision)
        self.turn.fire(TurnTrigger.TURN_FAILED)
        return [SettlePrompt(stop_reason=StopReason.END_TURN, record=record)]
