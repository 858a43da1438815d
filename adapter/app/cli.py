"""`claude-acp`: serve ACP on stdio, serve it with a scripted Claude, or run the demo.

    claude-acp                      serve, spawning $CLAUDE_CODE_EXECUTABLE (default: bundled CLI)
    claude-acp --simulate SCENARIO  serve, spawning the scripted Claude playing SCENARIO
    claude-acp demo [SCENARIO]      run the adapter against a real ACP client and print the frames
    claude-acp conformance LOG      check any agent's ACP wire log against the sessionFailure spec
    claude-acp login [--claudeai | --console]
                                    sign in to Claude with the Claude Code bundled in the SDK
    claude-acp doctor               check that claude-acp can work here, and print an editor's
                                    configuration to paste
    claude-acp --version            print the version

Stdout carries only JSON-RPC frames when serving; logs go to stderr ($CLAUDE_ACP_LOG sets the
level, default WARNING) and, with --log-file FILE or $CLAUDE_ACP_LOG_FILE, to FILE as well.
--trace FILE (or $CLAUDE_ACP_TRACE_FILE) writes every JSON-RPC frame of the connection to FILE,
in the format `claude-acp conformance FILE` reads; attach it to a bug report (after reading it:
it holds your prompts).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adapter.app.logs import LOG_FILE_ENV, configure_logging

if TYPE_CHECKING:
    from adapter.wire.trace import WireTrace

TRACE_FILE_ENV = "CLAUDE_ACP_TRACE_FILE"

__all__ = ["main", "version"]

log = logging.getLogger(__name__)


@functools.cache
def version() -> str:
    """The installed distribution's version (from its metadata, so it cannot drift)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("claude-acp")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """`--version`, reading the package metadata only when asked (serving starts faster)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"claude-acp {version()}")
        parser.exit()


TERMINAL_HINT = (
    "claude-acp {version} is waiting for an ACP client (an editor) on stdin: configure your "
    "editor to start it (README: Using it in an editor), or try `claude-acp demo` or "
    "`claude-acp --help`. Ctrl-C quits."
)


def _hint_if_terminal() -> None:
    # An editor gives us pipes; a terminal means a person started us by hand and would
    # otherwise stare at a silent prompt. Stdout stays the protocol's, so the hint is stderr.
    try:
        interactive = sys.stdin is not None and sys.stdin.isatty()
    except ValueError:  # stdin was closed
        interactive = False
    if interactive:
        print(TERMINAL_HINT.format(version=version()), file=sys.stderr, flush=True)


def serve(simulate: str | None, trace: WireTrace | None = None) -> int:
    """Serve ACP on stdio until the client goes away; `trace` (closed here) records the wire."""
    try:
        return _serve_in_scratch(simulate, trace)
    finally:
        if trace is not None:
            trace.close()


def _serve_in_scratch(simulate: str | None, trace: WireTrace | None) -> int:
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
        _hint_if_terminal()
        if log.isEnabledFor(logging.INFO):  # reading the version costs a metadata scan
            log.info(
                "claude-acp %s serving ACP on stdio; Claude Code: %s",
                version(),
                executable or "the CLI bundled with claude-agent-sdk",
            )
        try:
            from adapter.app.serving import serve_stdio

            signum = asyncio.run(serve_stdio(executable, env, trace))
        except KeyboardInterrupt:
            # A Ctrl-C before the signal handlers were installed.
            return 128 + signal.SIGINT
    return 0 if signum is None else 128 + signum


# Subcommands: programs for a person, not the agent.
TOOLS = ("demo", "conformance", "login", "doctor")


def _run_tool(name: str, argv: list[str]) -> int:
    """One of `TOOLS`: programs for a person, whose output may go to `head`."""
    try:
        if name == "demo":
            from adapter.demo.runner import main as demo_main

            status: int = demo_main(argv)
        elif name == "login":
            from adapter.claude.login import main as login_main

            status = login_main(argv)
        elif name == "doctor":
            from adapter.app.doctor import main as doctor_main

            status = doctor_main(argv)
        else:
            from adapter.conformance import main as conformance_main

            status = conformance_main(argv)
        return status
    except BrokenPipeError:
        # The reader (`| head`) stopped early: no traceback, and no flush at exit either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="claude-acp", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-V", "--version", action=_VersionAction, help="print the version and exit")
    parser.add_argument(
        "--simulate", metavar="SCENARIO", help="serve with the scripted Claude playing SCENARIO"
    )
    parser.add_argument(
        "--log-file",
        type=Path,
        metavar="FILE",
        default=os.environ.get(LOG_FILE_ENV) or None,
        help=f"also append log lines to FILE (default: ${LOG_FILE_ENV})",
    )
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        default=os.environ.get(TRACE_FILE_ENV) or None,
        help=f"write the JSON-RPC wire log to FILE (default: ${TRACE_FILE_ENV})",
    )
    return parser


def _open_outputs(log_file: Path | None, trace_file: Path | None) -> WireTrace | None:
    """Start the log file and open the trace before serving, so a bad path fails at once.

    A path refused as unsafe (a link, another user's file: `private_files.py`) is said once on
    stderr and left out, and the agent serves without it: the editor still gets its agent.
    """
    from adapter.wire.private_files import UnsafeFile, open_private

    try:
        configure_logging(log_file)
    except UnsafeFile as refused:
        _say_refused("log", refused)
        configure_logging(None)
    if trace_file is None:
        return None
    from adapter.wire.trace import WireTrace

    try:
        return WireTrace(open_private(trace_file, append=False))
    except UnsafeFile as refused:
        _say_refused("trace", refused)
        return None


def _say_refused(what: str, refused: Exception) -> None:
    print(f"claude-acp: not writing the {what} to {refused}; serving without it", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    from adapter.lean_imports import pause_collection, resume_collection

    pause_collection()  # serving resumes it once started; a tool, or an early return, here
    try:
        return _main(argv)
    finally:
        resume_collection()


def _main(argv: list[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parsed: argparse.Namespace | None = None
    if args and args[0] in TOOLS:
        env_log = os.environ.get(LOG_FILE_ENV)
        log_file, trace_file = (Path(env_log) if env_log else None), None
    else:
        parsed = _parser().parse_args(args)
        log_file, trace_file = parsed.log_file, parsed.trace
        # Serving: the dataclasses defined before `initialize` is answered (hundreds of
        # generated methods) take their code from the cache the first session fills.
        from adapter.lean_imports import cache_dataclass_code

        cache_dataclass_code()
    try:
        trace = _open_outputs(log_file, trace_file)
    except OSError as exc:  # a log or trace file that cannot be opened: say which, plainly
        print(f"claude-acp: cannot open {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    if parsed is not None:
        # The managed policy's environment, before any Claude Code process is started (and
        # before the values to mask are gathered: it may hold a secret).
        from adapter.claude.managed_settings import apply_managed_env

        apply_managed_env(os.environ)
        # A credential variable an editor's preset never filled in would outrank the user's
        # real sign-in in every Claude Code process.
        from adapter.claude.credential_env import drop_placeholders

        drop_placeholders(os.environ, "the adapter's environment")
    from adapter.app.log_masking import install_log_masking
    from adapter.claude.runtime_settings import private_values

    # The environment's secrets; serving points the masking at its settings' values from the
    # same environment then, which grow as a client sets a model provider (adapter/app/serving.py).
    private = private_values(os.environ)
    install_log_masking(lambda: private)
    if parsed is None:
        from adapter.lean_imports import resume_collection

        resume_collection()
        return _run_tool(args[0], args[1:])
    return serve(parsed.simulate, trace)


if __name__ == "__main__":
    sys.exit(main())
