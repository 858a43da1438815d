"""Serving ACP on stdio: the agent, its transport behind the wire guard, and the signals.

`adapter.app.cli` decides what to run; this is the run itself, under one task group that the
agent's sessions share. Imported only when serving, so `--help` and the tools start light.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from acp.interfaces import Agent

    from adapter.agent.acp_agent import ClaudeAcpAgent
    from adapter.claude.runtime_settings import RuntimeSettings
    from adapter.wire.guard import GuardedTransport
    from adapter.wire.trace import WireTrace

__all__ = ["serve_stdio"]


async def serve_stdio(
    executable: str | None, env: dict[str, str], trace: WireTrace | None
) -> int | None:
    """Serve until the input ends or a signal comes; returns that signal's number, if any."""
    from adapter.lean_imports import prepare_imports, resume_collection

    prepare_imports()  # before anything imports acp or the SDK: about half the start-up time
    from adapter.app.child_watch import watch_children_with_pidfds

    watch_children_with_pidfds(asyncio.get_running_loop())  # 3.11: no thread per Claude

    import acp
    import anyio

    from adapter.agent.acp_agent import ClaudeAcpAgent
    from adapter.claude.runtime_settings import from_environment

    settings = from_environment(executable, env)
    caught: list[int] = []
    async with anyio.create_task_group() as tg:
        agent = ClaudeAcpAgent(task_group=tg, settings=settings)
        try:
            transport = await _transport(agent, settings, trace)
            agent.attach_bulk_sender(transport.send_session_updates)
            agent.attach_responses(transport.responses)
            _stop_on_signals(transport, caught)
            resume_collection()  # paused by `claude-acp`'s start-up (adapter/lean_imports.py)
            # acp's Agent protocol lists every ACP method; the ones we leave out answer -32601.
            # session/resume, fork and close are "unstable" in acp 0.12.1 and answer -32601
            # unless this is set.
            await acp.run_agent(cast("Agent", agent), transport, use_unstable_protocol=True)
        finally:
            # The client went away (stdin closed): end every Claude process, boundedly.
            with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                await agent.close()
            tg.cancel_scope.cancel()
    return caught[0] if caught else None


async def _transport(
    agent: ClaudeAcpAgent, settings: RuntimeSettings, trace: WireTrace | None
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
        private=settings.private,
    )


def _stop_on_signals(transport: GuardedTransport, caught: list[int]) -> None:
    """SIGTERM, SIGINT and SIGHUP end the agent like the end of its input: every prompt in
    flight is answered `cancelled`, Claude is stopped, and `serve` exits 128 + the signal."""
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        # A client ending its agent (SIGTERM) is the normal way to stop, not a problem: INFO,
        # so a client that shows stderr (the Python SDK's example) shows nothing at the default.
        logging.getLogger(__name__).info("%s: shutting down", signal.Signals(signum).name)
        if not caught:
            caught.append(signum)
            transport.stop()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
            loop.add_signal_handler(signum, on_signal, signum)
