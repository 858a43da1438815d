"""One ACP session: the core's shell. Report facts to the core, perform its effects, repeat.

Every event reaches the core through `feed`, under one lock, and its effects are performed in
order before the next event is fed, so the core sees exactly the order things happened in. The
shell decides nothing: which prompt goes next (and whether Claude's process is replaced first),
when Claude is interrupted or stopped, and when the core next needs waking all come from the
core. Each prompt waits on its own `PromptAnswer`, which exactly one `SettlePrompt`/`RejectPrompt`
fills. An exception in our own code (the core, or this shell) is docs/decisions.md#internal-faults:
logged with its traceback, reported to the core as `InternalFaultOccurred`, which fails the live
turn as `internal_error` and breaks the session; only Claude's own transport failing is "lost".
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Mapping
from typing import Any

import anyio
from acp import RequestError
from acp.schema import (
    PromptResponse,
    TextContentBlock,
)
from anyio.abc import TaskGroup

from adapter.claude.claude_runtime import ClaudeRuntime
from adapter.claude.idle_settings import idle_policy
from adapter.claude.prompt_content import claude_content, claude_user_message
from adapter.claude.runtime_settings import RuntimeSettings
from adapter.claude.settings_reader import SettingsReader
from adapter.controls.pickers import SessionConfig
from adapter.controls.session_controls import SessionControls
from adapter.session.claude_side import ClaudeSide
from adapter.session.compaction_count import boundaries_before
from adapter.session.effect_performer import REJECTION_CODES, EffectPerformer, OwnTurnInterrupt
from adapter.session.fresh_context import FreshContext
from adapter.session.live_view import LiveView
from adapter.session.prompt_answer import PromptAnswer
from adapter.session.publish import Publisher
from adapter.wire.client_link import ClientLink
from fsm import (
    CancelRequested,
    CredentialsChanged,
    DeadlineReached,
    Dialects,
    Event,
    IdleSettingsRead,
    InternalFaultOccurred,
    OutputReceived,
    OwnTurnStopFailed,
    OwnTurnStopped,
    PromptReceived,
    SessionClosing,
    SessionCore,
    SteerReceived,
    TransportLost,
)

__all__ = ["REJECTION_CODES", "Session"]

log = logging.getLogger(__name__)


class Session:
    """One ACP session. Its collaborators, each given what it uses: `claude` (Claude's process),
    `fresh_context` (a plan exit's fresh context), `effects` (performing the core's effects),
    `controls` (modes, pickers, commands, permissions), `view` (Claude's messages as the editor
    shows them) and `core` (the decisions)."""

    def __init__(
        self,
        *,
        session_id: str,
        cwd: str,
        dialects: Dialects,
        link: ClientLink,
        settings: RuntimeSettings,
        task_group: TaskGroup,
        resume: bool = False,
        terminal_output: bool = False,
        terminal_output_delta: bool = False,
        clock: Any = time.monotonic,
        wall: Any = time.time,
        controls: SessionControls | None = None,
        claude_session_id: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self._link = link
        self._tg = task_group
        self._clock = clock
        self._wall = wall  # epoch seconds: Claude's limit resets are wall-clock times
        # Never shown to the client (docs/decisions.md#secrets), read at each use: with the
        # header values of every provider set so far, before this session opened or after.
        self._private = settings.masked
        # Taken once per Claude frame (every streamed delta): uncontended, it must not also
        # yield to the event loop, as anyio's default acquire does.
        self._feed_lock = anyio.Lock(fast_acquire=True)
        # Each prompt's one answer, by turn id; shared with the collaborators that fill them.
        self._answers: dict[str, PromptAnswer] = {}
        self._steer_lock = anyio.Lock()  # one steer's verdict at a time
        # The core's verdict on the steer being fed (`AnswerSteer`, put here by `effects`).
        self._steer_verdicts: list[tuple[str, str | None]] = []
        self._own_stop_lock = anyio.Lock()  # one own turn's stop decided at a time
        # The interrupts the core started for the stop being fed (`InterruptOwnTurn`).
        self._own_stops: list[OwnTurnInterrupt] = []
        # Modes, pickers, commands and permissions (adapter/controls/session_controls.py).
        self.controls = controls or SessionControls(
            session_id=session_id, link=link, config=SessionConfig.initial({}, None)
        )
        # Claude's messages as the editor shows them: chunks, cards, plan, usage, title.
        self.view = LiveView(
            link,
            session_id,
            cwd,
            terminal_output=terminal_output,
            terminal_output_delta=terminal_output_delta,
            titled=resume,
            compaction_updates=dialects.acp_compaction,
            compactions_before=lambda stop: boundaries_before(session_id, cwd, settings.env, stop),
            acp_notices=dialects.acp_notices,
            private=self._private,
            air=self.controls.air,
            plan_updates=self.controls.plan_updates,
        )
        self._closed = False
        self._released = False  # the core's models detached (at close): it takes no more events
        self._rearm = anyio.Event()
        self._timer_started = False
        self._armed_for: float | None = None  # the deadline the timer sleeps toward
        # The settings are read again when the reference adapter's would have been looked at:
        # a prompt, and the idle deadline (docs/decisions.md#settings-read-again).
        self._settings_env = settings.env
        # The session's one reader of its settings files, shared with its pickers (each
        # problem with a file is said once: docs/decisions.md#settings-warned-once).
        self._settings_reader = self.controls.config.settings_reader or SettingsReader(
            cwd, settings.env
        )
        self._idle_policy = idle_policy(self._settings_reader.read(), settings.env)
        # No runtime yet: a placeholder epoch; each runtime's RuntimeStarted brings its own.
        self.core = SessionCore(
            session_id=session_id,
            epoch="unstarted",
            capable=dialects.capable,
            notices=dialects.session_failure,
            private=self._private(),
            stall_seconds=settings.stall_seconds,
            started=False,
            acp_notices=dialects.acp_notices,
            idle=self._idle_policy,
            background_subagents=self.controls.air.background_subagents,
            mcp_sign_in=self.controls.sign_in.servers,
        )
        self.claude = ClaudeSide(
            session_id=session_id,
            claude_session_id=claude_session_id or session_id,
            cwd=cwd,
            settings=settings,
            resume=resume,
            task_group=task_group,
            answers=self._answers,
            controls=self.controls,
            view=self.view,
            clock=clock,
            wall=wall,
            feed=self.feed,
            heard=self.heard,
            fault=self._fault,
            started=self._start_timer,
        )
        self.fresh_context = FreshContext(
            session_id=session_id,
            settings=settings,
            claude=self.claude,
            task_group=task_group,
            answers=self._answers,
            controls=self.controls,
            view=self.view,
            clock=clock,
            feed=self.feed,
        )
        self.effects = EffectPerformer(
            session_id=session_id,
            core=self.core,
            settings=settings,
            task_group=task_group,
            answers=self._answers,
            publisher=Publisher(link=link, dialects=dialects, session_id=session_id),
            controls=self.controls,
            view=self.view,
            claude=self.claude,
            fresh_context=self.fresh_context,
            compact_when_idle=self._compact_when_idle,
            steer_verdicts=self._steer_verdicts,
            own_stops=self._own_stops,
        )
        self.controls.bind(lambda: self.claude.runtime, self.feed)
        self.controls.permissions.card = self.view.permission_card
        self.controls.permissions.owner = self.view.subagents.session_of_agent
        self.view.subagent_files = self._subagent_files
        self.view.model_choices = lambda: [
            (c.value, c.name, c.resolved) for c in self.controls.config.models
        ]
        self.view.mode_choices = lambda: list(self.controls.config.offered_modes())
        self.view.agent_choices = lambda: [
            (a.name, a.description) for a in self.controls.config.agents
        ]
        self.controls.model_chosen = self.view.model_chosen
        self.controls.window_measured = self.view.window_measured
        self.controls.permissions.percent_used = self.view.percent_used
        self.controls.permissions.fresh_context = self.fresh_context.choose
        self.controls.permissions.turn_live = lambda: self.core.turn_live
        self.view.prompt_open = lambda: self.core.working

    # --- Claude's process (starting it and reading it: `claude_side.py`) -----------------

    async def start(self, spawned: ClaudeRuntime | None = None) -> None:
        """Start the session's Claude process, or finish starting `spawned` (one spawned for it
        while the session was built); raises `RuntimeStartError`."""
        await self.claude.start(spawned)

    async def send(self, update: Any) -> bool:
        """Send one session update to the client (False when it could not be sent)."""
        return await self._link.send_update(self.session_id, update)

    async def _subagent_files(self) -> dict[str, Any]:
        """The session's subagents in its history, by the Agent call that launched each."""
        from adapter.claude.subagent_files import subagents_of_session

        env = self._settings_env
        return await anyio.to_thread.run_sync(subagents_of_session, self.session_id, self.cwd, env)

    async def send_raw(self, update: dict[str, Any]) -> bool:
        """Send one session update given as its wire dict (False when it could not be sent)."""
        return await self._link.send_raw_update(self.session_id, update)

    async def send_raws(self, updates: list[dict[str, Any]], session_id: str | None = None) -> bool:
        """Send several session updates in order (False when one could not be sent), on this
        session or on `session_id` (a JetBrains AIR child session of it)."""
        return await self._link.send_raw_updates(session_id or self.session_id, updates)

    async def restart_on_next_prompt(self, private: tuple[str, ...] | None = None) -> None:
        """The credentials changed: the core has the next prompt start a fresh Claude.
        `private`: a provider's header values, masked from now on (None: as they were)."""
        await self.feed(CredentialsChanged(private=private))

    async def shutdown(self, grace: float | None) -> None:
        """End the session: the prompt in flight (and any queued) is answered `cancelled`, and
        Claude is stopped: at once (SIGTERM, SIGKILL after `grace` seconds) when the adapter
        exits, or with `grace` None the SDK's gentle way (its transcript stays whole for a
        resume)."""
        await self.feed(SessionClosing())
        await self.feed(CancelRequested(now=self._clock()))
        runtime = self.claude.runtime
        if runtime is not None:
            # Its reader then ends, and the core settles the cancelled turn.
            await (runtime.close() if grace is None else runtime.stop(grace))
        for answer in list(self._answers.values()):
            with anyio.move_on_after(grace or 1.0):
                await answer.done.wait()
            answer.give(PromptResponse(stop_reason="cancelled"))
        self._closed = True
        self._rearm.set()
        # A session replaced by a load or a resume is never closed: released here, or each
        # replaced session's core stayed attached to the shared machines for good.
        await self._release()

    async def close(self) -> None:
        self._closed = True
        self._rearm.set()
        await self.feed(SessionClosing())
        if self.claude.runtime is not None:
            await self.claude.runtime.close()
        for answer in self._answers.values():
            answer.give(RequestError.internal_error({"reason": "the session was closed"}))
        await self._release()

    async def _release(self) -> None:
        """Detach the core from the shared machines (once; late facts are dropped after)."""
        # The shared machines hold the core's models until it detaches them: without this a
        # closed session's core (its ledger, turn, windows) stayed for the process's life.
        async with self._feed_lock:
            if not self._released:
                self._released = True
                self.core.close()

    # --- the loop ---------------------------------------------------------------------

    async def feed(self, event: Event, message: Any = None) -> None:
        """Hand the core one fact and perform its effects, in order."""
        async with self._feed_lock:
            if self._released:  # a late fact (a reader's last frame) for a closed session
                log.debug("session %s: closed, dropped %s", self.session_id, type(event).__name__)
                return
            try:
                await self.effects.perform(self.core.handle(event), message)
            except Exception:
                # Declared recovery boundary (docs/decisions.md#internal-faults): our own code
                # failed on this event.
                await self._fault_locked(f"handling {type(event).__name__}")
        await self.effects.after_feed()
        # Wake the timer only when the core needs waking sooner than it is set for: a later
        # deadline is found when the earlier one passes.
        deadline = self.core.next_deadline()
        if deadline is not None and (self._armed_for is None or deadline < self._armed_for):
            self._rearm.set()

    async def heard(self, epoch: str, now: float) -> None:
        """Claude wrote a frame at `now` (`OutputReceived`): once per frame, every streamed
        delta. While no fact is being performed (the lock is free, and nothing can come between
        here and the core: no await), the core takes it at once where it changes nothing but
        the stall clock and brings no deadline sooner (`SessionCore.heard_alone`); otherwise it
        is fed as any fact."""
        if self._feed_lock.locked() or self._released or not self.core.heard_alone(epoch, now):
            await self.feed(OutputReceived(epoch=epoch, now=now))

    async def _fault(self, where: str) -> None:
        async with self._feed_lock:
            if self._released:
                return
            await self._fault_locked(where)

    async def _fault_locked(self, where: str) -> None:
        # docs/decisions.md#internal-faults: the traceback goes to the log; the core fails what
        # waits and breaks the session. If even that fails, every waiting prompt is answered here.
        log.exception("session %s: internal fault while %s", self.session_id, where)
        try:
            await self.effects.perform(self.core.handle(InternalFaultOccurred(where=where)), None)
        except Exception:
            log.exception("session %s: the core could not take the fault", self.session_id)
            for answer in self._answers.values():
                answer.give(
                    RequestError.internal_error({"reason": "a fault in claude-acp (see its log)"})
                )

    # --- time: the core says when it next needs waking --------------------------------

    def _start_timer(self) -> None:
        if not self._timer_started:
            self._timer_started = True
            self._tg.start_soon(self._run_timer)

    async def _run_timer(self) -> None:
        while not self._closed:
            self._rearm = anyio.Event()
            deadline = self._armed_for = self.core.next_deadline()
            if deadline is None:
                await self._rearm.wait()
                continue
            with anyio.move_on_after(max(0.0, deadline - self._clock())):
                await self._rearm.wait()
                continue
            self._armed_for = None
            await self._read_settings_again()
            await self.feed(DeadlineReached(now=self._clock(), wall=self._wall()))

    async def _read_settings_again(self) -> None:
        """Tell the core what the settings files say now, when it changed
        (docs/decisions.md#settings-read-again): only the idle compaction reads them mid-session;
        the modes and the pickers keep what the session opened with."""
        policy = idle_policy(self._settings_reader.read(), self._settings_env)
        if policy != self._idle_policy:
            self._idle_policy = policy
            await self.feed(IdleSettingsRead(policy=policy))

    # --- requests ---------------------------------------------------------------------

    async def prompt(
        self, blocks: list[Any], meta: Mapping[str, Any] | None = None
    ) -> PromptResponse:
        """Hand one prompt to the core and wait for its one answer (raises `RequestError`).
        The core queues it behind a live one and says when it goes to Claude. `meta`: the
        request's `_meta` (JetBrains AIR's file-change report request)."""
        if self._closed:
            raise RequestError.invalid_request({"reason": "the session is closed"})
        # Content Claude cannot take is refused (-32602) before anything reaches Claude.
        content = claude_content(blocks)
        turn_id = str(uuid.uuid4())
        answer = self._answers[turn_id] = PromptAnswer(
            blocks=blocks, content=content, response=self._link.response_ticket()
        )
        self.view.file_changes.request(turn_id, meta)
        await self.view.goal_prompted(blocks, turn_id)
        await self.view.client_prompted()
        try:
            await self._read_settings_again()
            await self.feed(PromptReceived(turn_id=turn_id))
            await self._carry(turn_id, answer)
        finally:
            del self._answers[turn_id]
        return self._unwrap(answer)

    async def remote_control(self, blocks: list[Any]) -> bool:
        """Answer a `/remote-control` prompt without a turn (True; fsm.claude.remote_control), where
        Claude Code does not offer the command itself; -32600 while Claude works."""
        runtime = self.claude.runtime
        if runtime is None or not self.controls.stands_in_for_remote_control():
            return False
        return await self.controls.remote_control.run(
            blocks, runtime.client, working=self.core.working, private=self._private()
        )

    async def steer(self, blocks: list[Any], *, prompt_required: bool) -> dict[str, Any]:
        """The client's `_session/steering` (adapter.agent.steering): the core says whether the
        message joins the running turn (sent to Claude now, with the priority it chose) or,
        with no turn running, goes back to the client or becomes a prompt of its own."""
        if self._closed:
            raise RequestError.invalid_request({"reason": "the session is closed"})
        content = claude_content(blocks)  # content Claude cannot take: -32602, as a prompt's
        async with self._steer_lock:
            self._steer_verdicts.clear()
            asking = self.controls.asking_user()
            await self.feed(
                SteerReceived(question_open=asking, prompt_required_when_idle=prompt_required)
            )
            verdicts = list(self._steer_verdicts)
            self._steer_verdicts.clear()
        outcome, priority = verdicts[0] if verdicts else ("promptRequired", None)
        runtime = self.claude.runtime
        if outcome == "injected" and runtime is not None:
            steered = str(uuid.uuid4())
            await self.view.goal_prompted(blocks, steered)
            message = claude_user_message(content, turn_id=steered)
            message["priority"] = priority
            try:
                await runtime.send(message)
            except Exception:
                log.warning("session %s: steering Claude failed", self.session_id, exc_info=True)
                await self.feed(TransportLost(epoch=runtime.epoch))
            return {"outcome": "injected"}
        if outcome in ("injected", "startedNewTurn"):
            # No turn runs (or its Claude is still starting): a prompt of its own, whose
            # answer nobody waits for; its output streams as any turn's does.
            self._tg.start_soon(self._steered_prompt, blocks)
            return {"outcome": "startedNewTurn"}
        return {"outcome": "promptRequired", "reason": "noRunningTurn"}

    async def stop_async_task(self, task_id: str) -> bool:
        """`_session/async_task/stop` (adapter.agent.async_task_stop): Claude Code stops the
        task when the Async Tasks panel may stop it; Claude's refusal is a -32603."""
        runtime = self.claude.runtime

        async def stop(task: str) -> None:
            if runtime is None:
                raise RequestError.internal_error({"reason": "Claude is not running"})
            try:
                await runtime.stop_task(task)
            except Exception as exc:
                log.warning("session %s: stopping a task failed", self.session_id, exc_info=True)
                reason = {"reason": "Claude Code did not stop it"}
                raise RequestError.internal_error(reason) from exc

        async def interrupt() -> bool:
            if runtime is None:
                raise RequestError.internal_error({"reason": "Claude is not running"})
            # The core decides, under the feed lock, whether Claude is interrupted (not while a
            # prompt is on its way to it); the interrupt starts as its effect, so no prompt
            # the core takes after it reaches Claude first (docs/decisions.md#stopped-own-turn).
            async with self._own_stop_lock:
                self._own_stops.clear()
                await self.feed(OwnTurnStopped())
                stops = list(self._own_stops)
                self._own_stops.clear()
            if not stops:
                return False  # the core refused: answered `stopped: false`
            try:
                await stops[0].outcome()
            except Exception as exc:
                log.warning(
                    "session %s: interrupting Claude failed", self.session_id, exc_info=True
                )
                await self.feed(OwnTurnStopFailed())
                reason = {"reason": "Claude Code did not stop"}
                raise RequestError.internal_error(reason) from exc
            return True

        return await self.view.stop_async_task(task_id, stop, interrupt)

    async def _steered_prompt(self, blocks: list[Any]) -> None:
        try:
            await self.prompt(blocks)
        except Exception:
            log.warning("session %s: a steered prompt failed", self.session_id, exc_info=True)

    async def _carry(self, turn_id: str, answer: PromptAnswer) -> None:
        """Send the prompt when the core says so, and wait for its one answer."""
        await answer.go.wait()
        if not answer.done.is_set():
            await self.claude.send_prompt(turn_id, answer)
        await answer.done.wait()

    async def _compact_when_idle(self, number: int) -> None:
        """`CompactWhenIdle` (under the feed lock): `/compact` becomes the session's own turn,
        reported to the core before any other event, so a client prompt queues behind it."""
        turn_id = str(uuid.uuid4())
        blocks = [TextContentBlock(type="text", text="/compact")]
        answer = PromptAnswer(blocks=blocks, content=claude_content(blocks), by_adapter=True)
        self._answers[turn_id] = answer
        log.info("session %s: idle compaction %d: sending /compact", self.session_id, number)
        self._tg.start_soon(self._own_turn, turn_id, answer)
        queued = PromptReceived(turn_id=turn_id, by_adapter=True)
        await self.effects.perform(self.core.handle(queued), None)

    async def _own_turn(self, turn_id: str, answer: PromptAnswer) -> None:
        try:
            await self._carry(turn_id, answer)
        except Exception:
            await self._fault("the idle compaction")
        finally:
            self._answers.pop(turn_id, None)
        value = answer.value
        outcome = value.stop_reason if isinstance(value, PromptResponse) else "an error"
        log.info("session %s: idle compaction ended: %s", self.session_id, outcome)

    @staticmethod
    def _unwrap(answer: PromptAnswer) -> PromptResponse:
        value = answer.value
        if isinstance(value, RequestError):
            raise value
        assert value is not None, "the core answers every prompt it was sent"
        return value

    async def cancel(self) -> None:
        """The client cancelled: the core decides what is withdrawn, what is interrupted and
        what is answered. AIR's child sessions end cancelled first, as the reference ends
        them (docs/reference-adapter.md#native-subagents)."""
        await self.view.parent_cancelled()
        await self.feed(CancelRequested(now=self._clock()))
