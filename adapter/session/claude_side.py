"""The Claude side of a session: starting a runtime, reading what Claude says into the core,
sending the prompts the core dispatches, interrupting. A collaborator of
`adapter.session.session.Session`, which hands it everything it uses through its constructor; it
decides nothing either.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import anyio
from acp import RequestError
from anyio.abc import TaskGroup, TaskStatus
from claude_agent_sdk.types import (
    PermissionResult,
    PermissionResultAllow,
    SystemMessage,
    ToolPermissionContext,
)

from adapter.claude import session_store
from adapter.claude.claude_runtime import ClaudeRuntime, RuntimeStartError
from adapter.claude.prompt_content import claude_user_message
from adapter.claude.runtime_settings import RuntimeSettings
from adapter.claude.translate import Shown, read_frame
from adapter.controls.session_controls import SessionControls
from adapter.session.live_view import LiveView
from adapter.session.prompt_answer import PromptAnswer
from adapter.wire.response_watch import ResponseTicket
from fsm import (
    ASK_TOOL,
    ContextMeasured,
    Event,
    MessageTooLarge,
    ProblemReports,
    PromptSent,
    RuntimeStarted,
    RuntimeStartFailed,
    StreamEnded,
    TransportLost,
    remote_content,
)

__all__ = ["ClaudeSide"]

log = logging.getLogger(__name__)


class Feed(Protocol):
    """`Session.feed`: hand the core one fact and perform its effects, under the session's lock."""

    async def __call__(self, event: Event, message: Any = None) -> None: ...


class ClaudeSide:
    """The session's Claude process: which one is current, and what goes to and comes from it."""

    def __init__(
        self,
        *,
        session_id: str,
        claude_session_id: str,
        cwd: str,
        settings: RuntimeSettings,
        resume: bool,
        task_group: TaskGroup,
        answers: dict[str, PromptAnswer],
        controls: SessionControls,
        view: LiveView,
        clock: Callable[[], float],
        wall: Callable[[], float],
        feed: Feed,
        heard: Callable[[str, float], Awaitable[None]],
        fault: Callable[[str], Awaitable[None]],
        started: Callable[[], None],
    ) -> None:
        self.session_id = session_id
        # The Claude session this ACP session goes on in (its own id until a plan exit cleared
        # the context: `adapter.session.fresh_context`).
        self.claude_session_id = claude_session_id
        self.cwd = cwd
        self._settings = settings
        # Whether the next process resumes `claude_session_id`'s transcript.
        self.resume = resume
        self._tg = task_group
        self._answers = answers  # the session's, by turn id: the safety net answers them
        self._controls = controls
        self._view = view
        self._clock = clock
        self._wall = wall  # epoch seconds: Claude's limit resets are wall-clock times
        self._feed = feed
        self._heard = heard  # `Session.heard`: the `OutputReceived` of each frame
        self._fault = fault
        self._started = started  # the session's timer, which a runtime's deadlines need
        self.runtime: ClaudeRuntime | None = None
        # The responses of the prompts Claude's last frame answered (`EffectPerformer`): they
        # go out before what Claude's next frames make (docs/decisions.md#turns-that-wait).
        self.responses_due: list[ResponseTicket] = []
        # Set while the fresh context's process is being started: a prompt waits for it
        # instead of starting one of its own.
        self.starting_fresh: anyio.Event | None = None
        # What Claude Code could not do that no update carries (a plugin, its transcript on a
        # full disk): said in the log (docs/reference-adapter.md#unsaved-history).
        self._problems = ProblemReports()

    async def start(self, spawned: ClaudeRuntime | None = None) -> None:
        """Start a Claude process for this session, or finish starting `spawned` (one that
        `adapter.agent.opening.spawn` began for it); raises `RuntimeStartError`."""
        self._controls.starting()
        if spawned is not None:
            runtime = spawned
            runtime.answer_permissions_with(self._can_use_tool)
        else:
            runtime = ClaudeRuntime(
                settings=self._settings,
                cwd=self.cwd,
                session_id=self.claude_session_id,
                resume=self.resume,
                can_use_tool=self._can_use_tool,
                launch=self._controls.launch(),
            )
        runtime.hooks.answer_elicitations_with(self._controls.elicitations.answer)
        # Claude Code's name for the session, asked for once a turn is over.
        # It ends with this Claude process: a closed session leaves no request waiting.
        self._view.ask_titles_with(
            lambda description: self._tg.start_soon(
                runtime.until_stopped,
                functools.partial(self._view.ask_title, runtime.client, description),
            )
        )
        # Work beside the stream that ends with this Claude process (the skill files' read).
        self._controls.run_beside_with(
            lambda work: self._tg.start_soon(runtime.until_stopped, work)
        )
        # `/rename` typed in the chat: the name Claude Code stored, read once its turn is over.
        self._view.read_titles_with(
            lambda: self._tg.start_soon(
                self._view.read_title,
                functools.partial(
                    anyio.to_thread.run_sync,
                    session_store.custom_title,
                    self.claude_session_id,
                    self.cwd,
                ),
            )
        )
        # `/model` typed in the chat: the picker follows, after the hook is answered.
        runtime.hooks.follow_models_with(
            lambda model: self._tg.start_soon(self._controls.follow_model, model)
        )
        # A compaction's summary (the PostCompact hook) goes to the session's view.
        runtime.hooks.answer_with(self._view)
        # Compactions are named by their place in the session: count those it had already,
        # before this Claude can add one (a new session has none).
        if self.resume:
            await self._view.count_compactions()
        else:
            self._view.no_compactions_yet()
        self._started()

        async def run(task_status: TaskStatus[None]) -> None:
            await self._run_runtime(runtime, task_status)

        await self._tg.start(run)
        await self._controls.adopt(runtime)

    async def _can_use_tool(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        if tool_name == ASK_TOOL:  # a question to the user, not a permission
            result = await self._controls.questions.ask(tool_input, context)
        else:
            result = await self._controls.permissions.decide(tool_name, tool_input, context)
        if isinstance(result, PermissionResultAllow):
            await self._view.permitted(context.tool_use_id)  # it runs now
        return result

    async def _run_runtime(self, runtime: ClaudeRuntime, task_status: TaskStatus[None]) -> None:
        epoch = runtime.epoch

        async def on_ready() -> None:
            self.runtime = runtime
            await self._feed(RuntimeStarted(epoch=epoch))

        async def on_message(message: Any, raw: Any) -> None:
            await self.on_message(message, raw, epoch)
            if self.responses_due:
                await self._responses_written()

        try:
            await runtime.run(
                on_ready=on_ready,
                on_message=on_message,
                on_end=lambda: self._feed(StreamEnded(epoch=epoch)),
                on_lost=lambda: self._on_lost(runtime),
                task_status=task_status,
            )
        except RuntimeStartError:
            raise  # before it started: `start` reports it
        except Exception:
            # Our own code failed while handling what Claude said
            # (docs/decisions.md#internal-faults): never "lost".
            await self._fault("the Claude runtime task")
        finally:
            self._answer_if_forgotten(runtime)
            # Its background tasks ended with it: stopped when the adapter ended it (a close,
            # a fresh context), failed when it ended on its own.
            ours = runtime.closed_by_adapter or self.runtime is not runtime
            await self._view.background_work_ended("stopped" if ours else "failed")

    async def _responses_written(self) -> None:
        """Wait until the responses of the prompts the last frame answered are written: what
        Claude says after a prompt's answer follows that answer on the wire (the prompt's
        handler writes it, in a task of its own), whatever else the event loop runs first
        (docs/decisions.md#turns-that-wait). Each wait is bounded by its ticket."""
        due, self.responses_due = self.responses_due, []
        for ticket in due:
            await ticket.written()

    async def _on_lost(self, runtime: ClaudeRuntime) -> None:
        if runtime.too_large:
            limit = self._settings.max_message_bytes
            await self._feed(MessageTooLarge(epoch=runtime.epoch, limit_bytes=limit))
        await self._feed(TransportLost(epoch=runtime.epoch))

    def _answer_if_forgotten(self, runtime: ClaudeRuntime) -> None:
        # Safety net for the "exactly one answer" promise: a prompt still waiting when its
        # runtime's task is over would otherwise wait forever. Normally the core answered it.
        for answer in self._answers.values():
            if answer.epoch == runtime.epoch and not answer.done.is_set():
                log.error("session %s: a prompt was left unanswered; answering it", self.session_id)
                answer.give(RequestError.internal_error({"reason": "the Claude runtime failed"}))

    async def on_message(self, message: Any, raw: Any, epoch: str) -> None:
        """One frame from Claude's process `epoch`, one way through: read
        (`adapter.claude.translate.read_frame`), followed by the controls where Claude changed
        something by itself, shown by the view where it comes before the core's decision,
        decided by the core (whose effects the view and the wire perform), then shown where it
        follows that decision."""
        now = self._clock()
        await self._heard(epoch, now)
        # Raw, before it is read, to a client that asked (the reference's order:
        # docs/reference-adapter.md#raw-messages).
        await self._controls.forward_raw(raw)
        if isinstance(message, SystemMessage):
            for line in self._problems.lines(message.subtype, message.data):
                log.warning("session %s: %s", self.session_id, line)
        reading = read_frame(message, raw, epoch, now=now, wall=self._wall())
        shown = reading.shown
        if shown is Shown.STREAM:
            # The bulk of a turn. Withheld prose goes out before a new answer
            # (docs/decisions.md#error-prose-without-record), then the view draws the delta.
            for event in reading.events:
                await self._feed(event)
            await self._view.stream_event(message)
            return
        if shown is Shown.UNPARSED:
            for event in reading.events:  # Claude Code started a prompt: its turn begins
                await self._feed(event)
            await self._view.unparsed(message.data)
            return
        # What Claude Code changed by itself (a mode, fast mode, its commands, a fallback's
        # model), a malformed frame's too.
        await self._controls.follow(reading.changes)
        if shown is Shown.MALFORMED:
            log.warning("skipped a malformed %s from Claude", type(message).__name__)
            return
        message = reading.shown_message(message)
        # Before the core: what the view counts of the frame, which the core's effects (a
        # prompt's answer and its usage) and the context measure below read.
        if shown is Shown.SYSTEM:
            await self._view.system(message)
        elif shown is Shown.ASSISTANT:
            self._view.saw_assistant(message)
            await self._view.own_output(message.parent_tool_use_id)
        elif shown is Shown.RATE_LIMIT:
            await self._view.rate_limited(message.rate_limit_info)
        if reading.measured:
            # The idle compaction reads it when the turn ends.
            context = ContextMeasured(
                epoch=epoch, tokens=self._view.context_used, cache_ttl=self._view.cache_ttl
            )
            await self._feed(context)
        # A result is shown at the core's first word on it, whose it is (`ShowResult`,
        # docs/decisions.md#result-owner), before what else it ends.
        for event in reading.events:
            await self._feed(event, message)
        # After the core: what follows its decision.
        if shown is Shown.ECHO and reading.taken_up is not None:
            # Claude took the message up: prompt queueing's hand-off (`PromptEchoed`, fed).
            self._view.taken_up(reading.taken_up)
            runtime = self.runtime
            ours = runtime is None or runtime.sent_by_adapter(reading.taken_up)
            if ours:
                # A prompt of the client's took Claude's own work over (its autonomous turn).
                await self._view.prompt_took_over()
            said = remote_content(raw, ours=ours)
            if said:
                # Typed in another client of the session (Remote Control): shown as the user's.
                await self._view.user_said(said)
        elif shown is Shown.TOOL_RESULTS:
            await self._view.tool_results(message, raw)

    async def interrupt(self, runtime: ClaudeRuntime) -> None:
        try:
            await runtime.interrupt()
        except Exception:
            # Claude's transport, not our code: the grace period's backstop still stops it.
            log.warning("session %s: interrupt failed", self.session_id, exc_info=True)

    async def send_prompt(self, turn_id: str, answer: PromptAnswer) -> None:
        if self.starting_fresh is not None:
            await self.starting_fresh.wait()  # the fresh context's process, not one more
        # The runtime machine says when a Claude process starts (none yet, or it was lost, or
        # the credentials changed): `SendPrompt.replace_runtime`.
        if answer.replace_runtime:
            old, self.runtime = self.runtime, None
            if old is not None:
                # In the background: what it still says is dropped (the core retired it), and
                # its own reader may be closing it right now (a second close waits for that).
                self._tg.start_soon(old.close)
            try:
                await self.start()
            except RuntimeStartError as exc:
                # This prompt still gets its one answer, in the client's own terms.
                await self._feed(PromptSent(turn_id=turn_id, now=self._clock()))
                await self._feed(RuntimeStartFailed(reason=str(exc)))
                return
        runtime = self.runtime
        if runtime is None:
            # Cannot happen: the core asks for a start whenever no process can take a prompt.
            # Should it, the prompt still gets its one answer rather than wait forever.
            log.error("session %s: a prompt with no Claude process to go to", self.session_id)
            await self._feed(PromptSent(turn_id=turn_id, now=self._clock()))
            await self._feed(RuntimeStartFailed(reason="Claude is not running."))
            return
        message = claude_user_message(answer.content, turn_id=turn_id)
        await self._feed(PromptSent(turn_id=turn_id, now=self._clock()))
        if not answer.pushed:
            # A pushed prompt's turn begins when Claude takes it up (`TurnTakenUp`).
            self._view.prompted(answer.blocks, by_adapter=answer.by_adapter)
        # Only now is it this runtime's prompt (its safety net answers it if all else fails).
        answer.epoch = runtime.epoch
        self.resume = True
        try:
            await runtime.send(message)
        except Exception:
            # Writing to Claude's process failed: its transport, so "lost" is the truth.
            log.warning("session %s: sending to Claude failed", self.session_id, exc_info=True)
            await self._feed(TransportLost(epoch=runtime.epoch))
