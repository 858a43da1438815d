"""A plan exit that clears the context: the live turn goes on in a fresh Claude session.

Theory of operation (as the reference adapter does it, docs/reference-adapter.md#clear-context;
the lifecycle is the core's: the
turn machine's RESETTING rows and the runtime machine's `fresh_context_requested`):
1. The user picks "Yes, clear context ..." (`PermissionBroker._leave_plan`): the plan and the
   chosen mode are kept here, the core hears `FreshContextChosen`, and Claude is told no, with
   an interrupt, so that its process ends the turn.
2. That interrupted result is the core's cue (`StartFreshContext`, which retires the old
   process): the old process is closed, a new Claude session id is linked to the ACP id
   (durably, `adapter.claude.session_links`), and a process is started for it with nothing
   resumed, `--permission-mode <mode>` and the session's current model, effort, MCP servers,
   folders and system prompt (`SessionControls.launch`). The ACP id stays.
3. Once it is up the core hears `FreshContextReady`; if the turn still waits for it
   (`SendContinuation`), the client gets, in order, `current_mode_update`,
   `config_option_update`, `usage_update {used: 0}`, the plan as `plan_update {plan: {type:
   "markdown", planId, content}}` if it declared `plan` (`planId` `plan-mode`, an AIR client's
   `plan-mode:<the call's id>`), and the ExitPlanMode card
   `completed`, and
   the new Claude gets "Implement the following plan:\\n\\n<plan>" as the same turn (its uuid),
   whose result answers the same `session/prompt`, with the turn's usage carried over.
A cancel before that answers the prompt `cancelled` (the core's row) and no plan is sent; a
fresh process that fails to start fails the turn with a clear error, answered once. Either way
the ACP session goes on in the new Claude session at its next prompt.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import TaskGroup

from adapter.claude import session_links
from adapter.claude.claude_runtime import ClaudeRuntime, RuntimeStartError
from adapter.claude.prompt_content import claude_user_message
from adapter.claude.runtime_settings import RuntimeSettings
from adapter.controls.session_controls import SessionControls
from adapter.session.claude_side import ClaudeSide, Feed
from adapter.session.live_view import LiveView
from adapter.session.prompt_answer import PromptAnswer
from fsm import FreshContextChosen, FreshContextReady, RuntimeStartFailed, TransportLost

__all__ = ["CONTINUATION_PREFIX", "FreshContext"]

log = logging.getLogger(__name__)

CONTINUATION_PREFIX = "Implement the following plan:\n\n"


@dataclass(frozen=True, slots=True)
class _Pending:
    tool_id: str  # the ExitPlanMode call whose card is completed in the fresh context
    plan: str
    mode: str


class FreshContext:
    """A plan exit's fresh context, from the user's choice to the plan sent to the new Claude."""

    def __init__(
        self,
        *,
        session_id: str,
        settings: RuntimeSettings,
        claude: ClaudeSide,
        task_group: TaskGroup,
        answers: dict[str, PromptAnswer],
        controls: SessionControls,
        view: LiveView,
        clock: Callable[[], float],
        feed: Feed,
    ) -> None:
        self.session_id = session_id
        self._settings = settings
        self._claude = claude  # whose process is replaced, and whose id and resume change
        self._tg = task_group
        self._answers = answers
        self._controls = controls
        self._view = view
        self._clock = clock
        self._feed = feed
        self._pending: _Pending | None = None

    async def choose(self, tool_id: str, plan: str, mode: str) -> None:
        """The user chose to go on in a fresh context (step 1)."""
        self._pending = _Pending(tool_id=tool_id, plan=plan, mode=mode)
        await self._feed(FreshContextChosen())

    async def restart(self, turn_id: str) -> None:
        """Step 2, in its own task (starting Claude is slow; the core goes on meanwhile)."""
        pending, claude = self._pending, self._claude
        starting = claude.starting_fresh = anyio.Event()
        answer = self._answers.get(turn_id)
        if answer is not None:
            answer.epoch = None  # no longer the old process's to answer when it ends
        try:
            old, claude.runtime = claude.runtime, None
            if old is not None:
                await old.close()  # its last words are dropped: the core retired its epoch
            claude.claude_session_id = str(uuid.uuid4())
            claude.resume = False  # nothing to resume: the fresh context has no transcript
            session_links.relink(self.session_id, claude.claude_session_id, self._settings.env)
            if pending is not None and pending.mode in self._controls.config.modes:
                self._controls.config.mode = pending.mode  # its `--permission-mode`
            try:
                await claude.start()
            except RuntimeStartError as exc:
                await self._feed(RuntimeStartFailed(reason=str(exc)))
                return
        finally:
            starting.set()
            claude.starting_fresh = None
        await self._feed(FreshContextReady(now=self._clock()))

    async def send_continuation(self, turn_id: str) -> None:
        """Step 3: the publications, then the plan to the fresh context as turn `turn_id`."""
        from fsm import published_plan

        pending, self._pending = self._pending, None
        runtime = self._claude.runtime
        if pending is None or runtime is None:
            # Cannot happen (the core asks only after a choice, once the process is up); should
            # it, the turn hears a loss rather than wait forever. Not fed here: under the lock.
            log.error("session %s: a fresh context with no plan to send", self.session_id)
            lost = TransportLost(epoch=runtime.epoch if runtime else "unstarted")
            self._tg.start_soon(self._feed, lost)
            return
        await self._controls.mode_changed(self._controls.config.mode)
        # The plan as `plan_update` where the core says so: for a client that declared `plan`
        # (docs/reference-adapter.md#clear-context), as an ordinary approval's.
        shown = published_plan(pending.plan, plan_updates=self._controls.plan_updates)
        await self._view.context_cleared(pending.tool_id, shown)
        answer = self._answers.get(turn_id)
        if answer is not None:
            answer.epoch = runtime.epoch  # the fresh process's safety net now covers it
        content = [{"type": "text", "text": CONTINUATION_PREFIX + pending.plan}]
        self._claude.resume = True
        # Not under the feed lock: a send can wait on Claude's pipe.
        self._tg.start_soon(
            self._send_to_fresh, runtime, claude_user_message(content, turn_id=turn_id)
        )

    async def _send_to_fresh(self, runtime: ClaudeRuntime, message: dict[str, Any]) -> None:
        try:
            await runtime.send(message)
        except Exception:
            log.warning("session %s: sending the plan failed", self.session_id, exc_info=True)
            await self._feed(TransportLost(epoch=runtime.epoch))
