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
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from acp.interfaces import Agent

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


# acp's own default: the longest JSON-RPC line accepted from the client.
STDIO_LIMIT_BYTES = 50 * 1024 * 1024


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


async def _serve(executable: str | None, env: dict[str, str]) -> None:
    import acp
    import anyio

    from adapter.agent import ClaudeAcpAgent
    from adapter.settings import RuntimeSettings, private_values
    from adapter.stdio import gathered_stdio_streams

    settings = RuntimeSettings(
        executable=executable,
        env=env,
        stall_seconds=_stall_seconds(),
        private=private_values(os.environ),
    )
    async with anyio.create_task_group() as tg:
        agent = ClaudeAcpAgent(task_group=tg, settings=settings)
        try:
            # acp's Agent protocol lists every ACP method; the ones we leave out answer -32601.
            reader, writer = await gathered_stdio_streams(limit=STDIO_LIMIT_BYTES)
            # session/resume, fork and close are "unstable" in acp 0.12.1 and answer -32601
            # unless this is set.
            await acp.run_agent(cast("Agent", agent), writer, reader, use_unstable_protocol=True)
        finally:
            # The client went away (stdin closed): end every Claude process, boundedly.
            with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                await agent.close()
            tg.cancel_scope.cancel()


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
            asyncio.run(_serve(executable, env))
        except KeyboardInterrupt:
            return 130
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    _configure_logging()
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
