"""Performing the core's effects, one at a time and in order. A collaborator of
`adapter.session.session.Session`, given what it acts on through its constructor: each effect is
done as the core said, nothing decided here (which questions are withdrawn when, whether a
forwarded message is masked and which prompt an answer belongs to all come on the effect).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from acp import RequestError
from acp.schema import PromptResponse
from anyio.abc import TaskGroup
from claude_agent_sdk import AssistantMessage, ResultMessage

from adapter.claude.claude_runtime import ClaudeRuntime
from adapter.claude.runtime_settings import RuntimeSettings
from adapter.claude.translate import FastMode, OwnChanges
from adapter.controls.session_controls import SessionControls
from adapter.session.claude_side import ClaudeSide
from adapter.session.fresh_context import FreshContext
from adapter.session.live_view import LiveView
from adapter.session.prompt_answer import PromptAnswer
from adapter.session.publish import Publisher
from fsm import (
    AnswerSteer,
    Blame,
    CloseOpenCalls,
    CompactWhenIdle,
    DeliveryConfirmed,
    DeliveryFailed,
    Effect,
    ForwardAssistantMessage,
    InterruptClaude,
    InterruptOwnTurn,
    LogNotice,
    PollMcpServers,
    PublishRecord,
    RejectPrompt,
    SendAgentText,
    SendContinuation,
    SendNotice,
    SendPrompt,
    SessionCore,
    SettlePrompt,
    ShowResult,
    SignInMcpServer,
    StartFreshContext,
    StopRuntime,
    TurnTakenUp,
    WithdrawPrompt,
    WithdrawQuestions,
)

__all__ = ["REJECTION_CODES", "EffectPerformer", "OwnTurnInterrupt"]

log = logging.getLogger(__name__)

# A refused prompt's JSON-RPC code, from the core's word on whose move it waits for: ACP's
# "authentication required", or the internal error every other failed turn gets
# (docs/decisions.md#auth-failure-legacy-client).
REJECTION_CODES = {Blame.AUTH: -32000, Blame.INTERNAL: -32603}


class OwnTurnInterrupt:
    """An interrupt of Claude's own turn under way (`InterruptOwnTurn`): the stop request waits
    for its `outcome`."""

    def __init__(self) -> None:
        self._done = anyio.Event()
        self._error: Exception | None = None

    async def run(self, runtime: ClaudeRuntime | None) -> None:
        try:
            if runtime is None:
                raise RuntimeError("Claude is not running")
            await runtime.interrupt()
        except Exception as exc:
            self._error = exc
        finally:
            self._done.set()

    async def outcome(self) -> None:
        """Wait for the interrupt's answer; raise what it raised."""
        await self._done.wait()
        if self._error is not None:
            raise self._error


class EffectPerformer:
    """Does what the core's effects say, on the client, on Claude's process and on the view."""

    def __init__(
        self,
        *,
        session_id: str,
        core: SessionCore,
        settings: RuntimeSettings,
        task_group: TaskGroup,
        answers: dict[str, PromptAnswer],
        publisher: Publisher,
        controls: SessionControls,
        view: LiveView,
        claude: ClaudeSide,
        fresh_context: FreshContext,
        compact_when_idle: Callable[[int], Awaitable[None]],
        steer_verdicts: list[tuple[str, str | None]],
        own_stops: list[OwnTurnInterrupt] | None = None,
    ) -> None:
        self.session_id = session_id
        self._core = core
        self._settings = settings
        self._tg = task_group
        self._answers = answers
        self._publisher = publisher
        self._controls = controls
        self._view = view
        self._claude = claude
        self._fresh_context = fresh_context
        # `Session`'s: the adapter's own `/compact` turn, carried like a client's prompt.
        self._compact_when_idle = compact_when_idle
        # `Session.steer`'s: the core's verdict on a steer, which it acts on once fed.
        self._steer_verdicts = steer_verdicts
        # `Session.stop_async_task`'s: the interrupts the core started for a stopped own turn.
        self._own_stops = own_stops if own_stops is not None else []
        # What an effect leaves for once its fact is handled and the core free (`after_feed`).
        self._after_feed: list[Callable[[], Awaitable[None]]] = []

    async def _file_changes(self, turn_id: str, stop_reason: str | None, *, failed: bool) -> None:
        """JetBrains AIR's file-change report of the turn, if its prompt asked: before the
        answer, which waits for it (`fsm.air.file_change_reports`)."""
        plan = self._view.file_changes.settle(turn_id, stop_reason=stop_reason, failed=failed)
        if plan is None:
            return
        runtime = self._claude.runtime
        client = runtime.client if runtime is not None else None
        add_dirs = self._controls.surroundings.add_dirs
        try:
            await self._view.report_file_changes(plan, client, add_dirs)
        except Exception:
            # Declared boundary: the report failing never changes the prompt's answer.
            log.warning("session %s: the file-change report failed", self.session_id)

    async def perform(self, effects: list[Effect], message: Any) -> None:
        for effect in effects:
            await self._perform_one(effect, message)

    async def after_feed(self) -> None:
        """What the effects just performed left for after their fact, outside the feed's lock:
        work that may tell the core a fact of its own (a prompt's result's fast mode, whose
        turning off the core's notice machine tells)."""
        after, self._after_feed = self._after_feed, []
        for work in after:
            await work()

    async def _perform_one(self, effect: Effect, message: Any) -> None:
        match effect:
            case PublishRecord(record=record, agent_error=agent_error):
                sent = await self._publisher.publish(record, agent_error=agent_error)
                outcome = DeliveryConfirmed if sent else DeliveryFailed
                follow = self._core.handle(outcome(id=record.id, revision=record.revision))
                await self.perform(follow, None)
            case WithdrawQuestions():
                self._controls.withdraw_all()
            case SettlePrompt(
                stop_reason=stop_reason,
                record=record,
                turn_id=turn_id,
                handed_off=handed_off,
                ran=ran,
            ):
                # Not `ran`: a prompt Claude never took up. Nothing the session shows is its,
                # so its answer carries no turn's usage and ends nothing still open
                # (docs/decisions.md#prompt-ended-unstarted).
                if ran:
                    # Handed off (prompt queueing), Claude's work goes on for the next prompt:
                    # its open tool calls and its stream stay open.
                    await self._view.turn_settled(failed=record is not None, handed_off=handed_off)
                await self._file_changes(turn_id, str(stop_reason), failed=record is not None)
                response = await self._publisher.response(stop_reason, record)
                if ran:
                    response.usage = self._view.response_usage()
                    quota = self._view.response_quota()
                    if quota is not None:
                        response.field_meta = {**(response.field_meta or {}), **quota}
                own = self._answers.get(turn_id)
                if record is not None and own is not None and own.by_adapter:
                    # The adapter's own turn has no prompt response to carry its record (a
                    # rate limit hit while compacting when idle): it goes out as an update
                    # (its `agent_error` form went with the response above).
                    await self._publisher.publish(record, agent_error=False)
                self._give(turn_id, response)
            case RejectPrompt(blame=blame, message=text, error_kind=kind, turn_id=turn_id, ran=ran):
                if ran:
                    await self._view.turn_settled(failed=True)
                await self._file_changes(turn_id, None, failed=True)
                data = {"errorKind": kind} if kind else None
                self._give(turn_id, RequestError(REJECTION_CODES[blame], text, data))
            case ForwardAssistantMessage(mask=mask):
                # The core says whether it is error prose, masked (docs/decisions.md#secrets).
                if isinstance(message, AssistantMessage):
                    private = self._settings.masked() if mask else None
                    await self._view.assistant(message, mask=private)
            case SendAgentText(text=text, meta=meta):
                # Masked by the core, which authors or forwards every such text
                # (docs/decisions.md#secrets).
                await self._publisher.agent_text(text, meta)
                self._view.text_sent(text)
            case SendNotice(severity=severity, title=title, description=description):
                await self._publisher.notice(severity, title, description)
            case AnswerSteer(outcome=outcome, priority=priority):
                self._steer_verdicts.append((outcome, priority))  # `Session.steer` acts on it
            case SendPrompt(turn_id=turn_id, replace_runtime=replace, pushed=pushed):
                # The prompt's own task sends it (outside the lock: starting Claude is slow).
                answer = self._answers.get(turn_id)
                if answer is not None:
                    answer.replace_runtime = replace
                    answer.pushed = pushed
                    answer.go.set()
            case TurnTakenUp(turn_id=turn_id):
                # Prompt queueing: Claude took up the pushed prompt; its turn's view begins.
                taken = self._answers.get(turn_id)
                if taken is not None:
                    self._view.prompted(taken.blocks, by_adapter=taken.by_adapter)
            case WithdrawPrompt(turn_id=turn_id):
                # Not under the lock (the SDK waits for Claude's reply); started before the
                # interrupt that follows it, so the message is dropped before the turn stops.
                if self._claude.runtime is not None:
                    self._tg.start_soon(self._withdraw, self._claude.runtime, turn_id)
            case StartFreshContext(turn_id=turn_id):
                # A plan exit cleared the context (`fresh_context.py`); slow, so not under
                # the lock.
                self._tg.start_soon(self._fresh_context.restart, turn_id)
            case SendContinuation(turn_id=turn_id):
                await self._fresh_context.send_continuation(turn_id)
            case InterruptClaude():
                # Not under the lock: the SDK waits for Claude's reply to an interrupt.
                if self._claude.runtime is not None:
                    self._tg.start_soon(self._claude.interrupt, self._claude.runtime)
            case InterruptOwnTurn():
                # Started here, under the lock, so a prompt the core takes after it reaches
                # Claude after the interrupt; not awaited (the SDK waits for Claude's reply).
                # `Session.stop_async_task` answers by its outcome.
                stop = OwnTurnInterrupt()
                self._own_stops.append(stop)
                self._tg.start_soon(stop.run, self._claude.runtime)
            case StopRuntime():
                if self._claude.runtime is not None:
                    self._tg.start_soon(self._claude.runtime.close)
            case CompactWhenIdle(number=number):
                await self._compact_when_idle(number)
            case PollMcpServers():
                self._controls.poll_mcp_servers(self._tg)
            case SignInMcpServer(name=name):
                # A browser sign-in takes minutes: beside the session, never under its lock.
                self._controls.start_sign_in(self._tg, name)
            case ShowResult(turn_id=turn_id, fast_on=fast_on, fast_reason=reason):
                # Whose the result is, the core's word (docs/decisions.md#result-owner): its text
                # as that prompt's answer or no prompt's, its tokens toward that turn or none;
                # a prompt's says the fast mode the switch follows, once the result is handled
                # (following it may tell the core the switch turned off).
                if isinstance(message, ResultMessage):
                    await self._view.turn_result(message, turn_id=turn_id)
                if turn_id is not None and fast_on is not None:
                    fast = OwnChanges(fast=FastMode(on=fast_on, reason=reason))
                    self._after_feed.append(functools.partial(self._controls.follow, fast))
            case CloseOpenCalls():
                await self._view.work_ended()
            case LogNotice(message=text):
                log.info("session %s: %s", self.session_id, text)

    async def _withdraw(self, runtime: ClaudeRuntime, turn_id: str) -> None:
        try:
            await runtime.withdraw(turn_id)
        except Exception:
            # Claude's transport, not our code: the prompt is answered already; at worst
            # Claude still runs it, between turns.
            log.warning("session %s: withdrawing a queued prompt failed", self.session_id)

    def _give(self, turn_id: str, value: PromptResponse | RequestError) -> None:
        answer = self._answers.get(turn_id)
        if answer is None:
            log.error("session %s: an answer with no prompt waiting", self.session_id)
            return
        answer.give(value)
        if answer.response is not None:
            self._claude.responses_due.append(answer.response)
