"""The turn-lifecycle machine: it decides what each of Claude's signals means for the turn.

Theory of operation: one `Turn` per session, attached to the one `TURN_MACHINE`. Every trigger
is a core event (the snake_case of its class name), fired with the event as its argument. The
rows of `TRANSITIONS` for one (state, trigger) pair are tried in order; the first whose guards
hold wins and its `before` callbacks (in `turn_actions.py`) append the effects. That ordered
table *is* the decision: `diagrams/turn.mmd` draws it and `diagrams/turn.md` lists it, one
numbered line per rule in the order tried. The rows are literal: a row naming several states
is that row in each of them, and PROMPT_SENT's differences (Claude's first word moves it to
RUNNING) sit beside their twins. The design card's three questions are rows:
- when a warning escalates to an error: `RETRYING --result_received [is_an_error,
  has_a_warning_out] / confirm_boundary, escalate_warning --> IDLE` (the warning's own
  `<turnId>:error` becomes the error, next revision), and FAILING's `[has_a_warning_out]` twin;
  a turn with no warning out fails with `fail_with_result`, a record of its own (revision 1).
  RETRYING means exactly "a warning of this turn is out": rows enter it where one is published
  (or, from FAILING, when Claude gets past a failure while one is out) and no row leaves it for
  RUNNING. Its other rows are RUNNING's; their `fail_*` callbacks revise the same entry,
  because a turn has one failure id (docs/decisions.md#turn-ids: WARNING: hand-coded, not drawn, in
  the ledger);
- when `api_retry` progress reuses the turn id: `RUNNING --retry_attempted [unless
  is_a_quiet_retry] / warn_under_turn_id --> RETRYING` (docs/decisions.md#retry-progress: a 401, or
  a client that takes no warnings, is quiet);
- when a recovery boundary is confirmed: `confirm_boundary` on every non-autonomous
  result of a user turn, `recover_after_answer` on `[was_answered_for_real]` rows (the incident
  machine then decides which incident each boundary retires).

Where clients differ, the rows say so: `[takes_records]` rows make records (sessionFailure or
agentError) and their twins below forward Claude's prose or log; a failed turn has one row for
every client, and the answer dialect (`answers.py`) makes its settle a legacy JSON-RPC error.

States are what changes behaviour: PROMPT_SENT (nothing heard for this turn yet, so an idle
belongs to the previous turn), RUNNING, RETRYING (a warning is out under the turn id), FAILING
(a failure message was seen and not recovered from: its prose is withheld for the record,
docs/decisions.md#capable-clients), CANCELLING (one interrupt is out), IDLE (no turn live; `outcome`
says how the last one ended), BROKEN (an internal fault, docs/decisions.md#internal-faults: sticky,
every later prompt is refused). What only feeds a title (Claude's words, the error kind, retry
hints) is data on the model below.

What lives elsewhere: the table itself (`turn_table.py`), the named guards (`turn_guards.py`),
the effects (`turn_actions.py`), ids and revisions (`ledger.py`), the epoch filter, timers and
runtime facts (`session.py`).
"""

from __future__ import annotations

from typing import Any

from fsm.answers import answer_dialect
from fsm.effects import Effect
from fsm.events import Event
from fsm.ledger import Ledger
from fsm.machine import fire
from fsm.runtime import Runtime
from fsm.turn_actions import TurnActions
from fsm.turn_guards import TurnGuards
from fsm.turn_states import LIVE_STATES, TurnOutcome, TurnState
from fsm.turn_table import TRANSITIONS, TURN_MACHINE

__all__ = ["LIVE_STATES", "TRANSITIONS", "TURN_MACHINE", "Turn", "TurnOutcome", "TurnState"]


class Turn(TurnGuards, TurnActions):
    """The session's turn: the machine's model, holding what the turn has seen.

    `capable` means errors become records (sessionFailure or agentError negotiated); `notices`
    means warnings and notices become records too (sessionFailure only,
    docs/decisions.md#agent-error-only-clients).
    """

    def trigger(self, name: str, *args: Any, **kwargs: Any) -> bool:
        raise NotImplementedError("bound by transitions")  # pragma: no cover

    def __init__(
        self,
        *,
        ledger: Ledger,
        capable: bool,
        notices: bool,
        private: tuple[str, ...],
        started: bool = True,
    ) -> None:
        self.ledger, self.capable, self.notices, self.private = ledger, capable, notices, private
        self.answers = answer_dialect(ledger, takes_records=capable)
        self.runtime = Runtime(ledger=ledger, started=started)
        self.effects = []
        self.reached = []
        self.runtime_ended = False
        self.turn_id = None
        self.outcome = None
        self.queued = []
        self.dispatching = None
        self.retry_after_ms = None
        self.reset_at_ms = None
        self.between_failure_reported = False
        self.grace_armed = False
        self.forget_turn()
        TURN_MACHINE.add_model(self, initial=TurnState.IDLE)

    def forget_turn(self) -> None:
        """What one turn has seen; reset when a prompt is sent."""
        self.failure_error = None
        self.failure_text = None
        self.usage_limit = False
        self.login = False
        self.real_model = False
        self.refusal_explanation = None
        self.withheld = []
        self.answered_text = ""
        self.fresh_context_chosen = False
        self.subagents = set()
        self.held = False
        self.steered = False

    def detach(self) -> None:
        TURN_MACHINE.remove_model(self)
        self.runtime.detach()

    @property
    def live(self) -> bool:
        return self.state in LIVE_STATES

    def fire(self, trigger: str, event: Event | None = None) -> list[Effect]:
        """Run `trigger` with `event`; return the effects. Raises `InvalidTransition` (state
        unchanged, no effects) when no row of the table accepts it."""
        self.effects, self.reached, self.runtime_ended = [], [], False
        try:
            fire("turn", self, trigger, event)
        finally:
            effects, reached, ended = self.effects, self.reached, self.runtime_ended
            self.effects, self.reached, self.runtime_ended = [], [], False
        # A row that touches the other machines is atomic: what it told them is applied only
        # once every callback of the row ran (a raising one leaves all three as they were).
        for boundary, turn_id in reached:
            self.ledger.reach(boundary, turn_id)
        if ended:
            effects += self.runtime.fire("runtime_lost")
        return effects
