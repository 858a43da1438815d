"""Serving ACP on stdio: the agent, its transport behind the wire guard, and the signals.

`adapter.app.cli` decides what to run; this is the run itself, under one task group that the
agent's sessions share. Imported only when serving, so `--help` and the tools start light.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import logging
import signal
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from acp.interfaces import Agent
    from anyio import CancelScope
    from anyio.abc import TaskGroup

    from adapter.agent.acp_agent import ClaudeAcpAgent
    from adapter.agent.work_ahead import Step
    from adapter.claude.runtime_settings import RuntimeSettings
    from adapter.wire.guard import GuardedTransport
    from adapter.wire.trace import WireTrace

__all__ = ["SPAWN_PATH", "LateTaskGroup", "serve_stdio", "spawn_path_steps"]


async def serve_stdio(
    executable: str | None, env: dict[str, str], trace: WireTrace | None
) -> int | None:
    """Serve until the input ends or a signal comes; returns that signal's number, if any."""
    from adapter.lean_imports import pause_collection, prepare_imports, resume_collection

    prepare_imports()  # before anything imports acp or the SDK: about half the start-up time
    from adapter.app.child_watch import watch_children_with_pidfds

    watch_children_with_pidfds(asyncio.get_running_loop())  # 3.11: no thread per Claude

    import acp

    from adapter.agent.acp_agent import ClaudeAcpAgent
    from adapter.claude.runtime_settings import from_environment

    settings = from_environment(executable, env)
    caught: list[int] = []
    late = LateTaskGroup()
    # The log masks what the wire guard masks, read at each record: values that become private
    # later (a model provider's header values) are masked from then on (`claude-acp`'s start-up
    # installed the masking, with the same environment's values, and imported its module).
    from adapter.app.log_masking import install_log_masking

    install_log_masking(settings.masked)
    agent = ClaudeAcpAgent(task_group=cast("TaskGroup", late), settings=settings)
    transport = await _transport(agent, settings, trace)
    agent.attach_bulk_sender(transport.send_session_updates)
    agent.attach_responses(transport.responses)
    _stop_on_signals(transport, caught, agent.interrupted)
    resume_collection()  # paused by `claude-acp`'s start-up (adapter/lean_imports.py)
    # acp's Agent protocol lists every ACP method; the ones we leave out answer -32601.
    # session/resume, fork and close are "unstable" in acp 0.12.1 and answer -32601 unless
    # this is set.
    serving = asyncio.ensure_future(
        acp.run_agent(cast("Agent", agent), transport, use_unstable_protocol=True)
    )
    ahead = agent.work_ahead
    ahead.add(spawn_path_steps())
    idle_work = asyncio.ensure_future(ahead.when_quiet(transport.quiet))
    serving.add_done_callback(lambda _: idle_work.cancel())
    try:
        # `initialize` is answered without anyio (its asyncio backend alone costs about 9 ms),
        # and a first session spawns its Claude before it is imported (`LateTaskGroup`).
        await late.until_needed(serving)
    except BaseException:
        serving.cancel()
        raise
    # anyio and its asyncio backend make thousands of objects that live as long as the process
    # and next to no garbage: the collector waits, and they are frozen (as start-up's were),
    # unless a first session's imports paused it already (they resume it when they are done).
    paused = pause_collection()
    try:
        import anyio

        group = anyio.create_task_group()
    finally:
        if paused:
            resume_collection()
    async with group as tg:
        late.enter(tg)
        try:
            await serving
        finally:
            # The client went away (stdin closed): end every Claude process, boundedly.
            with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                await agent.close()
            tg.cancel_scope.cancel()
    return caught[0] if caught else None


# What a first session imports before it spawns its Claude, then what anyio's task group needs
# once it has, then what a resume or load reads before its spawn besides (the transcript's tail,
# the SDK's project folder rule that finds it), then the `acp` model each of those requests is
# read with (`module:Model`: built on its first use, `lean_imports.prepare_acp_schema`): done
# ahead in this order while the client leaves the agent alone after `initialize` (an editor
# may, before it asks for a session; `WorkAhead.when_quiet`, none before `initialize` is
# answered). A client that asks for its session at once finds nothing of this in its way.
SPAWN_PATH = (
    "adapter.agent.opening",
    "adapter.claude.claude_runtime",
    "adapter.claude.session_store",
    "anyio._backends._asyncio",
    "adapter.claude.transcript_tail",
    "claude_agent_sdk._internal.sessions",
    "acp.schema:NewSessionRequest",
    "acp.schema:ResumeSessionRequest",
    "acp.schema:LoadSessionRequest",
)


def spawn_path_steps(names: tuple[str, ...] = SPAWN_PATH) -> list[Step]:
    """`names` as steps done ahead: each imports its module, and builds its model if named."""
    return [(name, functools.partial(_ahead, name)) for name in names]


def _ahead(name: str) -> None:
    module, _, model = name.partition(":")
    loaded = importlib.import_module(module)
    if model:
        getattr(loaded, model).model_rebuild()


class LateTaskGroup:
    """The agent's task group, entered when something first uses it.

    The agent is made with this stand-in, and requests reach it before the real (anyio) task
    group exists: answering `initialize` needs none of anyio, and a first session request
    spawns its Claude before anyio's asyncio backend is imported (with the group, or by the
    first anyio primitive made), so that the import runs while Claude starts up. `start_soon`
    before then keeps the call and asks for the group; serving enters it (`enter`), which starts
    the calls kept, in order. `start` asks for it and waits until it is entered; so does
    `until_needed`, serving's wait, which also ends when serving did.
    """

    def __init__(self) -> None:
        self._group: TaskGroup | None = None
        self._needed = asyncio.Event()
        self._entered = asyncio.Event()
        self._kept: list[tuple[Callable[..., Coroutine[Any, Any, Any]], tuple[object, ...], object]]
        self._kept = []

    async def until_needed(self, serving: asyncio.Future[None]) -> None:
        """Wait until the task group is asked for, or `serving` ended."""
        asked = asyncio.ensure_future(self._needed.wait())
        try:
            await asyncio.wait((asked, serving), return_when=asyncio.FIRST_COMPLETED)
        finally:
            asked.cancel()

    def enter(self, group: TaskGroup) -> None:
        self._group = group
        kept, self._kept = self._kept, []
        for func, args, name in kept:
            group.start_soon(func, *args, name=name)
        self._entered.set()

    @property
    def cancel_scope(self) -> CancelScope:
        if self._group is None:
            raise RuntimeError("the agent's task group was used before it was entered")
        return self._group.cancel_scope

    def start_soon(
        self, func: Callable[..., Coroutine[Any, Any, Any]], *args: object, name: object = None
    ) -> None:
        if self._group is None:
            self._kept.append((func, args, name))
            self._needed.set()
            return
        self._group.start_soon(func, *args, name=name)

    async def start(
        self, func: Callable[..., Coroutine[Any, Any, Any]], *args: object, name: object = None
    ) -> Any:
        if self._group is None:
            self._needed.set()
            await self._entered.wait()
            assert self._group is not None
        return await self._group.start(func, *args, name=name)


async def _transport(
    agent: ClaudeAcpAgent,
    settings: RuntimeSettings,
    trace: WireTrace | None,
) -> GuardedTransport:
    """The agent's stdin and stdout as acp's transport, behind the wire guard."""
    from adapter.claude.runtime_settings import MAX_LINE_BYTES, env_bytes
    from adapter.wire.guard import GuardedTransport
    from adapter.wire.stdio import open_stdio
    from adapter.wire.trace import traced

    reader, writer, _ = await open_stdio()
    if trace is not None:
        reader, writer = traced(reader, writer, trace)
    return GuardedTransport(
        reader,
        writer,
        limit=env_bytes("CLAUDE_ACP_MAX_LINE_BYTES", MAX_LINE_BYTES),
        on_eof=agent.shutdown,
        private=settings.masked,
    )


def _stop_on_signals(
    transport: GuardedTransport, caught: list[int], interrupted: Callable[[], None]
) -> None:
    """SIGTERM, SIGINT and SIGHUP end the agent like the end of its input: every prompt in
    flight is answered `cancelled`, Claude is stopped, and `serve` exits 128 + the signal; a
    session still opening is cancelled (`interrupted`), not waited for."""
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        # A client ending its agent (SIGTERM) is the normal way to stop, not a problem: INFO,
        # so a client that shows stderr (the Python SDK's example) shows nothing at the default.
        logging.getLogger(__name__).info("%s: shutting down", signal.Signals(signum).name)
        if not caught:
            caught.append(signum)
            interrupted()
            transport.stop()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
            loop.add_signal_handler(signum, on_signal, signum)
