"""Where the adapter's log lines go: stderr always, and a file when the user asks for one.

An editor owns the agent's stderr and often shows it nowhere, so `--log-file FILE` (or
`$CLAUDE_ACP_LOG_FILE`) appends every log line to a file the user can read and attach to a bug
report. `$CLAUDE_ACP_LOG` sets the level of both; unset, stderr gets warnings and the file gets
INFO and above, since whoever asked for a file wants to see what happened. The file holds the
user's prompts and paths, so it is opened as `adapter/wire/private_files.py` says (0600, no
link, no other user's file).

Some editors show every stderr line to the user as a notice (Emacs agent-shell), so at the
default level stderr is written for a person: `claude-acp: ` and the message, with
no logger name, no traceback and no internal id (a session's or a Claude process's uuid), and
nothing from the libraries (the SDK's "Fatal error in message reader" is a failure the user
already sees as a record or an error). The log file, and stderr once `$CLAUDE_ACP_LOG` asks for
INFO or DEBUG, keep everything in full: time, level, logger, ids and tracebacks.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path

from adapter.wire.private_files import open_private

__all__ = ["LOG_FILE_ENV", "LOG_LEVEL_ENV", "configure_logging"]

LOG_LEVEL_ENV = "CLAUDE_ACP_LOG"
LOG_FILE_ENV = "CLAUDE_ACP_LOG_FILE"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def _level(default: int) -> int:
    named = os.environ.get(LOG_LEVEL_ENV, "").upper()
    value = logging.getLevelName(named) if named else default
    return value if isinstance(value, int) else default


# The packages whose log lines are ours (worded for a person); the rest are the libraries'.
_OURS = ("adapter", "fsm", "__main__")
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# Ids in our messages, as they are worded: `session <id>: ...` and `Claude runtime <id> ...`.
_SESSION_PREFIX = re.compile(rf"^session {_UUID}: ")
_RUNTIME = re.compile(rf"\bClaude runtime {_UUID}")
_ANY_ID = re.compile(rf" ?\(?\b{_UUID}\b\)?")


def for_a_person(message: str) -> str:
    """A log message without the internal ids in it (they stay in the log file)."""
    message = _SESSION_PREFIX.sub("", message)
    message = _RUNTIME.sub("Claude Code", message)
    return _ANY_ID.sub("", message)


class _PersonFormatter(logging.Formatter):
    """Stderr at the default level: `claude-acp: <message>`, one line, no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        text = for_a_person(record.getMessage())
        if record.exc_info is not None or record.exc_text:
            text += " (details with --log-file FILE)"
        return f"claude-acp: {text}"


def _ours(record: logging.LogRecord) -> bool:
    return record.name.split(".", 1)[0] in _OURS


def _stderr_handler() -> logging.Handler:
    to_stderr = logging.StreamHandler(sys.stderr)
    level = _level(logging.WARNING)
    to_stderr.setLevel(level)
    if level >= logging.WARNING:
        to_stderr.setFormatter(_PersonFormatter())
        to_stderr.addFilter(_ours)
    else:
        to_stderr.setFormatter(logging.Formatter(_FORMAT))
    return to_stderr


def configure_logging(log_file: Path | None = None) -> None:
    """Send log lines to stderr and, when given, append them to `log_file`.

    Raises before configuring anything: `UnsafeFile` for a path it will not write to (a link,
    another user's file), `OSError` for one it cannot open.
    """
    stream = open_private(log_file, append=True) if log_file is not None else None
    handlers: list[logging.Handler] = [_stderr_handler()]
    if stream is not None:
        to_file = logging.StreamHandler(stream)
        to_file.setLevel(_level(logging.INFO))
        to_file.setFormatter(logging.Formatter(_FORMAT))
        handlers.append(to_file)
    logging.basicConfig(handlers=handlers, level=min(h.level for h in handlers), force=True)
    # transitions logs every state change at INFO/DEBUG; ours are logged where they matter.
    logging.getLogger("transitions").setLevel(logging.WARNING)
