"""Answer dialects: how the answer to a prompt looks to a client, failed turns included.

Theory of operation: the turn's failure callbacks make one effect for every client, a
`SettlePrompt` carrying the failure (`FailedTurn`: its kind, words and Claude's retry hints).
The turn's answer dialect, chosen once per session from what the client negotiated, turns that
settle into the answer the client understands:
- `RecordAnswers` (sessionFailure or agentError): the failure becomes the open turn's record
  (`<turnId>:error`, its next revision), current at once because it rides on the prompt
  response, whose delivery the shell cannot observe;
- `LegacyAnswers` (neither extension): the JSON-RPC error the reference adapter sends
  (docs/decisions.md#auth-failure-legacy-client), ACP's "authentication required" for an auth
  failure; no record exists anywhere.
A settle with no failure is the same answer for every client. The dialect runs before the turn
closes (the record needs the open turn), inside the row's callbacks, so a raise leaves the
turn's state as it was.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from fsm.effects import Blame, Effect, RejectPrompt, SettlePrompt
from fsm.ledger import Ledger
from fsm.vocabulary import FailureKind, Severity

__all__ = ["AnswerDialect", "LegacyAnswers", "RecordAnswers", "answer_dialect"]


class AnswerDialect(Protocol):
    def answer(self, settle: SettlePrompt) -> Effect:
        """The effect that answers the prompt `settle` settles."""
        ...


class RecordAnswers:
    """sessionFailure or agentError: a failed turn is a response with its record on it."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def answer(self, settle: SettlePrompt) -> Effect:
        failure = settle.failure
        if failure is None:
            return settle
        record = self._ledger.propose_turn(
            kind=failure.kind,
            severity=Severity.ERROR,
            text=failure.text,
            hints=(failure.retry_after_seconds, failure.reset_at_epoch_ms),
        )
        self._ledger.confirm(record.id, record.revision)
        return replace(settle, record=record, failure=None)


class LegacyAnswers:
    """Neither extension: a failed turn is a JSON-RPC error
    (docs/decisions.md#auth-failure-legacy-client)."""

    def answer(self, settle: SettlePrompt) -> Effect:
        failure = settle.failure
        if failure is None:
            return settle
        if failure.kind is FailureKind.AUTH_REQUIRED:
            return RejectPrompt(
                blame=Blame.AUTH, message="Authentication required", turn_id=settle.turn_id
            )
        return RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {failure.text}",
            error_kind=failure.error_kind or failure.kind.value,
            turn_id=settle.turn_id,
        )


def answer_dialect(ledger: Ledger, *, takes_records: bool) -> AnswerDialect:
    return RecordAnswers(ledger) if takes_records else LegacyAnswers()
