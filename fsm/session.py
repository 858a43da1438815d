"""The session core: Claude's signals and the client's requests in, ordered effects out.

Theory of operation: one `SessionCore` per ACP session. `handle(event)` does these things and
decides nothing else itself:
1. It drops what a replaced runtime says late (docs/decisions.md#delivery): every Claude event
   carries its epoch.
2. It routes the event: turn events go to the turn machine (`turn.py`, whose table decides and
   whose callbacks make the effects); delivery reports, replayed history, runtime starts and
   Claude's account reports go to the ledger (`ledger.py`, whose incidents decide recovery);
   a model fallback, MCP server statuses, auto mode and fast mode go to the notice machine
   (`notices.py`).
3. It keeps the clock the shell lends it (`SessionClock`, below): `next_deadline()` says when the
   core next needs waking (the stall watchdog, the interrupt's grace period, a usage limit's
   reset, the idle compaction's deadline), and `DeadlineReached` turns into the turn
   machine's `claude_silent` or `cancel_grace_expired`, a limit's reset (`SessionLimits`, below,
   docs/decisions.md#early-limit-warning and #limit-that-resets), or the idle compaction's
   `idle_deadline_reached`.
4. It keeps a refusal's explanation said ahead of the refusal (`RefusalNote`, below) and
   hands it to the refusal message or result it was for.
5. It tells the idle compaction (`idle_compaction.py`, through `SessionIdle` below) when the
   session went idle (its last turn answered, nothing queued) and of each client prompt.

Claude's process has its own machine (`runtime.py`, owned by the turn, whose rows read it):
runtime starts, losses, shutdowns and new credentials are its triggers, and every `SendPrompt`
the turn makes passes through its `prompt_dispatched` rows, which decide whether the prompt
goes to a fresh process (docs/decisions.md#session-outlives-its-claude: after a lost process
the next prompt resumes the session in a new one). Its state also names a retired epoch, whose
late words the stale filter drops.

Triggers fired from code here (WARNING: hand-coded, not drawn): `turn_went_busy` after a sign
of life, the `transport_lost` made up when a prompt was sent to a process already gone, the
runtime's `prompt_dispatched` for each `SendPrompt`, and the timer's demux of one
`DeadlineReached` into `cancel_grace_expired`, `claude_silent` and `idle_deadline_reached`,
and the idle compaction's `session_went_idle` (derived here) and `prompt_received`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from fsm.effects import (
    Effect,
    LogNotice,
    PublishRecord,
    SendPrompt,
    ShowResult,
    StartFreshContext,
)
from fsm.errors import FsmError
from fsm.events import (
    AnswerStreamStarted,
    AssistantMessageReceived,
    AuthStatusReported,
    AutoModeFellBackAtStart,
    AutoModeUnavailable,
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
    FastModeTurnedOff,
    FreshContextReady,
    HistoryFailureFound,
    IdleSettingsRead,
    McpServersPolled,
    McpServersReconnected,
    McpServersReported,
    McpSignInEnded,
    ModelChosen,
    ModelFellBack,
    OutputReceived,
    PromptReceived,
    PromptRequested,
    PromptSent,
    RateLimitReported,
    RefusalExplained,
    ResultReceived,
    RuntimeStarted,
    TransportLost,
    WorkerShuttingDown,
)
from fsm.idle_compaction import IdleCompaction, IdlePolicy
from fsm.ledger import Ledger
from fsm.limits import LimitWatch, sane_reset
from fsm.notices import Notices
from fsm.records import FailureRecord, redact
from fsm.turn import TURN_TRIGGERS, Turn, TurnOutcome, TurnState

if TYPE_CHECKING:
    from fsm.air.session_index import OwnActivity

__all__ = ["CANCEL_GRACE_SECONDS", "SIGNS_OF_LIFE", "RefusalNote", "SessionClock", "SessionCore"]

# Events that are not the turn's but are signs that Claude is at work on the prompt: after
# their own route the core also fires the turn's `turn_went_busy`.
SIGNS_OF_LIFE = (ModelFellBack, AuthStatusReported, RateLimitReported, WorkerShuttingDown)


class SessionCore:
    """Pure decision core for one session. Not thread-safe; the shell feeds it in order.

    `capable`: errors become records (sessionFailure or agentError negotiated). `notices`:
    warnings and notices become records too (sessionFailure negotiated; defaults to `capable`).
    `idle`: the idle compaction's settings (None: the session never compacts when idle).
    `background_subagents`: the client declared AIR's `backgroundSubagents`, so a turn is
    answered at its result even while its background subagents run. `prompt_queueing`: a
    prompt that comes while a turn runs goes to Claude at once (as the reference adapter does:
    docs/reference-adapter.md#prompt-queueing);
    off, it waits for the turn before it. `mcp_sign_in`: the client's MCP servers signed in
    to when they need it (`fsm.claude.mcp_sign_in.sign_in_servers`).
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
        background_subagents: bool = False,
        prompt_queueing: bool = True,
        mcp_sign_in: frozenset[str] = frozenset(),
    ) -> None:
        self.session_id = session_id
        self.capable = capable
        # Values that must never reach a client (the user's home, credentials in the
        # environment); the shell reads them, the core only masks them.
        self._private = private
        self._started_private = private  # what `CredentialsChanged.private` adds to
        self.ledger = Ledger(session_id=session_id, epoch=epoch)
        notices = capable if notices is None else notices
        self.turn = Turn(
            ledger=self.ledger,
            capable=capable,
            notices=notices,
            private=private,
            started=started,
            background_subagents=background_subagents,
            prompt_queueing=prompt_queueing,
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
            declared_acp_notices=acp_notices,
            sign_in_servers=mcp_sign_in,
        )
        self.idle = SessionIdle(policy=idle, turn=self.turn, clock=self._clock)
        self.refusal = RefusalNote()  # docs/decisions.md#refusal-explanation
        # What the AIR session index shows beside the turn (docs/decisions.md#session-index).
        self._cost_usd: float | None = None
        self._routes: dict[type[Event], Callable[..., list[Effect]]] = {
            ContextMeasured: self._on_context,
            IdleSettingsRead: self._on_idle_settings,
            ModelChosen: lambda _: [],  # only the idle compaction hears of it (`after`)
            DeliveryConfirmed: self._on_confirmed,
            DeliveryFailed: self._on_failed,
            HistoryFailureFound: self._on_history,
            RuntimeStarted: self._on_started,
            ModelFellBack: self._on_fallback,
            McpServersReported: self._on_mcp_servers,
            McpServersPolled: self._on_mcp_poll,
            McpSignInEnded: self._on_notice,
            McpServersReconnected: self._on_notice,
            AuthStatusReported: self._on_auth,
            RateLimitReported: self._on_rate_limit,
            RefusalExplained: self._on_refusal_explained,
            WorkerShuttingDown: self._on_worker_shutdown,
            OutputReceived: self._on_output,
            DeadlineReached: self._on_deadline,
            CredentialsChanged: self._on_credentials,
            # Auto mode and fast mode: the notice machine decides when and how they are told.
            PromptRequested: self._on_notice,
            AutoModeUnavailable: self._on_notice,
            AutoModeFellBackAtStart: self._on_notice,
            FastModeTurnedOff: self._on_notice,
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
    def turn_live(self) -> bool:
        """A turn is live: its prompt was sent and is not answered yet."""
        return self.turn.live

    @property
    def working(self) -> bool:
        """Claude is at work for the session: a turn is live, being sent or waits its turn."""
        return self.idle.busy()

    @property
    def runtime_lost(self) -> bool:
        return self.runtime.is_lost

    def active(self) -> list[FailureRecord]:
        return self.ledger.active()

    def activity(self, *, asking: bool = False) -> OwnActivity:
        """What JetBrains AIR's session index shows of this session: running while a turn is
        live (`requires_action` while it waits for the user's answer, `asking`), else idle,
        `error` when its last turn failed (a cancel is no failure); and what it has cost."""
        # The index's own module, loaded when the index first asks: a session the index never
        # sees does not pay for it at its opening (docs/performance.md).
        from fsm.air.session_index import OwnActivity

        state = ("requires_action" if asking else "running") if self.turn.live else "idle"
        failed = self.turn.outcome is TurnOutcome.FAILED
        return OwnActivity(state=state, last_turn_failed=failed, cost_usd=self._cost_usd)

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
        effects = self.idle.after(event, busy, self._handle(event))
        recovered = self.ledger.take_recovered()
        if recovered:
            # Recovery publishes nothing (docs/decisions.md#recovery); the log is where it shows.
            effects.append(LogNotice(message=f"no longer active: {sorted(recovered)}"))
        return effects

    def heard_alone(self, epoch: str, now: float) -> bool:
        """Take `OutputReceived(epoch=epoch, now=now)` at once where it changes nothing but the
        stall clock, and say so (False: nothing was taken; `handle` the event as any other).

        That is a frame from the current runtime, heard no earlier than the silence already
        reported (the shell's clock is monotonic): `handle` would only start the stall clock
        again (no turn trigger, no change to idleness, nothing recovered, no effect), and the
        stall deadline moves later, so the deadline the shell waits for still comes first (it
        need not ask `next_deadline` again). It is the fact of every streamed delta, which is
        why it has this way in, without an event built or a list of no effects performed."""
        if epoch != self.ledger.epoch or self.runtime.is_retired:
            return False
        if not self._clock.moves_later(now):
            return False
        self._clock.heard(now)
        return True

    def _handle(self, event: Event) -> list[Effect]:
        if isinstance(event, ClaudeEvent) and self._is_stale(event):
            dropped = LogNotice(message=f"dropped {type(event).__name__} from a replaced runtime")
            if isinstance(event, ResultReceived):
                # A replaced process's result is no prompt's (docs/decisions.md#result-owner).
                return [ShowResult(), dropped]
            return [dropped]
        if event.trigger in TURN_TRIGGERS:
            return self._fire(event.trigger, self.refusal.attach(event))
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
        if isinstance(event, ResultReceived) and event.total_cost_usd is not None:
            self._cost_usd = event.total_cost_usd
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

    def _on_notice(self, event: Event) -> list[Effect]:
        return self.notices_routing.fire(event.trigger, event)

    def _on_mcp_servers(self, event: McpServersReported) -> list[Effect]:
        return self.notices_routing.servers_reported(event.servers)

    def _on_mcp_poll(self, event: McpServersPolled) -> list[Effect]:
        return self.notices_routing.servers_polled(event.servers)

    def _on_auth(self, event: AuthStatusReported) -> list[Effect]:
        return self.runtime.fire("auth_status_reported", event)

    def _on_rate_limit(self, event: RateLimitReported) -> list[Effect]:
        self.idle.note_rate_limit(event.status)
        return self.limits.reported(event)

    def _on_idle_settings(self, event: IdleSettingsRead) -> list[Effect]:
        self.idle.settings_read(event.policy)
        return []

    def _on_context(self, event: ContextMeasured) -> list[Effect]:
        self.idle.note_context(event.tokens, event.cache_ttl)
        return []

    def _on_refusal_explained(self, event: RefusalExplained) -> list[Effect]:
        self.refusal.note(event.explanation)
        return []

    def _on_worker_shutdown(self, event: WorkerShuttingDown) -> list[Effect]:
        return self.runtime.fire("worker_shutting_down", event)

    def _on_credentials(self, event: CredentialsChanged) -> list[Effect]:
        if event.private is not None:
            # A provider's header values are masked as the environment's credentials are
            # (docs/decisions.md#provider-requests).
            masked = tuple(dict.fromkeys((*self._started_private, *event.private)))
            self._private = self.turn.private = self.notices_routing.private = masked
        return self.runtime.fire("credentials_changed", event)

    # --- time (the deadlines: `SessionClock`) ---------------------------------------------

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


# --- the session's helpers: its clock, its idle compaction, its usage limits --------------


class RefusalNote:
    """A refusal's explanation Claude Code said ahead of the refusal.

    docs/decisions.md#refusal-explanation: Claude Code may say why the model refused only in a
    `system/model_refusal_no_fallback` frame (`RefusalExplained`), before the refusal message,
    or before a result that no refusal message came ahead of. The note is kept until then: the
    next refusal message carries it (unless it brings an explanation of its own), and failing
    that the result does when it is a refusal. Either takes the note, and so does any other
    result: a note no refusal came to use is not carried into a later turn.
    """

    def __init__(self) -> None:
        self.kept: str | None = None

    def note(self, explanation: str) -> None:
        self.kept = explanation

    def attach(self, event: Event) -> Event:
        """`event`, carrying the kept explanation when it is the refusal the note was for."""
        if isinstance(event, AssistantMessageReceived) and event.stop_reason == "refusal":
            kept, self.kept = self.kept, None
            if kept and not event.refusal_explanation:
                return replace(event, refusal_explanation=kept)
        elif isinstance(event, ResultReceived):
            kept, self.kept = self.kept, None
            if kept and event.stop_reason == "refusal" and not event.refusal_explanation:
                return replace(event, refusal_explanation=kept)
        return event


# After an interrupt, how long Claude gets to end the turn before its process is stopped.
CANCEL_GRACE_SECONDS = 10.0

# A live turn that still waits on Claude (a cancelled one has its own deadline).
_WATCHED = frozenset(
    {TurnState.PROMPT_SENT, TurnState.RUNNING, TurnState.RETRYING, TurnState.FAILING}
)


class SessionClock:
    """The stall and grace deadlines of one session (monotonic seconds).

    The core never reads a clock; the shell lends it monotonic seconds in events
    (`PromptSent.now`, `OutputReceived.now`, `CancelRequested.now`, `DeadlineReached.now`).
    `SessionClock` keeps the two deadlines those times set and nothing else:
    - the stall watchdog: while a turn waits on Claude, every further `stall_seconds` of
      silence since Claude was last heard is due once (the turn machine decides what silence
      means);
    - the interrupt's grace period: `CANCEL_GRACE_SECONDS` after the cancel that sent the one
      interrupt, for as long as the turn machine keeps it armed.
    """

    def __init__(self, stall_seconds: float | None) -> None:
        self._stall_seconds = stall_seconds
        self._last_heard: float | None = None
        self._stall_marks = 0  # stall deadlines already reported since Claude was last heard
        self._grace_deadline: float | None = None

    @property
    def last_heard(self) -> float | None:
        """When Claude was last heard from (or a prompt sent), if the shell keeps time."""
        return self._last_heard

    def heard(self, now: float | None) -> None:
        """Claude was heard from (or a prompt was sent) at `now`: the silence starts again."""
        self._last_heard, self._stall_marks = now, 0

    def moves_later(self, now: float) -> bool:
        """Whether hearing Claude at `now` can only move the stall deadline later (or leave
        it): Claude was heard before, and `now` is no earlier than the last stall deadline
        already reported, so `now + stall` is no earlier than the next one."""
        heard = self._last_heard
        return heard is not None and now >= heard + (self._stall_seconds or 0.0) * self._stall_marks

    def follow_grace(self, armed: bool, cancelled_at: float | None) -> None:
        """Track the turn's grace period: it starts at the first cancel (`cancelled_at`) that
        finds it armed and is dropped as soon as the turn disarms it."""
        if armed and self._grace_deadline is None and cancelled_at is not None:
            self._grace_deadline = cancelled_at + CANCEL_GRACE_SECONDS
        if not armed:
            self._grace_deadline = None

    def next_deadline(self, state: TurnState) -> float | None:
        """When the core next needs a `DeadlineReached` while the turn is in `state`, or None."""
        deadlines = [
            d for d in (self._grace_deadline, self._stall_deadline(state)) if d is not None
        ]
        return min(deadlines, default=None)

    def grace_due(self, now: float) -> bool:
        """Whether the grace period is over at `now` (it is then spent)."""
        if self._grace_deadline is None or now < self._grace_deadline:
            return False
        self._grace_deadline = None
        return True

    def stall_due(self, now: float, state: TurnState) -> int | None:
        """The whole seconds Claude has been silent, when a stall deadline has passed at `now`
        (it is then reported), else None."""
        stall = self._stall_deadline(state)
        if stall is None or now < stall or self._last_heard is None:
            return None
        self._stall_marks += 1
        return max(1, int(now - self._last_heard))

    def _stall_deadline(self, state: TurnState) -> float | None:
        stall, heard = self._stall_seconds, self._last_heard
        if stall is None or heard is None or state not in _WATCHED:
            return None
        return heard + stall * (self._stall_marks + 1)


class SessionIdle:
    """The session core's part in idle compaction (`idle_compaction.py`, whose table decides).

    It derives the machine's facts from the turn: the session *went idle* when an event left it
    with no turn live, none being dispatched and none queued, after it had one; Claude's last
    top-level request started when its `message_start` was heard (the session clock's time);
    it is *busy* at the deadline when it has a turn or cannot take a prompt (a broken session,
    a Claude process that is gone, going or replaced). Every client prompt is the machine's
    `prompt_received`; Claude's reports of the context size, the cache's lifetime and the rate
    limit are its data. With no policy (a core built without one) the session never compacts
    when idle.
    """

    def __init__(self, *, policy: IdlePolicy | None, turn: Turn, clock: SessionClock) -> None:
        self._turn, self._clock = turn, clock
        self.machine = IdleCompaction(policy) if policy is not None else None

    def busy(self) -> bool:
        """A turn is live, being dispatched or queued."""
        turn = self._turn
        return turn.live or turn.dispatching is not None or bool(turn.queued or turn.pushed)

    def after(self, event: Event, was_busy: bool, effects: list[Effect]) -> list[Effect]:
        """The effects of `event` with the idle compaction's own: a prompt ends the idle
        period (before the turn's effects), an answered last turn starts one (after them)."""
        machine = self.machine
        if machine is None:
            return effects
        if isinstance(event, PromptReceived):
            effects = machine.prompted(event.turn_id, by_adapter=event.by_adapter) + effects
        elif isinstance(event, ModelChosen):
            effects = effects + machine.chose_model()
        elif isinstance(event, CancelRequested):
            effects = effects + machine.cancelled()
        elif isinstance(event, AnswerStreamStarted):
            # A top-level `message_start`: the request began when Claude was last heard.
            machine.note_request(self._clock.last_heard)
        if was_busy and not self.busy():
            # WARNING: hand-coded, not drawn: the machine's `session_went_idle` is derived.
            effects = effects + machine.went_idle(self._clock.last_heard)
        return effects

    def next_deadline(self) -> float | None:
        return self.machine.deadline if self.machine is not None else None

    def deadline_reached(self, now: float) -> list[Effect]:
        if self.machine is None:
            return []
        turn = self._turn
        runtime = turn.runtime
        gone = runtime.is_lost or runtime.is_shutting_down or runtime.is_retired
        unable = self.busy() or turn.state is TurnState.BROKEN or gone
        return self.machine.deadline_reached(now, busy=unable)

    def note_context(self, tokens: int, cache_ttl: str | None) -> None:
        if self.machine is not None:
            self.machine.note_context(tokens, cache_ttl)

    def note_rate_limit(self, status: str | None) -> None:
        if self.machine is not None:
            self.machine.note_rate_limit(status)

    def settings_read(self, policy: IdlePolicy) -> None:
        if self.machine is not None:
            self.machine.policy = policy

    def close(self) -> None:
        if self.machine is not None:
            self.machine.detach()


class SessionLimits:
    """The session core's part in usage limits (docs/decisions.md#early-limit-warning and
    #limit-that-resets): what a `rate_limit_event` and the clock mean.

    - A `RateLimitReported` goes to the windows' warning machine (`limits.py`), and the reset
      time of a rejected window becomes the turn's reset hint (the failure that follows carries
      it, and the `agent_error` dialect shows it) or moves the reset an earlier failure awaits.
    - Claude Code reports a window again only when its status changes, so a rejection's reset
      time is remembered until it passes or the window is allowed again: a prompt sent in
      between fails on the same limit, and its failure carries the same reset.
    - The core's next deadline includes the earliest warning reset and the earliest reset an
      active limit failure awaits (sessionFailure clients only: no other dialect shows a
      reset); at a deadline, warnings whose reset passed retire and due failures get their
      reset revision.
    """

    def __init__(self, *, ledger: Ledger, turn: Turn, acp_notices: bool) -> None:
        self._ledger, self._turn = ledger, turn
        self._records = turn.notices  # sessionFailure: warnings and resets are records
        self.watch = LimitWatch(
            ledger=ledger, records=turn.notices, notices=acp_notices and not turn.notices
        )
        self._rejected_until: int | None = None  # epoch seconds

    def reported(self, event: RateLimitReported) -> list[Effect]:
        effects = self.watch.reported(event)
        if event.status == "allowed":
            self._rejected_until = None
        reset = _rejected_reset(event)
        if reset is not None:
            self._rejected_until = reset
            self._turn.reset_at_ms = reset * 1000
            self._ledger.move_reset(reset * 1000)
        return effects

    def prompt_sent(self, event: PromptSent) -> None:
        """A new turn: it starts with no hints, except a rejection whose reset is still ahead."""
        until = self._rejected_until
        wall = None if event.now is None else self.watch.wall_at(event.now, None)
        if until is not None and (wall is None or wall < until):
            self._turn.reset_at_ms = until * 1000

    def next_deadline(self) -> float | None:
        """Monotonic seconds of the next reset the core must act on, or None."""
        walls = [self.watch.next_reset()]
        ms = self._ledger.next_reset_ms() if self._records else None
        if ms is not None:
            walls.append(ms / 1000)
        earliest = min((w for w in walls if w is not None), default=None)
        return None if earliest is None else self.watch.monotonic_at(earliest)

    def deadline_reached(self, now: float, wall: float | None) -> list[Effect]:
        self.watch.note_clocks(now, wall)
        at = self.watch.wall_at(now, wall)
        if at is None:
            return []
        effects = self.watch.passed(at)
        if self._rejected_until is not None and at >= self._rejected_until:
            self._rejected_until = None
        if self._records:
            for record in self._ledger.take_resets(int(at * 1000)):
                effects.append(PublishRecord(record=record, agent_error=False))
        return effects

    def close(self) -> None:
        self.watch.close()


def _rejected_reset(event: RateLimitReported) -> int | None:
    """When the rejected limit lets the user in again (epoch seconds): the latest reset of a
    rejected window that makes sense, or None."""
    resets = [w.resets_at for w in event.windows if w.status == "rejected"]
    if event.status == "rejected":
        resets.append(event.resets_at)
    sane = [r for r in resets if r is not None and sane_reset(r, event.wall)]
    return max(sane, default=None)
