"""Where the adapter's log lines go: stderr always, and a file when the user asks for one.

An editor owns the agent's stderr and often shows it nowhere, so `--log-file FILE` (or
`$CLAUDE_ACP_LOG_FILE`) appends every log line to a file the user can read and attach to a bug
report. `$CLAUDE_ACP_LOG` sets the level of both; unset, stderr gets warnings and the file gets
INFO and above, since whoever asked for a file wants to see what happened. The file holds the
user's prompts and paths, so it is opened as `adapter/wire/private_files.py` says (0600, no
link, no other user's file).
"""

from __future__ import annotations

import logging
import os
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


def configure_logging(log_file: Path | None = None) -> None:
    """Send log lines to stderr and, when given, append them to `log_file`.

    Raises before configuring anything: `UnsafeFile` for a path it will not write to (a link,
    another user's file), `OSError` for one it cannot open.
    """
    stream = open_private(log_file, append=True) if log_file is not None else None
    handlers: list[logging.Handler] = []
    to_stderr = logging.StreamHandler(sys.stderr)
    to_stderr.setLevel(_level(logging.WARNING))
    handlers.append(to_stderr)
    if stream is not None:
        to_file = logging.StreamHandler(stream)
        to_file.setLevel(_level(logging.INFO))
        handlers.append(to_file)
    for handler in handlers:
        handler.setFormatter(logging.Formatter(_FORMAT))
    logging.basicConfig(handlers=handlers, level=min(h.level for h in handlers), force=True)
    # transitions logs every state change at INFO/DEBUG; ours are logged where they matter.
    logging.getLogger("transitions").setLevel(logging.WARNING)
