"""The session core: Claude's signals and the client's requests in, ordered effects out.

Theory of operation: one `SessionCore` per ACP session. `handle(event)` does three things and
decides nothing else itself:
1. It drops what a replaced runtime says late (docs/decisions.md#delivery): every Claude event
   carries its epoch.
2. It routes the event: turn events go to the turn machine (`turn.py`, whose table decides and
   whose callbacks make the effects); delivery reports, replayed history, runtime starts and
   Claude's account reports go to the ledger (`ledger.py`, whose incidents decide recovery).
3. It keeps the clock the shell lends it (`session_clock.py`): `next_deadline()` says when the
   core next needs waking (the stall watchdog, the interrupt's grace period, a usage limit's
   reset, the idle compaction's deadline), and `DeadlineReached` turns into the turn
   machine's `claude_silent` or `cancel_grace_expired`, a limit's reset (`session_limits.py`,
   docs/decisions.md#early-limit-warning and #limit-that-resets), or the idle compaction's
   `idle_deadline_reached`.
4. It tells the idle compaction (`idle_compaction.py`) when the session went idle (its last
   turn answered, nothing queued) and of each client prompt.

Claude's process has its own machine (`runtime.py`, owned by the turn, whose rows read it):
runtime starts, losses, shutdowns and new credentials are its triggers, and every `SendPrompt`
the turn makes passes through its `prompt_dispatched` rows, which decide whether the prompt
goes to a fresh process (docs/decisions.md#never-silent: after a lost process the next prompt
resumes the session in a new one). Its state also names a retired epoch, whose late words the stale
filter drops.

Triggers fired from code here (WARNING: hand-coded, not drawn): `turn_went_busy` after a sign
of life, the `transport_lost` made up when a prompt was sent to a process already gone, the
runtime's `prompt_dispatched` for each `SendPrompt`, and the timer's demux of one
`DeadlineReached` into `cancel_grace_expired`, `claude_silent` and `idle_deadline_reached`,
and the idle compaction's `session_went_idle` (derived here) and `prompt_received`.
"""

from __future__ import annotations

from collections.abc import Callable

from fsm.effects import (
    Effect,
    LogNotice,
    PublishRecord,
    SendPrompt,
    StartFreshContext,
)
from fsm.errors import FsmError
from fsm.event_triggers import SIGNS_OF_LIFE, TURN_TRIGGERS
from fsm.events import (
    AuthStatusReported,
    CancelGraceExpired,
    CancelRequested,
    ClaudeEvent,
    ClaudeSilent,
    ContextMeasured,
    CredentialsChanged,
    DeadlineReached,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    FreshContextReady,
    HistoryFailureFound,
    McpServersReported,
    ModelChosen,
    ModelFellBack,
    OutputReceived,
    PromptSent,
    RateLimitReported,
    RuntimeStarted,
    TransportLost,
    WorkerShuttingDown,
)
from fsm.idle_compaction import IdlePolicy
from fsm.ledger import Ledger
from fsm.notices import Notices
from fsm.records import FailureRecord, redact
from fsm.session_clock import CANCEL_GRACE_SECONDS, SessionClock
from fsm.session_idle import SessionIdle
from fsm.session_limits import SessionLimits
from fsm.turn import Turn, TurnState
from fsm.turn_actions import TURN_NO_RESULT_TITLE

__all__ = [
    "CANCEL_GRACE_SECONDS",
    "TURN_NO_RESULT_TITLE",
    "SessionCore",
]


class SessionCore:
    """Pure decision core for one session. Not thread-safe; the shell feeds it in order.

    `capable`: errors become records (sessionFailure or agentError negotiated). `notices`:
    warnings and notices become records too (sessionFailure negotiated; defaults to `capable`).
    `idle`: the idle compaction's settings (None: the session never compacts when idle).
    """

    def __init__(
        self,
        *,
        session_id: str,
        epoch: str,
        capable: bool,
        notices: bool | None = None,
        private: tuple[str, ...] = (),
        stall_seconds: float | None = None,
        started: bool = True,
        acp_notices: bool = False,
        idle: IdlePolicy | None = None,
    ) -> None:
        self.session_id = session_id
        self.capable = capable
        # Values that must never reach a client (the user's home, credentials in the
        # environment); the shell reads them, the core only masks them.
        self._private = private
        self.ledger = Ledger(session_id=session_id, epoch=epoch)
        notices = capable if notices is None else notices
        self.turn = Turn(
            ledger=self.ledger, capable=capable, notices=notices, private=private, started=started
        )
        self.runtime = self.turn.runtime
        self._clock = SessionClock(stall_seconds)
        # docs/decisions.md#early-limit-warning and #limit-that-resets: the limit windows' warnings
        # and the resets of failed limits.
        self.limits = SessionLimits(ledger=self.ledger, turn=self.turn, acp_notices=acp_notices)
        # docs/decisions.md#model-fallback, #acp-notices and #mcp-server-problems: a model fallback
        # and MCP server problems, in each client's form.
        self.notices_routing = Notices(
            ledger=self.ledger,
            records=notices,
            acp_notices=acp_notices and not notices,
            private=private,
            live_turn=lambda: self.turn.turn_id if self.turn.live else None,
        )
        self.idle = SessionIdle(policy=idle, turn=self.turn, clock=self._clock)
        self._routes: dict[type[Event], Callable[..., list[Effect]]] = {
            ContextMeasured: self._on_context,
            ModelChosen: lambda _: [],  # only the idle compaction hears of it (`after`)
            DeliveryConfirmed: self._on_confirmed,
            DeliveryFailed: self._on_failed,
            HistoryFailureFound: self._on_history,
            RuntimeStarted: self._on_started,
            ModelFellBack: self._on_fallback,
            McpServersReported: self._on_mcp_servers,
            AuthStatusReported: self._on_auth,
            RateLimitReported: self._on_rate_limit,
            WorkerShuttingDown: self._on_worker_shutdown,
            OutputReceived: self._on_output,
            DeadlineReached: self._on_deadline,
            CredentialsChanged: self._on_credentials,
        }

    # --- read-only views -------------------------------------------------------------------

    @property
    def epoch(self) -> str:
        return self.ledger.epoch

    @property
    def turn_state(self) -> TurnState:
        return self.turn.state

    @property
    def notices(self) -> bool:
        """Warnings, notices and replayed records go to this client as records
        (docs/decisions.md#agent-error-only-clients)."""
        return self.turn.notices

    @property
    def broken(self) -> bool:
        return self.turn.state is TurnState.BROKEN

    @property
    def runtime_lost(self) -> bool:
        return self.runtime.is_lost

    def active(self) -> list[FailureRecord]:
        return self.ledger.active()

    def next_deadline(self) -> float | None:
        """When the core next needs a `DeadlineReached` (monotonic seconds), or None."""
        deadlines = (
            self._clock.next_deadline(self.turn.state),
            self.limits.next_deadline(),
            self.idle.next_deadline(),
        )
        return min((d for d in deadlines if d is not None), default=None)

    def close(self) -> None:
        """Detach the machines' models; the core must not be used afterwards."""
        self.limits.close()
        self.idle.close()
        self.notices_routing.detach()
        self.ledger.close()
        self.turn.detach()

    # --- the one entry point ----------------------------------------------------------------

    def handle(self, event: Event) -> list[Effect]:
        """Apply one event; return the effects to perform, in order.

        Raises `InvalidTransition` (state unchanged) when the shell breaks the protocol (a
        prompt sent while a turn is live), `FsmError` for a delivery report that names no
        pending revision or an event of a kind the core does not know.
        """
        busy = self.idle.busy()
        return self.idle.after(event, busy, self._handle(event))

    def _handle(self, event: Event) -> list[Effect]:
        if isinstance(event, ClaudeEvent) and self._is_stale(event):
            return [LogNotice(message=f"dropped {type(event).__name__} from a replaced runtime")]
        trigger = TURN_TRIGGERS.get(type(event))
        if trigger is not None:
            return self._fire(trigger, event)
        route = self._routes.get(type(event))
        if route is None:
            raise FsmError(f"unknown event {type(event).__name__}")
        effects = route(event)
        if isinstance(event, SIGNS_OF_LIFE):
            # WARNING: hand-coded, not drawn. Claude is working on the prompt: a sent one is
            # now running (the turn's table decides).
            effects += self.turn.fire("turn_went_busy", event)
        return effects

    def _is_stale(self, event: ClaudeEvent) -> bool:
        if isinstance(event, RuntimeStarted):
            return False
        return event.epoch != self.ledger.epoch or self.runtime.is_retired

    def _fire(self, trigger: str, event: Event) -> list[Effect]:
        dispatched = isinstance(event, PromptSent) and self.turn.dispatching == event.turn_id
        effects = self.turn.fire(trigger, event)
        if isinstance(event, FreshContextReady):
            self._clock.heard(event.now)  # the continuation is the fresh context's prompt
        if isinstance(event, PromptSent):
            self._clock.heard(event.now)
            self.limits.prompt_sent(event)
            if dispatched and self.runtime.is_lost:
                # WARNING: hand-coded, not drawn. The process is gone although the prompt was
                # dispatched and reported sent (it died in between, or its replacement never
                # came up): the prompt can reach no Claude, which the turn hears as a loss.
                lost = TransportLost(epoch=self.ledger.epoch)
                effects += self.turn.fire("transport_lost", lost)
        cancelled_at = event.now if isinstance(event, CancelRequested) else None
        self._clock.follow_grace(self.turn.grace_armed, cancelled_at)
        return [out for effect in effects for out in self._dispatch(effect)]

    def _dispatch(self, effect: Effect) -> list[Effect]:
        # WARNING: hand-coded, not drawn: every prompt the turn sends is the runtime machine's
        # `prompt_dispatched`, whose rows decide whether it goes to a fresh Claude process.
        # Likewise a fresh context (section 2.3) is its `fresh_context_requested`, which
        # retires the process it replaces.
        if isinstance(effect, StartFreshContext):
            return self.runtime.fire("fresh_context_requested", effect)
        if not isinstance(effect, SendPrompt):
            return [effect]
        return self.runtime.fire("prompt_dispatched", effect)

    # --- the ledger's events --------------------------------------------------------------

    def _on_confirmed(self, event: DeliveryConfirmed) -> list[Effect]:
        self.ledger.confirm(event.id, event.revision)
        return []

    def _on_failed(self, event: DeliveryFailed) -> list[Effect]:
        self.ledger.fail(event.id, event.revision)
        return [LogNotice(message=f"failed to publish {event.id} revision {event.revision}")]

    def _on_history(self, event: HistoryFailureFound) -> list[Effect]:
        if not self.turn.notices:
            return []
        record = self.ledger.propose_historical(
            id=event.id, text=redact(event.title, self._private), active=event.active
        )
        return [PublishRecord(record=record)]

    def _on_started(self, event: RuntimeStarted) -> list[Effect]:
        return self.runtime.fire("runtime_started", event)

    def _on_fallback(self, event: ModelFellBack) -> list[Effect]:
        return self.notices_routing.fell_back(event)

    def _on_mcp_servers(self, event: McpServersReported) -> list[Effect]:
        return self.notices_routing.servers_reported(event.servers)

    def _on_auth(self, event: AuthStatusReported) -> list[Effect]:
        return self.runtime.fire("auth_status_reported", event)

    def _on_rate_limit(self, event: RateLimitReported) -> list[Effect]:
        self.idle.note_rate_limit(event.status)
        return self.limits.reported(event)

    def _on_context(self, event: ContextMeasured) -> list[Effect]:
        self.idle.note_context(event.tokens, event.cache_ttl)
        return []

    def _on_worker_shutdown(self, event: WorkerShuttingDown) -> list[Effect]:
        return self.runtime.fire("worker_shutting_down", event)

    def _on_credentials(self, event: CredentialsChanged) -> list[Effect]:
        return self.runtime.fire("credentials_changed", event)

    # --- time (the deadlines: `session_clock.py`) -----------------------------------------

    def _on_output(self, event: OutputReceived) -> list[Effect]:
        self._clock.heard(event.now)
        return []

    def _on_deadline(self, event: DeadlineReached) -> list[Effect]:
        # WARNING: hand-coded, not drawn: the clock says which deadlines passed, each fires
        # its own trigger of the turn's table.
        effects: list[Effect] = []
        if self._clock.grace_due(event.now):
            effects += self._fire("cancel_grace_expired", CancelGraceExpired())
        waited = self._clock.stall_due(event.now, self.turn.state)
        if waited is not None:
            silent = ClaudeSilent(epoch=self.ledger.epoch, waited_seconds=waited)
            effects += self._fire("claude_silent", silent)
        effects += self.limits.deadline_reached(event.now, event.wall)
        return effects + self.idle.deadline_reached(event.now)
