"""The copy of a client's settings file that a Claude routed through the client's provider starts
with (docs/decisions.md#provider-settings-file).

While a provider routes, the reference adapter reads the file a client's
`_meta.claudeCode.options.settings` names and puts the provider's route in the settings tier
with it (docs/reference-adapter.md#providers). Ours reads it as Claude Code would (relative to
the session's folder), lets the core merge the route in (`fsm.routed_settings`), and writes the
result to a file only this user can read, whose path Claude Code gets as `--settings`: the
file's settings may hold credentials (an `env`), and `--settings` is on Claude Code's command
line. A path that is not a regular file, or a file that is not a JSON object, is left to Claude
Code as it is, which says what is wrong with it as it does without a provider; the environment
alone routes then. Only the kind of problem is logged: never the file's content. A copy that
cannot be written (`CopyNotWritten`) starts no Claude: neither the file as it is (its `env`
would outrank the route) nor its settings on the command line will do.

The route's own settings tier, when the client's settings are an object or none, goes to such a
file too (`private_tier`): its base URL may carry a credential and its headers are in it
(docs/decisions.md#provider-requests). Imported by the first Claude started under a provider:
most never are.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from adapter.claude.settings_files import read_settings_object
from fsm import routed_settings

__all__ = ["CopyNotWritten", "private_tier", "remove_copy", "routed_copy"]

log = logging.getLogger(__name__)

_LEFT = "the client's settings file %s; Claude Code reads it as it is and the provider routes "
_LEFT += "through the environment alone"


class CopyNotWritten(Exception):
    """The private copy of a client's settings file could not be written (the log says why)."""


def routed_copy(named: str, cwd: str, routing: Mapping[str, str]) -> Path | None:
    """A private copy of the settings file `named` (relative to `cwd`) with the route
    `routing` merged in; None when that file is left to Claude Code (said in the log).
    Raises `CopyNotWritten` when the copy could not be written
    (docs/decisions.md#provider-settings-file)."""
    path = Path(cwd) / named
    if not path.is_file():  # missing, a folder, a FIFO or a device: never read here
        log.warning(_LEFT, "is not a regular file")
        return None
    data, problem = read_settings_object(path)
    if problem is not None:
        log.warning(_LEFT, problem.why)
        return None
    tier = routed_settings(data, routing, private_file=True)
    if tier is None:  # not an object: read_settings_object said so already
        return None
    copy = private_tier(tier)
    if copy is None:
        raise CopyNotWritten
    return copy


def private_tier(tier: str) -> Path | None:
    """The settings tier `tier` in a file only this user can read; None when none could be
    written (the log says why)."""
    name = ""
    try:
        # mkstemp makes the file readable by this user alone, under a name nobody can guess.
        fd, name = tempfile.mkstemp(prefix="claude-acp-settings-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(tier)
    except OSError as exc:
        if name:
            remove_copy(Path(name))
        log.warning("the routed settings tier could not be written (%s)", type(exc).__name__)
        return None
    return Path(name)


def remove_copy(copy: Path) -> None:
    """Remove a copy `routed_copy` wrote, once its Claude is gone."""
    with contextlib.suppress(OSError):
        copy.unlink()
