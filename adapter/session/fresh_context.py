"""A plan exit that clears the context: the live turn goes on in a fresh Claude session.

Theory of operation (as the reference adapter does it; the lifecycle is the core's: the
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
   "markdown", planId: "plan-mode", content}}` if it declared `plan`, and the ExitPlanMode card
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
from adapter.claude.process import ClaudeRuntime, RuntimeStartError
from adapter.claude.prompt_content import claude_user_message
from adapter.claude.runtime_settings import RuntimeSettings
from adapter.controls.controls import SessionControls
from adapter.session.answer import Answer
from adapter.session.turn_hooks import TurnHooks
from fsm import Event, FreshContextChosen, FreshContextReady, RuntimeStartFailed, TransportLost

__all__ = ["CONTINUATION_PREFIX", "FreshContext"]

log = logging.getLogger(__name__)

CONTINUATION_PREFIX = "Implement the following plan:\n\n"


@dataclass(frozen=True, slots=True)
class _Pending:
    tool_id: str  # the ExitPlanMode call whose card is completed in the fresh context
    plan: str
    mode: str


class FreshContext:
    # Provided by `Session` (and `ClaudeSide`).
    session_id: str
    claude_session_id: str
    _settings: RuntimeSettings
    _resume: bool
    _tg: TaskGroup
    _runtime: ClaudeRuntime | None
    _answers: dict[str, Answer]
    controls: SessionControls
    view: TurnHooks
    _clock: Callable[[], float]
    _fresh: _Pending | None = None
    # Set while the fresh context's process is being started: a prompt waits for it instead
    # of starting one of its own.
    _starting_fresh: anyio.Event | None = None

    async def feed(self, event: Event, message: Any = None) -> None:
        raise NotImplementedError  # pragma: no cover

    async def start(self, spawned: ClaudeRuntime | None = None) -> None:
        raise NotImplementedError  # pragma: no cover

    async def choose_fresh_context(self, tool_id: str, plan: str, mode: str) -> None:
        """The user chose to go on in a fresh context (step 1)."""
        self._fresh = _Pending(tool_id=tool_id, plan=plan, mode=mode)
        await self.feed(FreshContextChosen())

    async def _restart_fresh(self, turn_id: str) -> None:
        """Step 2, in its own task (starting Claude is slow; the core goes on meanwhile)."""
        pending = self._fresh
        starting = self._starting_fresh = anyio.Event()
        answer = self._answers.get(turn_id)
        if answer is not None:
            answer.epoch = None  # no longer the old process's to answer when it ends
        try:
            old, self._runtime = self._runtime, None
            if old is not None:
                await old.close()  # its last words are dropped: the core retired its epoch
            self.claude_session_id = str(uuid.uuid4())
            self._resume = False  # nothing to resume: the fresh context has no transcript
            session_links.relink(self.session_id, self.claude_session_id, self._settings.env)
            if pending is not None and pending.mode in self.controls.config.modes:
                self.controls.config.mode = pending.mode  # its `--permission-mode`
            try:
                await self.start()
            except RuntimeStartError as exc:
                await self.feed(RuntimeStartFailed(reason=str(exc)))
                return
        finally:
            starting.set()
            self._starting_fresh = None
        await self.feed(FreshContextReady(now=self._clock()))

    async def _send_continuation(self, turn_id: str) -> None:
        """Step 3: the publications, then the plan to the fresh context as turn `turn_id`."""
        pending, self._fresh = self._fresh, None
        runtime = self._runtime
        if pending is None or runtime is None:
            # Cannot happen (the core asks only after a choice, once the process is up); should
            # it, the turn hears a loss rather than wait forever. Not fed here: under the lock.
            log.error("session %s: a fresh context with no plan to send", self.session_id)
            lost = TransportLost(epoch=runtime.epoch if runtime else "unstarted")
            self._tg.start_soon(self.feed, lost)
            return
        await self.controls.mode_changed(self.controls.config.mode)
        # The plan as `plan_update` only for a client that declared `plan` (the reference's).
        await self.view.context_cleared(
            pending.tool_id, pending.plan if self.controls.plan_updates else None
        )
        answer = self._answers.get(turn_id)
        if answer is not None:
            answer.epoch = runtime.epoch  # the fresh process's safety net now covers it
        content = [{"type": "text", "text": CONTINUATION_PREFIX + pending.plan}]
        self._resume = True
        # Not under the feed lock: a send can wait on Claude's pipe.
        self._tg.start_soon(
            self._send_to_fresh, runtime, claude_user_message(content, turn_id=turn_id)
        )

    async def _send_to_fresh(self, runtime: ClaudeRuntime, message: dict[str, Any]) -> None:
        try:
            await runtime.send(message)
        except Exception:
            log.warning("session %s: sending the plan failed", self.session_id, exc_info=True)
            await self.feed(TransportLost(epoch=runtime.epoch))
