"""Steps that act on the fake CLI's own process or its raw stdout, not on the conversation.

Pauses, hangs, signals, exits, stray lines and verbatim frames: what a dying or misbehaving CLI
does. Split from `steps.py` (which re-exports them, so `Step` stays one union); `player.py`
gives them meaning. Imported by the fake CLI at startup, so only the standard library.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "CloseStdout",
    "DieAtPrompt",
    "Exit",
    "Garbage",
    "Hang",
    "IgnoreSigterm",
    "KillSelf",
    "RawFrame",
    "Sleep",
    "StartupFailure",
    "Stderr",
]

# Set by the host that wants a start-up failure explained in a result (the real CLI's name).
STARTUP_FAILURE_RESULTS_ENV = "CLAUDE_CODE_STARTUP_FAILURE_RESULTS"


@dataclass(frozen=True, slots=True, kw_only=True)
class Sleep:
    """Pause the turn; an interrupt still ends it at once. `until_queued`: the pause also ends
    when a user message waits (a tool that runs until the user types one: a test's
    deterministic point for a prompt pushed mid-turn)."""

    seconds: float
    until_queued: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Hang:
    """Wait until the turn is interrupted or stdin reaches EOF."""


@dataclass(frozen=True, slots=True, kw_only=True)
class IgnoreSigterm:
    """From now on SIGTERM is ignored (only SIGKILL stops the process)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Garbage:
    """Write `line` to stdout verbatim (it should not be valid JSON)."""

    line: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Stderr:
    """Write a diagnostic line to stderr, as the real CLI does before it dies."""

    line: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Exit:
    """Flush and exit the process with `code`, whatever is still queued."""

    code: int


@dataclass(frozen=True, slots=True, kw_only=True)
class KillSelf:
    """Flush, then SIGKILL the process: a crash that leaves no exit path."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CloseStdout:
    """Close stdout but keep running; later frames are dropped. Pair it with `Sleep` + `Exit`
    for a process that lingers after its output is gone."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RawFrame:
    """Write `frame` to stdout as one JSON line, verbatim: no session id, no uuid, no checks.

    For frames the SDK or the adapter cannot take as they are: an unknown `type`, a required
    field missing, a field of the wrong type. (`Garbage` is for lines that are not JSON.)
    """

    frame: Mapping[str, object]
    # Entries the real CLI keeps in its transcript for this frame (a compaction's boundary
    # and summary), appended verbatim but for the session's common fields.
    kept: tuple[Mapping[str, object], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class DieAtPrompt:
    """The process dies the moment the turn's prompt arrives, before the turn writes any frame
    (no `session_state_changed`, no `system/init`). `code` None: SIGKILL; else exit with it.

    Meant as a turn's first step (anywhere else it dies where it stands). The prompt is still
    recorded in the transcript, so a resumed process plays the next turn's script.
    """

    code: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StartupFailure:
    """Claude Code will not start, and says why: `message` on stderr, and, when the host set
    `CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1`, first the zeroed `error_during_execution` result
    with `startup_failure_reason` and `errors: [message]`, as the real CLI 2.1.332 writes it
    before reading anything. A `before_handshake` step; pair it with `Exit(code=1)`."""

    reason: str
    message: str
