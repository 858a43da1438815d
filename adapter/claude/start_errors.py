"""Why Claude Code did not start, in words a user can act on (most editors show only
a JSON-RPC error's `message`, so "Internal error" with the cause in `data` told them nothing).

The message names the cause and never holds Claude Code's own output, an exit status or a path
(it names `CLAUDE_CODE_EXECUTABLE` instead; docs/decisions.md#secrets): "Claude Code was not found
at …", "Claude Code did not start: …". The one exception is a start-up failure Claude Code
explains itself (its result with `startup_failure_reason`, which the SDK raises as the
`ResultError` of the handshake): then the message is its own words, scrubbed, and the code and
`data.startupFailureReason` are the reference adapter's (`fsm.start_failure`,
docs/decisions.md#startup-failure-words).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from acp import RequestError
from claude_agent_sdk import CLIConnectionError, CLINotFoundError, ProcessError, ResultError

# The core's start-up failures are imported when a start fails, not with the runtime, which
# every session's spawn imports first (docs/performance.md).
if TYPE_CHECKING:
    from fsm import StartFailureKind

__all__ = ["RuntimeStartError", "start_error"]

_RUN_IT = "run it in a terminal to see why"


class RuntimeStartError(Exception):
    """Claude could not be started; the message is safe for a client to see."""

    def __init__(
        self,
        message: str,
        *,
        kind: StartFailureKind | None = None,
        startup_failure_reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind  # None: the adapter's own words
        self.startup_failure_reason = startup_failure_reason

    def request_error(self) -> RequestError:
        """The JSON-RPC error that answers the request: the cause as its message, -32603
        unless Claude Code named a cause the reference answers otherwise
        (docs/decisions.md#startup-failure-words)."""
        data: dict[str, Any] = {"reason": str(self)}
        if self.startup_failure_reason is not None:
            data["startupFailureReason"] = self.startup_failure_reason
        code = _codes().get(self.kind, -32603) if self.kind is not None else -32603
        return RequestError(code, str(self), data)


def _codes() -> dict[StartFailureKind, int]:
    """The protocol's code for each kind of start-up failure Claude Code explains."""
    from fsm import StartFailureKind

    return {StartFailureKind.SIGN_IN: -32000, StartFailureKind.FOLDER: -32602}


def _explained(
    exc: BaseException, noted: Mapping[str, Any] | None, private: tuple[str, ...]
) -> RuntimeStartError | None:
    """The error for a start-up failure Claude Code explained: in the handshake's
    `ResultError` (anywhere in the chain), else in the result frame the transport saw."""
    from fsm import start_failure

    seen: BaseException | None = exc
    results: list[object] = []
    while seen is not None and len(results) < 8:
        if isinstance(seen, ResultError):
            results.append({"type": "result", **seen.data})
        seen = seen.__cause__ or seen.__context__
    results.append(noted)
    for result in results:
        failure = start_failure(result, private)
        if failure is not None:
            return RuntimeStartError(
                failure.message, kind=failure.kind, startup_failure_reason=failure.reason
            )
    return None


def start_error(
    exc: Exception,
    executable: str | None,
    *,
    noted: Mapping[str, Any] | None = None,
    private: tuple[str, ...] = (),
) -> RuntimeStartError:
    """The error to report for `exc`, raised while starting `executable` (None: the bundled
    CLI). `noted`: a start-up failure result Claude Code wrote, if the transport saw one;
    `private`: values its words must not show."""
    if isinstance(exc, RuntimeStartError):  # the adapter's own refusal: its words again
        return RuntimeStartError(
            str(exc), kind=exc.kind, startup_failure_reason=exc.startup_failure_reason
        )
    explained = _explained(exc, noted, private)
    if explained is not None:
        return explained
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
