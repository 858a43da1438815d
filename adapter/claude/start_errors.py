"""Why Claude Code did not start, in words a user can act on (most editors show only
a JSON-RPC error's `message`, so "Internal error" with the cause in `data` told them nothing).

The message names the cause and never holds Claude Code's own output, an exit status or a path
(it names `CLAUDE_CODE_EXECUTABLE` instead; docs/decisions.md#secrets): "Claude Code was not found
at …", "Claude Code did not start: …".
"""

from __future__ import annotations

from acp import RequestError
from claude_agent_sdk import CLIConnectionError, CLINotFoundError, ProcessError

__all__ = ["RuntimeStartError", "start_error"]

_RUN_IT = "run it in a terminal to see why"


class RuntimeStartError(Exception):
    """Claude could not be started; the message is safe for a client to see."""

    def request_error(self) -> RequestError:
        """The JSON-RPC error that answers the request: -32603, the cause as its message."""
        return RequestError(-32603, str(self), {"reason": str(self)})


def start_error(exc: Exception, executable: str | None) -> RuntimeStartError:
    """The error to report for `exc`, raised while starting `executable` (None: the bundled
    CLI)."""
    # The variable, not its path: a path is private (tests/e2e/test_protocol.py); the user
    # knows what they set it to, and the log file has it.
    where = "CLAUDE_CODE_EXECUTABLE" if executable else "the CLI bundled with claude-agent-sdk"
    if isinstance(exc, CLINotFoundError):
        return RuntimeStartError(f"Claude Code was not found at {where}.")
    cause = exc.__cause__
    if isinstance(exc, CLIConnectionError) and str(exc).startswith("Working directory"):
        return RuntimeStartError("Claude Code did not start: its working folder does not exist.")
    if isinstance(cause, PermissionError):
        return RuntimeStartError(f"Claude Code did not start: {where} is not executable.")
    if isinstance(cause, OSError):
        return RuntimeStartError(
            f"Claude Code did not start: {where} could not be run ({cause.strerror}); {_RUN_IT}."
        )
    if isinstance(exc, ProcessError):
        return RuntimeStartError(
            f"Claude Code did not start: it exited before answering the adapter; {_RUN_IT}."
        )
    if "timeout" in str(exc).lower():
        return RuntimeStartError(
            f"Claude Code did not start: it did not answer the adapter in time; {_RUN_IT}."
        )
    return RuntimeStartError(f"Claude Code did not start: {type(exc).__name__}; {_RUN_IT}.")
