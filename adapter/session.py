"""One ACP session: the core's shell. Report facts to the core, perform its effects, repeat.

Every event reaches the core through `feed`, under one lock, and its effects are performed in
order before the next event is fed, so the core sees exactly the order things happened in. The
shell decides nothing: which prompt goes next (and whether Claude's process is replaced first),
when Claude is interrupted or stopped, and when the core next needs waking all come from the
core. Each prompt waits on its own `_Answer`, which exactly one `SettlePrompt`/`RejectPrompt`
fills. An exception in our own code (the core, or this shell) is DECISIONS row 30: logged with
its traceback, reported to the core as `InternalFaultOccurred`, which fails the live turn as
`internal_error` and breaks the session; only Claude's own transport failing is "lost".
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import anyio
from acp import RequestError
from acp.schema import (
    PromptResponse,
)
from anyio.abc import TaskGroup, TaskStatus
from claude_agent_sdk import AssistantMessage, UserMessage

from adapter.client_link import ClientLink
from adapter.compat import refusal_explanation
from adapter.permissions import PermissionAsker
from adapter.prompt_content import claude_user_message
from adapter.publish import Publisher
from adapter.runtime import ClaudeRuntime, RuntimeStartError
from adapter.settings import RuntimeSettings
from adapter.translate import event_for, updates_for_assistant, updates_for_user
from fsm.effects import (
    Effect,
    ForwardAssistantMessage,
    InterruptClaude,
    LogNotice,
    PublishRecord,
    RejectPrompt,
    SendAgentText,
    SendPrompt,
    SettlePrompt,
    StopRuntime,
)
from fsm.errors import FsmError
from fsm.events import (
    AssistantMessageReceived,
    CancelRequested,
    CredentialsChanged,
    DeadlineReached,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    InternalFaultOccurred,
    OutputReceived,
    PromptReceived,
    PromptSent,
    RuntimeStarted,
    RuntimeStartFailed,
    StreamEnded,
    TransportLost,
)
from fsm.negotiation import Dialects
from fsm.session import SessionCore

__all__ = ["Session"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Answer:
    """The one answer a prompt gets, and the core's word that it may go to Claude."""

    blocks: list[Any]
    done: anyio.Event = field(default_factory=anyio.Event)
    go: anyio.Event = field(default_factory=anyio.Event)  # set by SendPrompt, or by the answer
    replace_runtime: bool = False
    value: PromptResponse | RequestError | None = None
    epoch: str | None = None  # the runtime the prompt went to, once sent

    def give(self, value: PromptResponse | RequestError) -> None:
        if self.value is None:
            self.value = value
            self.done.set()
            self.go.set()


class Session:
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
        clock: Any = time.monotonic,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self._link = link
        self._dialects = dialects
        self._settings = settings
        self._tg = task_group
        self._resume = resume
        self._clock = clock
        self._runtime: ClaudeRuntime | None = None
        self._feed_lock = anyio.Lock()
        self._answers: dict[str, _Answer] = {}
        self._publisher = Publisher(link=link, dialects=dialects, session_id=session_id)
        self._permissions = PermissionAsker(link=link, session_id=session_id)
        self._closed = False
        self._rearm = anyio.Event()
        self._timer_started = False
        # No runtime yet: a placeholder epoch; each runtime's RuntimeStarted brings its own.
        self.core = SessionCore(
            session_id=session_id,
            epoch="unstarted",
            capable=dialects.capable,
            notices=dialects.session_failure,
            private=settings.private,
            stall_seconds=settings.stall_seconds,
            started=False,
        )

    # --- runtime ----------------------------------------------------------------------

    async def start(self) -> None:
        """Start a Claude process for this session; raises `RuntimeStartError`."""
        runtime = ClaudeRuntime(
            settings=self._settings,
            cwd=self.cwd,
            session_id=self.session_id,
            resume=self._resume,
            can_use_tool=self._permissions.can_use_tool,
        )
        epoch = runtime.epoch

        async def on_ready() -> None:
            self._runtime = runtime
            await self.feed(RuntimeStarted(epoch=epoch))

        async def on_message(message: Any, raw: Any) -> None:
            await self._on_message(message, raw, epoch)

        async def on_end() -> None:
            await self.feed(StreamEnded(epoch=epoch))

        async def on_lost() -> None:
            await self.feed(TransportLost(epoch=epoch))

        async def run(task_status: TaskStatus[None]) -> None:
            try:
                await runtime.run(
                    on_ready=on_ready,
                    on_message=on_message,
                    on_end=on_end,
                    on_lost=on_lost,
                    task_status=task_status,
                )
            except RuntimeStartError:
                raise  # before it started: `start` reports it
            except Exception:
                # Our own code failed while handling what Claude said (row 30): never "lost".
                await self._fault("the Claude runtime task")
            finally:
                self._answer_if_forgotten(runtime)

        self._start_timer()
        await self._tg.start(run)

    def _answer_if_forgotten(self, runtime: ClaudeRuntime) -> None:
        # Safety net for the "exactly one answer" promise: a prompt still waiting when its
        # runtime's task is over would otherwise wait forever. Normally the core answered it.
        for answer in self._answers.values():
            if answer.epoch == runtime.epoch and not answer.done.is_set():
                log.error("session %s: a prompt was left unanswered; answering it", self.session_id)
                answer.give(RequestError.internal_error({"reason": "the Claude runtime failed"}))

    async def send(self, update: Any) -> bool:
        """Send one session update to the client (False when it could not be sent)."""
        return await self._link.send_update(self.session_id, update)

    async def send_raw(self, update: dict[str, Any]) -> bool:
        """Send one session update given as its wire dict (False when it could not be sent)."""
        return await self._link.send_raw_update(self.session_id, update)

    async def restart_on_next_prompt(self) -> None:
        """The credentials changed: the core has the next prompt start a fresh Claude."""
        await self.feed(CredentialsChanged())

    async def close(self) -> None:
        self._closed = True
        self._rearm.set()
        if self._runtime is not None:
            await self._runtime.close()
        for answer in self._answers.values():
            answer.give(RequestError.internal_error({"reason": "the session was closed"}))

    # --- the loop ---------------------------------------------------------------------

    async def feed(self, event: Event, message: Any = None) -> None:
        """Hand the core one fact and perform its effects, in order."""
        async with self._feed_lock:
            before = {record.id for record in self.core.active()}
            try:
                await self._perform(self.core.handle(event), message)
            except Exception:
                await self._fault_locked(f"handling {type(event).__name__}")
            recovered = before - {record.id for record in self.core.active()}
            if recovered:
                # Recovery publishes nothing (the spec); the log is where it can be seen.
                log.info("session %s: no longer active: %s", self.session_id, sorted(recovered))
        self._rearm.set()

    async def _fault(self, where: str) -> None:
        async with self._feed_lock:
            await self._fault_locked(where)

    async def _fault_locked(self, where: str) -> None:
        # Row 30: the traceback goes to the log; the core fails what waits and breaks the
        # session. If even that fails, every waiting prompt is answered here.
        log.exception("session %s: internal fault while %s", self.session_id, where)
        try:
            await self._perform(self.core.handle(InternalFaultOccurred(where=where)), None)
        except Exception:
            log.exception("session %s: the core could not take the fault", self.session_id)
            for answer in self._answers.values():
                answer.give(RequestError.internal_error({"reason": "internal error"}))

    async def _on_message(self, message: Any, raw: Any, epoch: str) -> None:
        await self.feed(OutputReceived(epoch=epoch, now=self._clock()))
        try:
            event = event_for(message, epoch)
        except (FsmError, TypeError, ValueError):
            log.warning("skipped a malformed %s from Claude", type(message).__name__)
            return
        if isinstance(event, AssistantMessageReceived) and event.stop_reason == "refusal":
            # Row 29: the SDK's parsed message drops `stop_details`; the raw frame has it.
            explanation = refusal_explanation(raw)
            if explanation and not event.refusal_explanation:
                event = replace(event, refusal_explanation=explanation)
        if event is not None:
            await self.feed(event, message)
        elif isinstance(message, UserMessage):
            await self._forward(updates_for_user(message))

    async def _forward(self, updates: Iterator[Any]) -> None:
        """Send Claude's content as session updates; a block of a shape the ACP schema cannot
        hold is skipped (the rest of the message and the turn go on)."""
        while True:
            try:
                update = next(updates)
            except StopIteration:
                return
            except Exception:
                # Whatever a malformed block makes the SDK's types or the schema raise, it is
                # that message's content that is lost, not the turn.
                log.warning(
                    "session %s: skipped content Claude sent in an unusable shape", self.session_id
                )
                return
            await self._link.send_update(self.session_id, update)

    async def _perform(self, effects: list[Effect], message: Any) -> None:
        for effect in effects:
            await self._perform_one(effect, message)

    async def _perform_one(self, effect: Effect, message: Any) -> None:
        match effect:
            case PublishRecord(record=record):
                sent = await self._publisher.publish(record)
                outcome = DeliveryConfirmed if sent else DeliveryFailed
                follow = self.core.handle(outcome(id=record.id, revision=record.revision))
                await self._perform(follow, None)
            case SettlePrompt(stop_reason=stop_reason, record=record, turn_id=turn_id):
                self._give(turn_id, await self._publisher.response(stop_reason, record))
            case RejectPrompt(code=code, message=text, error_kind=kind, turn_id=turn_id):
                data = {"errorKind": kind} if kind else None
                self._give(turn_id, RequestError(code, text, data))
            case ForwardAssistantMessage():
                if isinstance(message, AssistantMessage):
                    await self._forward(updates_for_assistant(message))
            case SendAgentText(text=text):
                await self._publisher.agent_text(text)
            case SendPrompt(turn_id=turn_id, replace_runtime=replace):
                # The prompt's own task sends it (outside the lock: starting Claude is slow).
                answer = self._answers.get(turn_id)
                if answer is not None:
                    answer.replace_runtime = replace
                    answer.go.set()
            case InterruptClaude():
                # Not under the lock: the SDK waits for Claude's reply to an interrupt.
                if self._runtime is not None:
                    self._tg.start_soon(self._interrupt, self._runtime)
            case StopRuntime():
                if self._runtime is not None:
                    self._tg.start_soon(self._runtime.close)
            case LogNotice(message=text):
                log.info("session %s: %s", self.session_id, text)

    async def _interrupt(self, runtime: ClaudeRuntime) -> None:
        try:
            await runtime.interrupt()
        except Exception:
            # Claude's transport, not our code: the grace period's backstop still stops it.
            log.warning("session %s: interrupt failed", self.session_id, exc_info=True)

    def _give(self, turn_id: str | None, value: PromptResponse | RequestError) -> None:
        turn_id = turn_id or self.core.turn.turn_id
        answer = self._answers.get(turn_id) if turn_id is not None else None
        if answer is None:
            log.error("session %s: an answer with no prompt waiting", self.session_id)
            return
        answer.give(value)

    # --- time: the core says when it next needs waking --------------------------------

    def _start_timer(self) -> None:
        if not self._timer_started:
            self._timer_started = True
            self._tg.start_soon(self._run_timer)

    async def _run_timer(self) -> None:
        while not self._closed:
            self._rearm = anyio.Event()
            deadline = self.core.next_deadline()
            if deadline is None:
                await self._rearm.wait()
                continue
            with anyio.move_on_after(max(0.0, deadline - self._clock())):
                await self._rearm.wait()
                continue
            await self.feed(DeadlineReached(now=self._clock()))

    # --- requests ---------------------------------------------------------------------

    async def prompt(self, blocks: list[Any]) -> PromptResponse:
        """Hand one prompt to the core and wait for its one answer (raises `RequestError`).
        The core queues it behind a live one and says when it goes to Claude."""
        if self._closed:
            raise RequestError.invalid_request({"reason": "the session is closed"})
        turn_id = str(uuid.uuid4())
        answer = self._answers[turn_id] = _Answer(blocks=blocks)
        try:
            await self.feed(PromptReceived(turn_id=turn_id))
            await answer.go.wait()
            if not answer.done.is_set():
                await self._send_prompt(turn_id, answer)
            await answer.done.wait()
        finally:
            del self._answers[turn_id]
        return self._unwrap(answer)

    async def _send_prompt(self, turn_id: str, answer: _Answer) -> None:
        if answer.replace_runtime or self._runtime is None:
            old, self._runtime = self._runtime, None
            if old is not None:
                await old.close()  # what it still says is dropped (the core retired it)
            try:
                await self.start()
            except RuntimeStartError as exc:
                # This prompt still gets its one answer, in the client's own terms.
                await self.feed(PromptSent(turn_id=turn_id, now=self._clock()))
                await self.feed(RuntimeStartFailed(reason=str(exc)))
                return
        runtime = self._runtime
        assert runtime is not None
        answer.epoch = runtime.epoch
        message = claude_user_message(answer.blocks, turn_id=turn_id)
        await self.feed(PromptSent(turn_id=turn_id, now=self._clock()))
        self._resume = True
        try:
            await runtime.send(message)
        except Exception:
            # Writing to Claude's process failed: its transport, so "lost" is the truth.
            log.warning("session %s: sending to Claude failed", self.session_id, exc_info=True)
            await self.feed(TransportLost(epoch=runtime.epoch))

    @staticmethod
    def _unwrap(answer: _Answer) -> PromptResponse:
        value = answer.value
        if isinstance(value, RequestError):
            raise value
        assert value is not None, "the core answers every prompt it was sent"
        return value

    async def cancel(self) -> None:
        """The client cancelled: the core decides what is interrupted and what is answered."""
        await self.feed(CancelRequested(now=self._clock()))
