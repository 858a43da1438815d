"""The turn machine's guards: the named conditions of `turn.TRANSITIONS`' rows.

Theory of operation: each method here is named in a row's `conditions` (or `unless`) and is a
pure predicate over the event and what the turn has seen; it never changes the model or makes
an effect. The table tries the rows of one (state, trigger) pair in order and takes the first
whose guards hold, so a guard only has to say what its name says.
"""

from __future__ import annotations

from typing import Any

from fsm import classify
from fsm.events import (
    AssistantMessageReceived,
    BackgroundTaskStarted,
    ResultReceived,
    RetryAttempted,
)
from fsm.turn_states import TurnFields

__all__ = ["TurnGuards"]


class TurnGuards(TurnFields):
    """The conditions named in the turn table."""

    def is_from_a_subagent(self, event: AssistantMessageReceived) -> bool:
        return not event.top_level

    def is_a_login_prompt(self, event: AssistantMessageReceived) -> bool:
        return classify.is_synthetic_login(event.model, event.text_block_count, event.text)

    def is_a_failure_message(self, event: AssistantMessageReceived) -> bool:
        return event.top_level and (
            event.error is not None
            or classify.is_synthetic_usage_limit(event.model, event.text)
            or self.is_a_login_prompt(event)
        )

    def is_a_real_answer(self, event: AssistantMessageReceived) -> bool:
        return classify.is_real_model(event.model) and not self.login

    def takes_records(self, *_: Any) -> bool:
        """Errors become records (sessionFailure or agentError negotiated); a legacy client
        reads Claude's prose in the transcript and gets JSON-RPC errors."""
        return self.capable

    def is_a_quiet_retry(self, event: RetryAttempted) -> bool:
        kind = classify.kind_for_retry(event.error_status, event.error)
        return kind is None or not self.notices

    def stalls_are_quiet(self, *_: Any) -> bool:
        return not self.notices

    def is_autonomous(self, event: ResultReceived) -> bool:
        return event.autonomous

    def is_a_refusal(self, event: ResultReceived) -> bool:
        return event.stop_reason == "refusal"

    def stopped_at_max_tokens(self, event: ResultReceived) -> bool:
        return event.stop_reason == "max_tokens"

    def is_an_error(self, event: ResultReceived) -> bool:
        return event.is_error

    def awaits_its_subagents(self, *_: Any) -> bool:
        return bool(self.subagents)

    def was_steered(self, *_: Any) -> bool:
        return self.steered

    def is_held(self, *_: Any) -> bool:
        return self.held

    def is_held_and_drained(self, *_: Any) -> bool:
        return self.held and not self.subagents

    def is_a_subagent(self, event: BackgroundTaskStarted) -> bool:
        return event.subagent

    def was_stopped_by_the_user(self, event: ResultReceived) -> bool:
        return event.is_error and classify.stopped_by_the_user(event.errors, event.result)

    def is_an_unreported_error(self, event: ResultReceived) -> bool:
        return event.is_error and not event.autonomous and not self.between_failure_reported

    def hit_a_turn_limit(self, event: ResultReceived) -> bool:
        return classify.kind_for_result_subtype(event.subtype) is not None

    def was_answered_for_real(self, event: ResultReceived) -> bool:
        return classify.recovers_a_usage_limit(
            real_answer=self.real_model, turn_failed=event.is_error
        )

    def runtime_was_lost(self, *_: Any) -> bool:
        return self.runtime.is_lost

    def worker_is_shutting_down(self, *_: Any) -> bool:
        return self.runtime.is_shutting_down

    def has_a_warning_out(self, *_: Any) -> bool:
        return self.ledger.turn_warning_is_out()

    def wants_a_fresh_context(self, *_: Any) -> bool:
        return self.fresh_context_chosen

    def has_a_prompt_in_flight(self, *_: Any) -> bool:
        return self.dispatching is not None or bool(self.queued)
