"""The session core's part in idle compaction: when the session went idle, and what it can do.

Theory of operation: `SessionIdle` is `SessionCore`'s one helper for the idle compaction
(`idle_compaction.py`, whose table decides). It derives the machine's facts from the turn:
the session *went idle* when an event left it with no turn live, none being dispatched and
none queued, after it had one; Claude's last top-level request started when its
`message_start` was heard (the session clock's time); it is *busy* at the deadline when it
has a turn or cannot take a prompt (a broken session, a Claude process that is gone, going or
replaced). Every client prompt is the machine's `prompt_received`; Claude's reports of the
context size, the cache's lifetime and the rate limit are its data. With no policy (a core
built without one) the session never compacts when idle.
"""

from __future__ import annotations

from fsm.effects import Effect
from fsm.events import AnswerStreamStarted, CancelRequested, Event, ModelChosen, PromptReceived
from fsm.idle_compaction import IdleCompaction, IdlePolicy
from fsm.session_clock import SessionClock
from fsm.turn import Turn, TurnState

__all__ = ["SessionIdle"]


class SessionIdle:
    def __init__(self, *, policy: IdlePolicy | None, turn: Turn, clock: SessionClock) -> None:
        self._turn, self._clock = turn, clock
        self.machine = IdleCompaction(policy) if policy is not None else None

    def busy(self) -> bool:
        """A turn is live, being dispatched or queued."""
        turn = self._turn
        return turn.live or turn.dispatching is not None or bool(turn.queued)

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

    def close(self) -> None:
        if self.machine is not None:
            self.machine.detach()
