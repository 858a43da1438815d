"""One Claude process: a `ClaudeSDKClient`, its reader loop, and its epoch.

The reader is the runtime's recovery boundary for Claude's transport only: whatever the SDK
raises while *reading* (the process died, printed garbage, the pipe broke) ends the runtime with
one `on_lost` call, and a clean end of Claude's output with one `on_end` call. What our own
`on_message` raises is not Claude's failure (docs/decisions.md#internal-faults): it propagates to
the caller, which reports an internal fault. Starting fails with `RuntimeStartError`, whose message
is safe to show a user. Every private SDK touchpoint used here lives in
`adapter/claude/sdk_compat.py`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
)
from claude_agent_sdk.types import (
    CanUseTool,
    PermissionResult,
    PermissionResultDeny,
    ToolPermissionContext,
)

from adapter.claude.client_options import apply as apply_client_options
from adapter.claude.executable import bundled_claude
from adapter.claude.hooks import ClaudeHooks
from adapter.claude.launch import Launch
from adapter.claude.runtime_settings import RuntimeSettings
from adapter.claude.sdk_compat import (
    ExitBoundedTransport,
    answer_elicitations,
    configure_can_use_tool,
    send_control_request,
    send_frames_without_turns,
    spawn_before_the_backend,
    with_hints,
)
from adapter.claude.settings_files import SETTING_SOURCES
from adapter.claude.start_errors import RuntimeStartError, start_error

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ClaudeRuntime", "Launch", "RuntimeStartError"]

log = logging.getLogger(__name__)

# The one point where the SDK's transport module is patched to spawn Claude before anyio's
# asyncio backend is imported (process-wide, idempotent): with the module that spawns Claude,
# before any runtime is made (docs/performance.md).
spawn_before_the_backend()


# Bounded cleanup: a Claude process that will not stop is not allowed to hold the adapter.
CLOSE_TIMEOUT_SECONDS = 5.0
# How long a Claude closed before its start-up handshake ended gets after SIGTERM.
UNSTARTED_STOP_GRACE_SECONDS = 2.0
# The user messages sent whose echoes may still come (far more than can be in flight).
SENT_UUIDS_KEPT = 1000


async def _no_prompt() -> AsyncIterator[dict[str, Any]]:
    # Streaming mode with nothing queued: prompts are written one by one with `query`.
    return
    yield {}


def _routed(
    options: dict[str, Any], routing: dict[str, str], cwd: str
) -> tuple[dict[str, Any], Path | None]:
    """`options` routed through the client's provider: its environment outranks the client's
    own (`_meta.claudeCode.options.env`), and rides in the settings tier too, which Claude Code
    applies after its environment (`fsm.routed_settings`; docs/reference-adapter.md#providers);
    with the private file that tier is, if any, to remove when this Claude is gone
    (docs/decisions.md#provider-settings-file, docs/decisions.md#provider-requests). Raises
    `RuntimeStartError`, in the core's words (`fsm.settings_file_refusal`), when the client's
    settings file cannot be used or copied privately: started with that file as named, its `env`
    (or a user's or project's) would outrank the route, and the route's headers could go
    elsewhere (docs/decisions.md#provider-settings-file)."""
    from fsm import routed_settings, settings_file_refusal, settings_path

    routed = {**options, "env": {**options.get("env", {}), **routing}}
    named = settings_path(options.get("settings"))
    if named is not None:
        from adapter.claude.settings_copy import NotRouted, routed_copy

        try:
            routed_file = routed_copy(named, cwd, routing)
        except NotRouted as refused:
            raise RuntimeStartError(settings_file_refusal(refused.problem)) from None
        routed["settings"] = str(routed_file)
        return routed, routed_file
    tier = routed_settings(options.get("settings"), routing, private_file=True)
    if tier is None:
        return routed, None
    from adapter.claude.settings_copy import private_tier

    # Off the command line (docs/decisions.md#provider-requests); failing that, on it without
    # the headers, which the environment carries.
    copy = private_tier(tier)
    routed["settings"] = str(copy) if copy else routed_settings(options.get("settings"), routing)
    return routed, copy


def _bundled_cli() -> str | None:
    """The CLI bundled in the SDK, found as the SDK finds it first (`_find_cli`), which it does
    on a worker thread when not told: that would import anyio's asyncio backend before the spawn
    (`sdk_compat.spawn_before_the_backend`). None: the SDK looks further (PATH...) itself."""
    found = bundled_claude()
    return str(found) if found is not None else None


class ClaudeRuntime:
    def __init__(
        self,
        *,
        settings: RuntimeSettings,
        cwd: str,
        session_id: str,
        resume: bool,
        can_use_tool: CanUseTool | None = None,
        launch: Launch | None = None,
    ) -> None:
        self.epoch = str(uuid.uuid4())
        self._sent_uuids: dict[str, None] = {}  # the user messages sent, oldest first
        self._executable = settings.executable
        self._private = settings.masked()
        # Who answers Claude's permission questions: given later (`answer_permissions_with`)
        # when the process is spawned before its session exists.
        self._can_use_tool = can_use_tool
        # The start-up handshake `spawn` began in the background, and how it failed.
        self._handshake: anyio.Event | None = None
        self._handshake_error: Exception | None = None
        self._started = False  # the handshake is over and succeeded (`run`)
        # Set when the reader ended because one of Claude's messages was over the limit.
        self.too_large = False
        launch = launch or Launch()
        # What the session answers: the PostCompact hook (`hooks.answer_with`) and MCP servers'
        # elicitations (`hooks.answer_elicitations_with`, Claude Code's own requests).
        self.hooks = ClaudeHooks(epoch=self.epoch)
        chosen: dict[str, Any] = dict(
            cli_path=settings.executable or _bundled_cli(),
            cwd=cwd,
            # Plain session_state_changed frames reach us, so a turn that went idle without a
            # result is seen instead of waited on forever.
            # ...and a start-up failure Claude Code can explain ends in a result saying why
            # (`startup_failure_reason`), not in stderr alone (adapter.claude.start_errors).
            env={
                "CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1",
                "CLAUDE_CODE_STARTUP_FAILURE_RESULTS": "1",
                **settings.env,
            },
            system_prompt=launch.surroundings.prompt_option(),
            add_dirs=list(launch.surroundings.add_dirs),
            # Text and thinking stream as Claude writes them (adapter.view.stream_assembly).
            include_partial_messages=True,
            can_use_tool=self._ask,
            # PostCompact and the others, answered by the session (`adapter.claude.hooks`).
            hooks=self.hooks.options(subagents=launch.subagent_hooks),
            # Claude's stderr is read line by line into our log: an unread pipe would stall it.
            stderr=lambda line: log.debug("claude: %s", line.rstrip()),
            resume=session_id if resume else None,
            session_id=None if resume else session_id,
            # The SDK's default (1 MiB) ends Claude's process on one large file read.
            max_buffer_size=settings.max_message_bytes,
            # Claude Code's user, project and local settings files, as Claude Code reads them.
            setting_sources=list(SETTING_SOURCES),
            permission_mode=launch.permission_mode,
            model=launch.model,
            effort=launch.effort,
            mcp_servers=launch.mcp_servers,
            disallowed_tools=list(launch.disallowed_tools),
            enable_file_checkpointing=launch.file_checkpoints,
            # Claude Code echoes each user message when it takes it up: a prompt pushed into
            # a running turn begins its own turn there (prompt queueing).
            # ...and, for a client that shows them, predicts the next prompt after each turn
            # (a `prompt_suggestion` frame; the SDK has no option for it).
            extra_args={
                "replay-user-messages": None,
                **({"prompt-suggestions": None} if launch.prompt_suggestions else {}),
            },
        )
        merged = apply_client_options(chosen, launch.client_options)
        # The provider the client set, as this process starts with it (`routing`: what the
        # agent compares with the provider now, adapter.agent.provider_requests).
        self.routing = settings.route.routing() or None
        self._settings_copy: Path | None = None
        # Why this Claude must not start, raised where it would (`spawn`, `run`).
        self._refused: RuntimeStartError | None = None
        if self.routing is not None:
            try:
                merged, self._settings_copy = _routed(merged, self.routing, cwd)
            except RuntimeStartError as exc:
                self._refused = exc
        if launch.agent_picked:
            # The user's pick in the agent picker outlives the client's `agent` option.
            extra = {k: v for k, v in merged["extra_args"].items() if k != "agent"}
            merged["extra_args"] = {**extra, **({"agent": launch.agent} if launch.agent else {})}
        options = ClaudeAgentOptions(**merged)
        # The client configures its own copy of the options; the transport builds the command
        # line, so it gets them configured the same way the client would have done for it.
        transport = ExitBoundedTransport(
            prompt=_no_prompt(), options=configure_can_use_tool(options)
        )
        self._transport = transport
        self.client = ClaudeSDKClient(options=options, transport=transport)

    def answer_permissions_with(self, can_use_tool: CanUseTool) -> None:
        self._can_use_tool = can_use_tool

    async def _ask(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        if self._can_use_tool is None:
            # Claude asks only during a prompt, and a prompt reaches Claude only through a
            # session that owns this runtime; refuse rather than guess if that ever breaks.
            log.error("Claude runtime %s asked before a session owned it", self.epoch)
            return PermissionResultDeny(message="The session is not ready.")
        hinted = with_hints(context, self._transport.take_hints(context.tool_use_id))
        return await self._can_use_tool(tool_name, tool_input, hinted)

    def _start_error(self, exc: Exception) -> RuntimeStartError:
        return start_error(
            exc,
            self._executable,
            noted=self._transport.startup_failure,
            private=self._private,
        )

    async def spawn(self, task_group: TaskGroup) -> None:
        """Start Claude's process and, in `task_group`, its start-up handshake; return once the
        handshake's first request is written (or the handshake is over), so that Claude works
        on it while the caller prepares the session. `run` then waits for the rest. Raises
        `RuntimeStartError` when the process cannot be started; a failed handshake is raised
        by `run`."""
        if self._refused is not None:
            raise self._refused
        try:
            await self._transport.connect()
        except Exception as exc:
            await self._transport.close()
            raise self._start_error(exc) from exc
        handshake = self._handshake = anyio.Event()
        under_way = self._transport.written = anyio.Event()

        async def connect() -> None:
            try:
                await self.client.connect()
            except Exception as exc:
                self._handshake_error = exc
            finally:
                handshake.set()
                under_way.set()

        task_group.start_soon(connect)
        await under_way.wait()

    def silent(self) -> bool:
        """Whether Claude is still starting up and has written nothing that waits to be read:
        while it is, a session's opening may do work no answer needs (`WorkAhead`)."""
        handshake = self._handshake
        if handshake is not None and handshake.is_set():
            return False
        return self._transport.silent()

    async def _connect(self) -> None:
        if self._refused is not None:
            raise self._refused
        if self._handshake is None:
            await self.client.connect()  # spawns Claude, then its start-up handshake
            return
        await self._handshake.wait()
        if self._handshake_error is not None:
            raise self._handshake_error

    async def run(
        self,
        *,
        on_ready: Callable[[], Awaitable[None]],
        on_message: Callable[[Any, dict[str, Any]], Awaitable[None]],
        on_end: Callable[[], Awaitable[None]],
        on_lost: Callable[[], Awaitable[None]],
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Connect (or wait for the handshake `spawn` began), call `on_ready` (before anything
        Claude says is read, so the session knows this runtime first), report started, then
        read until Claude's output ends. `on_message` gets each parsed message with its raw
        frame; what it raises propagates (our fault, not Claude's), after the process is
        closed."""
        try:
            await self._connect()
        except Exception as exc:
            await self._transport.close()  # a process `spawn` started outlives a failed connect
            self._remove_settings_copy()
            raise self._start_error(exc) from exc
        except BaseException:
            # Cancelled before the handshake ended: no session owns this Claude yet, so nobody
            # else would stop it or remove what it was given (docs/decisions.md#openings-at-exit).
            with anyio.CancelScope(shield=True):
                await self.close()
            raise
        self._started = True
        # MCP servers' questions, which the SDK refuses, go to the session (`hooks.elicit`).
        if not answer_elicitations(self.client, self.hooks.elicit):
            log.warning("Claude runtime %s: MCP servers' questions will be refused", self.epoch)
        send_frames_without_turns(self.client)  # every streamed delta is a frame
        await on_ready()
        task_status.started()
        try:
            await self._read(on_message, on_end, on_lost)
        finally:
            await self.close()

    async def _read(
        self,
        on_message: Callable[[Any, dict[str, Any]], Awaitable[None]],
        on_end: Callable[[], Awaitable[None]],
        on_lost: Callable[[], Awaitable[None]],
    ) -> None:
        messages = self._messages()
        try:
            while True:
                try:
                    message, raw = await anext(messages)
                except StopAsyncIteration:
                    break
                except Exception as exc:
                    # Declared recovery boundary: Claude's transport failed while we read it.
                    # The reason is logged, the session hears "lost" (or "too large", a
                    # clear record, when one message was over the buffer).
                    from adapter.claude.message_stream import over_the_buffer

                    self.too_large = over_the_buffer(exc)
                    # INFO: the user sees this failure as a record or an error already.
                    log.info("Claude runtime %s ended with an error", self.epoch, exc_info=True)
                    await on_lost()
                    return
                await on_message(message, raw)  # what this raises is ours: it propagates
            await on_end()
        finally:
            await messages.aclose()

    def _messages(self) -> AsyncGenerator[tuple[Any, dict[str, Any]], None]:
        # Imported once Claude is spawned, not before (docs/performance.md).
        from adapter.claude.message_stream import messages_with_frames

        return messages_with_frames(self.client)

    async def send(self, message: dict[str, Any]) -> None:
        async def one() -> Any:
            yield message

        stamp = message.get("uuid")
        if isinstance(stamp, str):
            # Its echo is stamped human as one typed elsewhere is (`sent_by_adapter`).
            self._sent_uuids[stamp] = None
            while len(self._sent_uuids) > SENT_UUIDS_KEPT:
                del self._sent_uuids[next(iter(self._sent_uuids))]
        await self.client.query(one())

    def sent_by_adapter(self, stamp: object) -> bool:
        """Whether the user message stamped `stamp` is one the adapter sent this process (a
        prompt, a steer), not one a person typed in another client of the session."""
        return isinstance(stamp, str) and stamp in self._sent_uuids

    async def interrupt(self) -> None:
        await self.client.interrupt()

    # Made on first use, not with the runtime: making an anyio event imports anyio's asyncio
    # backend (about 9 ms), which a first session's spawn does not wait for
    # (`serving.LateTaskGroup`).
    @functools.cached_property
    def _stopped(self) -> anyio.Event:
        """Set when the adapter stops this process."""
        return anyio.Event()

    @functools.cached_property
    def _closed(self) -> anyio.Event:
        """Set when this process is closed."""
        return anyio.Event()

    @property
    def closed_by_adapter(self) -> bool:
        """The adapter closed (or stopped) this process; it did not end on its own."""
        return self._stopped.is_set()

    async def withdraw(self, message_uuid: str) -> None:
        """Drop a user message Claude Code has queued and not taken up (a no-op if it has)."""
        request = {"subtype": "cancel_async_message", "message_uuid": message_uuid}
        await send_control_request(self.client, request)

    async def stop_task(self, task_id: str) -> None:
        """Stop one background task (Claude Code then reports its end in the stream)."""
        await self.client.stop_task(task_id)

    async def stop(self, grace: float) -> None:
        """Stop Claude now (the adapter is exiting): SIGTERM, then SIGKILL after `grace`
        seconds, then the SDK's own cleanup (which then has no process left to wait for)."""
        await self._end_process(grace)
        await self.close()

    async def _end_process(self, grace: float) -> None:
        """SIGTERM to Claude's process, SIGKILL after `grace` seconds if it is still there."""
        process = self._transport.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            with anyio.move_on_after(grace, shield=True):
                await process.wait()
            if process.returncode is None:
                log.warning("Claude runtime %s ignored SIGTERM; killing it", self.epoch)
                with contextlib.suppress(ProcessLookupError):
                    process.kill()

    async def server_info(self) -> dict[str, Any]:
        """Claude Code's initialize answer (its commands, models, account)."""
        return await self.client.get_server_info() or {}

    async def set_permission_mode(self, mode: str) -> None:
        await self.client.set_permission_mode(mode)  # type: ignore[arg-type]

    async def set_model(self, model: str) -> None:
        await self.client.set_model(model)

    async def apply_flag_settings(self, settings: dict[str, Any]) -> None:
        """Claude Code's `apply_flag_settings` control request (the SDK has no wrapper for
        it in the pinned version; the TypeScript SDK's `applyFlagSettings` sends the same): an
        effort (`fsm.effort_flag_settings` says what goes with it) or the Ultracode switch."""
        request = {"subtype": "apply_flag_settings", "settings": settings}
        await send_control_request(self.client, request)

    async def get_settings(self) -> Any:
        """Claude Code's `get_settings` control request (no SDK wrapper in the pinned version):
        its settings as it applies them (`applied.ultracodeAvailable`, ...)."""
        return await send_control_request(self.client, {"subtype": "get_settings"})

    async def context_usage(self) -> Any:
        """Claude Code's `get_context_usage` with `detail: "summary"` (answered from its last
        usage, without the per-category token counts `full` asks its API for), as the
        reference adapter asks it for the context window (`rawMaxTokens`;
        docs/reference-adapter.md#model-switches)."""
        request = {"subtype": "get_context_usage", "detail": "summary"}
        return await send_control_request(self.client, request)

    async def set_agent(self, agent: str | None) -> None:
        """The agent Claude Code's main thread runs as from its next turn (None: its own), with
        the same `apply_flag_settings` (docs/reference-adapter.md#agent-picker)."""
        request = {"subtype": "apply_flag_settings", "settings": {"agent": agent}}
        await send_control_request(self.client, request)

    async def set_fast(self, on: bool) -> None:
        """Fast mode, through the same `apply_flag_settings`
        (docs/reference-adapter.md#auto-mode)."""
        request = {"subtype": "apply_flag_settings", "settings": {"fastMode": on}}
        await send_control_request(self.client, request)

    async def rename(self, title: str, session_id: str) -> None:
        """Claude Code's `rename_session` control request (no SDK wrapper in the pinned
        version): it takes the title as the session's own, so it never writes an older one
        back over it."""
        request = {"subtype": "rename_session", "title": title, "source": "host"}
        await send_control_request(self.client, {**request, "session_id": session_id})

    async def until_stopped(self, work: Callable[[], Awaitable[Any]]) -> None:
        """Run `work`, cancelled as soon as the adapter stops this process: a control request
        to a Claude that is gone would wait out its own timeout, holding its session's objects
        (a closed session's title request held them for a minute)."""
        async with anyio.create_task_group() as group:

            async def cancel_when_stopped() -> None:
                await self._stopped.wait()
                group.cancel_scope.cancel()

            group.start_soon(cancel_when_stopped)
            try:
                await work()
            finally:
                group.cancel_scope.cancel()

    async def close(self) -> None:
        """Disconnect (boundedly); a second caller waits for the first one's disconnect, so
        whoever closes knows Claude's process and pipes are gone when this returns. A Claude
        whose start-up handshake never ended (its opening was cancelled or failed) is stopped
        first: it has nothing of a session to write, and the SDK's gentle close would wait for
        a process that may not be reading its input (docs/decisions.md#openings-at-exit)."""
        if self._stopped.is_set():
            with anyio.move_on_after(CLOSE_TIMEOUT_SECONDS, shield=True):
                await self._closed.wait()
            return
        self._stopped.set()
        try:
            with anyio.move_on_after(CLOSE_TIMEOUT_SECONDS, shield=True):
                try:
                    if not self._started:
                        await self._end_process(UNSTARTED_STOP_GRACE_SECONDS)
                    await self.client.disconnect()
                    # A process spawned but never connected is the transport's alone (the
                    # client closes only what it connected); closing twice is harmless.
                    await self._transport.close()
                except Exception:
                    log.debug("disconnect of runtime %s failed", self.epoch, exc_info=True)
        finally:
            self._remove_settings_copy()
            self._closed.set()

    def _remove_settings_copy(self) -> None:
        """The private copy of the client's settings file this Claude started with, if any,
        removed once Claude is gone (docs/decisions.md#provider-settings-file)."""
        if self._settings_copy is not None:
            from adapter.claude.settings_copy import remove_copy

            remove_copy(self._settings_copy)
            self._settings_copy = None
