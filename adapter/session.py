"""One ACP session: the core's shell. Read, feed the core, perform its effects, repeat.

Every event reaches the core through `feed`, under one lock, and its effects are performed in
order before the next event is fed, so the core sees exactly the order things happened in.
Prompts are queued in order (`_prompt_lock`): a second prompt waits for the first one's answer.
Each prompt waits on its own `_Answer`, which exactly one `SettlePrompt`/`RejectPrompt` fills.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import anyio
from acp import RequestError, helpers
from acp.schema import PromptResponse, SessionInfoUpdate
from anyio.abc import TaskGroup, TaskStatus
from claude_agent_sdk import AssistantMessage, ResultMessage, StreamEvent, UserMessage
from claude_agent_sdk.types import PermissionResult, PermissionResultAllow, ToolPermissionContext

from adapter.client_link import ClientLink
from adapter.prompt_content import claude_content, claude_user_message
from adapter.runtime import ClaudeRuntime, RuntimeStartError
from adapter.session_config import SessionConfig
from adapter.session_controls import SessionControls
from adapter.settings import RuntimeSettings
from adapter.translate import event_for
from adapter.turn_hooks import TurnHooks
from fsm.classify import SYNTHETIC_MODEL
from fsm.effects import (
    Effect,
    ForwardAssistantMessage,
    LogNotice,
    PublishRecord,
    RejectPrompt,
    SendAgentText,
    SettlePrompt,
)
from fsm.errors import FsmError
from fsm.events import (
    CancelRequested,
    ClaudeSilent,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    MessageTooLarge,
    PromptSent,
    RuntimeStarted,
    RuntimeStartFailed,
    StreamEnded,
    TransportLost,
)
from fsm.negotiation import Dialects
from fsm.records import FailureRecord, redact
from fsm.session import SessionCore
from fsm.vocabulary import Severity
from fsm.wire import AgentErrorDialect, SessionFailureDialect

__all__ = ["Session"]

log = logging.getLogger(__name__)

# After an interrupt, how long Claude gets to end the turn before its process is stopped.
CANCEL_GRACE_SECONDS = 10.0

_SESSION_FAILURE = SessionFailureDialect()
_AGENT_ERROR = AgentErrorDialect()


@dataclass(slots=True)
class _Answer:
    """The one answer a prompt gets."""

    done: anyio.Event = field(default_factory=anyio.Event)
    value: PromptResponse | RequestError | None = None
    epoch: str | None = None  # the runtime the prompt went to, once sent

    def give(self, value: PromptResponse | RequestError) -> None:
        if self.value is None:
            self.value = value
            self.done.set()


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
        terminal_output: bool = False,
        controls: SessionControls | None = None,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self._link = link
        self._dialects = dialects
        self._settings = settings
        self._tg = task_group
        self._resume = resume
        self._runtime: ClaudeRuntime | None = None
        self._feed_lock = anyio.Lock()
        self._prompt_lock = anyio.Lock()
        self._answer: _Answer | None = None
        # Modes, pickers, commands and permissions (adapter/session_controls.py).
        self.controls = controls or SessionControls(
            session_id=session_id, link=link, config=SessionConfig.initial({}, None)
        )
        self.controls.bind(lambda: self._runtime)
        self._closed = False
        self._broken = False
        self._restart_after_turn = False
        self._last_heard = time.monotonic()
        # Bumped by every cancel, so prompts queued behind a cancelled one are cancelled too.
        self._cancels = 0
        # Claude's messages as the editor shows them: chunks, cards, plan, usage, title.
        self.view = TurnHooks(self, terminal_output=terminal_output, titled=resume)
        self.controls.permissions.card = self.view.permission_card
        # No runtime yet: a placeholder epoch, and "lost" so the first prompt starts one if
        # `start` was not called; each runtime's RuntimeStarted brings its real epoch.
        self.core = SessionCore(
            session_id=session_id,
            epoch="unstarted",
            capable=dialects.capable,
            private=settings.private,
        )
        self.core.runtime_lost = True

    # --- runtime ----------------------------------------------------------------------

    async def start(self) -> None:
        """Start a Claude process for this session; raises `RuntimeStartError`."""
        runtime = ClaudeRuntime(
            settings=self._settings,
            cwd=self.cwd,
            session_id=self.session_id,
            resume=self._resume,
            can_use_tool=self._can_use_tool,
            launch=self.controls.launch(),
        )
        epoch = runtime.epoch

        async def on_ready() -> None:
            self._runtime = runtime
            await self.feed(RuntimeStarted(epoch=epoch))

        async def on_message(message: Any) -> None:
            await self._on_message(message, epoch)

        async def on_end() -> None:
            await self.feed(StreamEnded(epoch=epoch))

        async def on_lost() -> None:
            if runtime.too_large:
                limit = self._settings.max_message_bytes
                await self.feed(MessageTooLarge(epoch=epoch, limit_bytes=limit))
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
                # A bug of ours, not Claude's: logged in full, and contained to this session.
                log.exception("session %s: the Claude runtime task failed", self.session_id)
                self._broken = True
            finally:
                self._answer_if_forgotten(runtime)

        await self._tg.start(run)
        await self.controls.adopt(runtime)

    def _answer_if_forgotten(self, runtime: ClaudeRuntime) -> None:
        # Safety net for the "exactly one answer" promise: a prompt still waiting when its
        # runtime's task is over would otherwise wait forever. Normally the core answered it.
        answer = self._answer
        if answer is not None and answer.epoch == runtime.epoch and not answer.done.is_set():
            log.error("session %s: a prompt was left unanswered; answering it", self.session_id)
            self._broken = True
            answer.give(RequestError.internal_error({"reason": "the Claude runtime failed"}))

    async def send(self, update: Any) -> bool:
        """Send one session update to the client (False when it could not be sent)."""
        return await self._link.send_update(self.session_id, update)

    async def send_raw(self, update: dict[str, Any]) -> bool:
        """Send one session update given as its wire dict (False when it could not be sent)."""
        return await self._link.send_raw_update(self.session_id, update)

    async def restart_on_next_prompt(self) -> None:
        """Stop the current Claude process; the next prompt starts (resumes) a fresh one. A
        running turn is left to finish first: its process is stopped after its answer."""
        if self._answer is not None and not self._answer.done.is_set():
            self._restart_after_turn = True
            return
        runtime = self._runtime
        if runtime is not None:
            self._runtime = None
            await runtime.close()

    async def shutdown(self, grace: float | None) -> None:
        """End the session: the prompt in flight (and any queued) is answered `cancelled`, and
        Claude is stopped: at once (SIGTERM, SIGKILL after `grace` seconds) when the adapter
        exits, or with `grace` None the SDK's gentle way (its transcript stays whole for a
        resume)."""
        self._cancels += 1
        await self.feed(CancelRequested())
        runtime = self._runtime
        if runtime is not None:
            # Its reader then ends, and the core settles the cancelled turn.
            await (runtime.close() if grace is None else runtime.stop(grace))
        answer = self._answer
        if answer is not None:
            with anyio.move_on_after(grace or 1.0):
                await answer.done.wait()
            answer.give(PromptResponse(stop_reason="cancelled"))
        self._closed = True

    async def close(self) -> None:
        self._closed = True
        if self._runtime is not None:
            await self._runtime.close()
        if self._answer is not None:
            self._answer.give(RequestError.internal_error({"reason": "the session was closed"}))

    # --- the loop ---------------------------------------------------------------------

    async def feed(self, event: Event, message: Any = None) -> None:
        async with self._feed_lock:
            before = {record.id for record in self.core.active()}
            await self._perform(self.core.handle(event), message)
            recovered = before - {record.id for record in self.core.active()}
            if recovered:
                # Recovery publishes nothing (the spec); the log is where it can be seen.
                log.info("session %s: no longer active: %s", self.session_id, sorted(recovered))

    async def _on_message(self, message: Any, epoch: str) -> None:
        self._last_heard = time.monotonic()
        if isinstance(message, StreamEvent):
            # The bulk of a turn: only the turn view has a use for it.
            await self.view.stream_event(message)
            return
        await self.controls.observe(message)
        try:
            event = event_for(message, epoch)
        except (FsmError, TypeError, ValueError):
            log.warning("skipped a malformed %s from Claude", type(message).__name__)
            return
        if isinstance(message, AssistantMessage):
            self.view.saw_assistant(message)
        elif isinstance(message, ResultMessage):
            await self.view.turn_result(message)
        if event is not None:
            await self.feed(event, message)
        elif isinstance(message, UserMessage):
            await self.view.tool_results(message)

    async def _perform(self, effects: list[Effect], message: Any) -> None:
        for effect in effects:
            match effect:
                case PublishRecord(record=record):
                    sent = await self._publish(record)
                    outcome = DeliveryConfirmed if sent else DeliveryFailed
                    follow = self.core.handle(outcome(id=record.id, revision=record.revision))
                    await self._perform(follow, None)
                case SettlePrompt(stop_reason=stop_reason, record=record):
                    meta = None
                    if record is not None:
                        # agent_error goes out before the response it explains.
                        await self._send_agent_error(record)
                        if self._dialects.session_failure:
                            meta = _SESSION_FAILURE.meta_for(record)
                    await self.view.turn_settled()
                    self._give(
                        PromptResponse(
                            stop_reason=stop_reason.value,
                            field_meta=meta,
                            usage=self.view.response_usage(),
                        )
                    )
                case RejectPrompt(code=code, message=text, error_kind=kind):
                    await self.view.turn_ended()
                    data = {"errorKind": kind} if kind else None
                    self._give(RequestError(code, text, data))
                case ForwardAssistantMessage():
                    if isinstance(message, AssistantMessage):
                        await self.view.assistant(message, mask=self._mask(message))
                case SendAgentText(text=text):
                    text = redact(text, self._settings.private)
                    await self._link.send_update(
                        self.session_id, helpers.update_agent_message_text(text)
                    )
                case LogNotice(message=text):
                    log.info("session %s: %s", self.session_id, text)

    def _mask(self, message: AssistantMessage) -> tuple[str, ...] | None:
        """What to mask in a message forwarded as agent text: Claude's error prose (an API
        error, a synthetic notice) is masked like any error text (DECISIONS row 31); the
        model's own answer is the user's content and stays verbatim."""
        if message.error is not None or message.model == SYNTHETIC_MODEL:
            return self._settings.private
        return None

    async def _publish(self, record: FailureRecord) -> bool:
        """Send `record` in every dialect the client asked for; True iff every send went out."""
        sent = True
        if self._dialects.session_failure:
            info = SessionInfoUpdate(
                session_update="session_info_update", field_meta=_SESSION_FAILURE.meta_for(record)
            )
            sent = await self._link.send_update(self.session_id, info)
        if record.severity is Severity.ERROR:
            sent = await self._send_agent_error(record) and sent
        return sent

    async def _send_agent_error(self, record: FailureRecord) -> bool:
        update = _AGENT_ERROR.update_for(record) if self._dialects.agent_error else None
        if update is None:
            return True
        return await self._link.send_raw_update(self.session_id, update)

    def _give(self, value: PromptResponse | RequestError) -> None:
        if self._answer is None:
            log.error("session %s: an answer with no prompt waiting", self.session_id)
            return
        self._answer.give(value)

    # --- requests ---------------------------------------------------------------------

    async def prompt(self, blocks: list[Any]) -> PromptResponse:
        """Send one prompt to Claude and wait for its one answer (raises `RequestError`)."""
        cancels_at_arrival = self._cancels
        # Content Claude cannot take is refused (-32602) before anything reaches Claude.
        content = claude_content(blocks)
        async with self._prompt_lock:
            if self._cancels != cancels_at_arrival:
                # Cancelled while it waited behind another prompt: it never reached Claude.
                return PromptResponse(stop_reason="cancelled")
            if self._closed:
                raise RequestError.invalid_request({"reason": "the session is closed"})
            if self._broken:
                raise RequestError.internal_error(
                    {"reason": "this session failed inside the adapter; start a new session"}
                )
            turn_id = str(uuid.uuid4())
            answer = self._answer = _Answer()
            if self._runtime is None or self.core.runtime_lost:
                try:
                    await self.start()
                except RuntimeStartError as exc:
                    # This prompt still gets its one answer, in the client's own terms.
                    await self.feed(PromptSent(turn_id=turn_id))
                    await self.feed(RuntimeStartFailed(reason=str(exc)))
                    self._answer = None
                    return self._unwrap(answer)
            runtime = self._runtime
            assert runtime is not None
            answer.epoch = runtime.epoch
            await self.feed(PromptSent(turn_id=turn_id))
            self.view.prompted(blocks)
            self._resume = True
            self._last_heard = time.monotonic()
            self._tg.start_soon(self._watch_for_silence, answer, runtime.epoch)
            try:
                await runtime.send(claude_user_message(content, turn_id=turn_id))
            except Exception:
                log.warning("session %s: sending to Claude failed", self.session_id, exc_info=True)
                await self.feed(TransportLost(epoch=runtime.epoch))
            await answer.done.wait()
            self._answer = None
            if self._restart_after_turn:
                # Signed in again during this turn: the next prompt gets a fresh process.
                self._restart_after_turn = False
                if self._runtime is not None:
                    self._tg.start_soon(self._runtime.close)
                    self._runtime = None
        return self._unwrap(answer)

    @staticmethod
    def _unwrap(answer: _Answer) -> PromptResponse:
        value = answer.value
        if isinstance(value, RequestError):
            raise value
        assert value is not None, "the core answers every prompt it was sent"
        return value

    async def _watch_for_silence(self, answer: _Answer, epoch: str) -> None:
        """Tell the core each time Claude has been silent for another `stall_seconds`."""
        stall = self._settings.stall_seconds
        marks = 0
        while not answer.done.is_set():
            deadline = self._last_heard + stall * (marks + 1)
            with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
                await answer.done.wait()
                return
            silent = time.monotonic() - self._last_heard
            if silent >= stall * (marks + 1):
                marks += 1
                await self.feed(ClaudeSilent(epoch=epoch, waited_seconds=max(1, int(silent))))
            else:
                marks = 0  # Claude spoke meanwhile; count again from its last frame

    async def cancel(self) -> None:
        self._cancels += 1
        self.controls.permissions.withdraw()
        await self.feed(CancelRequested())
        runtime = self._runtime
        if runtime is None or not self.core.turn.live:
            return
        try:
            await runtime.interrupt()
        except Exception:
            log.warning("session %s: interrupt failed", self.session_id, exc_info=True)
        self._tg.start_soon(self._stop_if_still_running, runtime)

    async def _stop_if_still_running(self, runtime: ClaudeRuntime) -> None:
        # Backstop: a Claude that ignores the interrupt is stopped, which ends the turn as
        # cancelled (the core settles a cancelled turn when its runtime goes away).
        await anyio.sleep(CANCEL_GRACE_SECONDS)
        if self._runtime is runtime and self.core.turn.live:
            log.warning("session %s: Claude ignored the interrupt; stopping it", self.session_id)
            await runtime.close()

    # --- permissions ------------------------------------------------------------------

    async def _can_use_tool(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        result = await self.controls.permissions.decide(tool_name, tool_input, context)
        if isinstance(result, PermissionResultAllow):
            await self.view.permitted(context.tool_use_id)  # it runs now
        return result
