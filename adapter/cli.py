"""`claude-acp`: serve ACP on stdio, serve it with a scripted Claude, or run the demo.

    claude-acp                      serve, spawning $CLAUDE_CODE_EXECUTABLE (default: bundled CLI)
    claude-acp --simulate SCENARIO  serve, spawning the scripted Claude playing SCENARIO
    claude-acp demo [SCENARIO]      run the adapter against a real ACP client and print the frames
    claude-acp conformance LOG      check any agent's ACP wire log against the sessionFailure spec
    claude-acp login [--claudeai | --console]
                                    sign in to Claude with the Claude Code bundled in the SDK

Stdout carries only JSON-RPC frames when serving; logs go to stderr ($CLAUDE_ACP_LOG sets the
level, default WARNING).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from acp.interfaces import Agent

    from adapter.wire_guard import GuardedTransport

__all__ = ["main"]


def _configure_logging() -> None:
    level = os.environ.get("CLAUDE_ACP_LOG", "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level, logging.WARNING),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # transitions logs every state change at INFO/DEBUG; ours are logged where they matter.
    logging.getLogger("transitions").setLevel(logging.WARNING)


def _stall_seconds() -> float:
    raw = os.environ.get("CLAUDE_ACP_STALL_SECONDS", "120")
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0 or value != value or value == float("inf"):
        logging.getLogger(__name__).warning("ignoring CLAUDE_ACP_STALL_SECONDS=%r", raw)
        return 120.0
    return value


async def _serve(executable: str | None, env: dict[str, str]) -> int | None:
    """Serve until the input ends or a signal comes; returns that signal's number, if any."""
    import acp
    import anyio

    from adapter.agent import ClaudeAcpAgent
    from adapter.settings import (
        MAX_LINE_BYTES,
        MAX_MESSAGE_BYTES,
        RuntimeSettings,
        env_bytes,
        private_values,
    )
    from adapter.stdio import open_stdio
    from adapter.wire_guard import GuardedTransport

    settings = RuntimeSettings(
        executable=executable,
        env=env,
        stall_seconds=_stall_seconds(),
        max_message_bytes=env_bytes("CLAUDE_ACP_MAX_MESSAGE_BYTES", MAX_MESSAGE_BYTES),
        private=private_values(os.environ),
    )
    caught: list[int] = []
    async with anyio.create_task_group() as tg:
        agent = ClaudeAcpAgent(task_group=tg, settings=settings)
        try:
            reader, writer, _ = await open_stdio()
            transport = GuardedTransport(
                reader,
                writer,
                limit=env_bytes("CLAUDE_ACP_MAX_LINE_BYTES", MAX_LINE_BYTES),
                on_eof=agent.shutdown,
                private=settings.private,
            )
            _stop_on_signals(transport, caught)
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


def _stop_on_signals(transport: GuardedTransport, caught: list[int]) -> None:
    """SIGTERM, SIGINT and SIGHUP end the agent like the end of its input: every prompt in
    flight is answered `cancelled`, Claude is stopped, and `serve` exits 128 + the signal."""
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        logging.getLogger(__name__).warning("%s: shutting down", signal.Signals(signum).name)
        if not caught:
            caught.append(signum)
            transport.stop()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
            loop.add_signal_handler(signum, on_signal, signum)


def serve(simulate: str | None) -> int:
    executable = os.environ.get("CLAUDE_CODE_EXECUTABLE") or None
    env: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="claude-acp-") as scratch:
        if simulate is not None:
            from adapter.scripted_claude import SCENARIO_ENV, SCENARIOS, write_launcher

            if simulate not in SCENARIOS:
                print(
                    f"unknown scenario {simulate!r}; try: claude-acp demo --list", file=sys.stderr
                )
                return 2
            executable = str(write_launcher(Path(scratch) / "bin"))
            env[SCENARIO_ENV] = simulate
            # The scripted Claude keeps transcripts like the real one; never in the user's own.
            if "CLAUDE_CONFIG_DIR" not in os.environ:
                env["CLAUDE_CONFIG_DIR"] = str(Path(scratch) / "claude-config")
                # session/list and fork read the same folder through the SDK, in-process.
                os.environ["CLAUDE_CONFIG_DIR"] = env["CLAUDE_CONFIG_DIR"]
        try:
            signum = asyncio.run(_serve(executable, env))
        except KeyboardInterrupt:
            # A Ctrl-C before the signal handlers were installed.
            return 128 + signal.SIGINT
    return 0 if signum is None else 128 + signum


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    _configure_logging()
    from adapter.log_masking import install_log_masking
    from adapter.settings import private_values

    install_log_masking(private_values(os.environ))
    if args and args[0] == "demo":
        from adapter.demo import main as demo_main

        status: int = demo_main(args[1:])
        return status
    if args and args[0] == "login":
        from adapter.login import main as login_main

        return login_main(args[1:])
    if args and args[0] == "conformance":
        from adapter.conformance import main as conformance_main

        checked: int = conformance_main(args[1:])
        return checked
    parser = argparse.ArgumentParser(
        prog="claude-acp", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--simulate", metavar="SCENARIO", help="serve with the scripted Claude playing SCENARIO"
    )
    parsed = parser.parse_args(args)
    return serve(parsed.simulate)


if __name__ == "__main__":
    sys.exit(main())
