"""The session core's part in usage limits: what a `rate_limit_event` and the clock mean.

Theory of operation: `SessionLimits` is `SessionCore`'s one helper for
docs/decisions.md#early-limit-warning and #limit-that-resets:
- a `RateLimitReported` goes to the windows' warning machine (`limits.py`), and the reset time
  of a rejected window becomes the turn's reset hint (the failure that follows carries it, and
  the `agent_error` dialect shows it) or moves the reset an earlier failure awaits;
- Claude Code reports a window again only when its status changes, so a rejection's reset time
  is remembered until it passes or the window is allowed again: a prompt sent in between fails
  on the same limit, and its failure carries the same reset;
- the core's next deadline includes the earliest warning reset and the earliest reset an
  active limit failure awaits (sessionFailure clients only: no other dialect shows a reset);
  at a deadline, warnings whose reset passed retire and due failures get their reset revision.
"""

from __future__ import annotations

from fsm.effects import Effect, PublishRecord
from fsm.events import PromptSent, RateLimitReported
from fsm.ledger import Ledger
from fsm.limits import LimitWatch, sane_reset
from fsm.turn import Turn

__all__ = ["SessionLimits"]


class SessionLimits:
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
