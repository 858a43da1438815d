"""Work done ahead of need: imports and `acp` model builds that a later request would otherwise
do on its way, done at moments nobody waits for (docs/performance.md, "Work done ahead").

Each step is named and idempotent: a request that needs a step's result before the step was
done does that work itself (an import, a model built on its first use,
`lean_imports.prepare_acp_schema`), and the step is then next to free. Steps are done in the
order they were added, at two kinds of moment:

- `while_claude_starts`: back to back while a session waits for its Claude to start up and
  Claude has written nothing yet, a turn of the event loop between steps. What is left when
  Claude speaks waits for a quiet moment, so that the session's answer does not wait for it.
- `when_quiet`: one step each time the client has left the agent alone (no request of its
  open, no input waiting) for `QUIET_SECONDS`; then the work asked for at quiet moments only
  (`when_client_quiet`: the sign-in read, which starts a process), once for each time asked.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable, Iterable

__all__ = ["MORE", "QUIET_SECONDS", "Step", "WorkAhead"]

log = logging.getLogger(__name__)

# How long the client must have left the agent alone before each step done `when_quiet`.
QUIET_SECONDS = 0.01
# While the client keeps the agent busy, how long `when_quiet` waits at most between looks:
# a prompt that streams for minutes is looked in on a few times a second, not every 10 ms.
BUSY_BACKOFF_SECONDS = 0.5

# A step: its name (an import's module, or `module:Model` for an `acp` model) and its work.
# Work that returns `MORE` did a part of itself and stays first, to be done again at the next
# moment (work split into short parts, so that no one moment runs long).
Step = tuple[str, Callable[[], object]]
MORE = object()


class WorkAhead:
    """The steps still to do, in order, and the moments they are done at."""

    def __init__(self) -> None:
        self._steps: dict[str, Callable[[], object]] = {}  # in the order added
        self._done: set[str] = set()
        # Work for quiet moments only, done each time it is asked for (`when_client_quiet`).
        self._quiet_work: dict[str, Callable[[], object]] = {}
        self._added = asyncio.Event()

    def add(self, steps: Iterable[Step], *, first: bool = False) -> None:
        """Queue `steps` after those queued (`first`: before them, in their own order, a step
        queued already moved up), leaving out any done already."""
        fresh = {name: work for name, work in steps if name not in self._done}
        if first:
            self._steps = {**fresh, **{k: v for k, v in self._steps.items() if k not in fresh}}
        else:
            self._steps.update({k: v for k, v in fresh.items() if k not in self._steps})
        if self._steps:
            self._added.set()

    def when_client_quiet(self, name: str, work: Callable[[], object]) -> None:
        """Do `work` at the next quiet moment, never while a session's Claude starts (work that
        starts a process of its own, which would compete with Claude's start-up and hold the
        event loop up while it forks); asked for again before then, it is done once."""
        self._quiet_work[name] = work
        self._added.set()

    def pending(self) -> tuple[str, ...]:
        """The names of the steps still to do, in order."""
        return tuple(self._steps)

    def done(self, name: str) -> bool:
        """Whether the step `name` was done here."""
        return name in self._done

    def _do_next(self) -> None:
        name = next(iter(self._steps))
        work = self._steps.pop(name)
        if self._do(name, work) is MORE:
            self._steps = {name: work, **self._steps}
        else:
            self._done.add(name)

    def _do(self, name: str, work: Callable[[], object]) -> object:
        # No collection in the middle of an import. Nothing is frozen here, unlike the first
        # session's imports (`lean_imports.resume_collection`): sessions live by now, and what
        # is frozen is never collected, their cycles included.
        paused = gc.isenabled()
        gc.disable()
        try:
            return work()
        except Exception:  # the request that needs it says what is wrong
            log.debug("could not do %s ahead", name, exc_info=True)
            return None
        finally:
            if paused:
                gc.enable()

    async def while_claude_starts(self, silent: Callable[[], bool]) -> None:
        """Do steps back to back while `silent()` (the session's Claude has written nothing
        yet); a turn of the event loop before each, so that what Claude writes is seen before
        the next step begins. Returns when no step is left or Claude has spoken."""
        while self._steps:
            await asyncio.sleep(0)
            # Another opening's wait (or a quiet moment) may have taken the last step meanwhile.
            if not self._steps or not silent():
                return
            self._do_next()

    async def when_quiet(self, quiet: Callable[[], bool], quiet_for: float = QUIET_SECONDS) -> None:
        """Forever: a step each time `quiet()` held after `quiet_for` seconds; while there is
        none to do, wait for one to be added. While `quiet()` does not hold, look again less
        and less often (up to `BUSY_BACKOFF_SECONDS`)."""
        wait = quiet_for
        while True:
            if not self._steps and not self._quiet_work:
                self._added.clear()
                await self._added.wait()
            await asyncio.sleep(wait)
            if not quiet():
                wait = min(max(wait * 2, quiet_for), BUSY_BACKOFF_SECONDS)
                continue
            wait = quiet_for
            if self._steps:
                self._do_next()
            elif self._quiet_work:
                name = next(iter(self._quiet_work))
                self._do(name, self._quiet_work.pop(name))
