"""The session core's clock: when the core next needs waking, and which deadline has passed.

Theory of operation: the core never reads a clock; the shell lends it monotonic seconds in
events (`PromptSent.now`, `OutputReceived.now`, `CancelRequested.now`, `DeadlineReached.now`).
`SessionClock` keeps the two deadlines those times set and nothing else:
- the stall watchdog: while a turn waits on Claude, every further `stall_seconds` of silence
  since Claude was last heard is due once (the turn machine decides what silence means);
- the interrupt's grace period: `CANCEL_GRACE_SECONDS` after the cancel that sent the one
  interrupt, for as long as the turn machine keeps it armed.
"""

from __future__ import annotations

from fsm.turn_states import TurnState

__all__ = ["CANCEL_GRACE_SECONDS", "SessionClock"]

# After an interrupt, how long Claude gets to end the turn before its process is stopped.
CANCEL_GRACE_SECONDS = 10.0

# A live turn that still waits on Claude (a cancelled one has its own deadline).
_WATCHED = frozenset(
    {TurnState.PROMPT_SENT, TurnState.RUNNING, TurnState.RETRYING, TurnState.FAILING}
)


class SessionClock:
    """The stall and grace deadlines of one session (monotonic seconds)."""

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
