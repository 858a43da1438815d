"""The copy of a client's settings file that a Claude routed through the client's provider starts
with (docs/decisions.md#provider-settings-file).

While a provider routes, the reference adapter reads the file a client's
`_meta.claudeCode.options.settings` names and puts the provider's route in the settings tier
with it (docs/reference-adapter.md#providers). Ours reads it as Claude Code would (relative to
the session's folder), lets the core merge the route in (`fsm.routed_settings`), and writes the
result to a file only this user can read, whose path Claude Code gets as `--settings`: the
file's settings may hold credentials (an `env`), and `--settings` is on Claude Code's command
line. While a provider routes, a file that cannot be used so (missing, not a regular file,
unreadable, not JSON, not a JSON object) or whose copy cannot be written starts no Claude
(`NotRouted`, whose `problem` the core words: `fsm.settings_file_refusal`): passed on as named,
its `env` (or a user's or project's) would outrank the route, and the route's headers could go
elsewhere; its settings on the command line would show them to every local user. Only the kind
of problem is logged: never the file's path or content.

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
from typing import Any

from adapter.claude.settings_files import SettingsUnusable, read_json_object
from fsm import routed_settings

__all__ = ["NotRouted", "private_tier", "remove_copy", "routed_copy"]

log = logging.getLogger(__name__)

_REFUSED = "the client's settings file cannot be routed (%s): this Claude is not started"


class NotRouted(Exception):
    """The client's settings file cannot carry the route: `problem` says why, as
    `fsm.settings_file_refusal` takes it."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def routed_copy(named: str, cwd: str, routing: Mapping[str, str]) -> Path:
    """A private copy of the settings file `named` (relative to `cwd`) with the route
    `routing` merged in. Raises `NotRouted` when the file cannot be used or the copy could not
    be written (docs/decisions.md#provider-settings-file)."""
    data = _settings_object(Path(cwd) / named)
    tier = routed_settings(data, routing, private_file=True)
    if tier is None:  # never for an object; said as one, should that change
        raise _refused("not-object")
    copy = private_tier(tier)
    if copy is None:
        raise _refused("not-written")
    return copy


def _refused(problem: str) -> NotRouted:
    log.warning(_REFUSED, problem)
    return NotRouted(problem)


def _settings_object(path: Path) -> dict[str, Any]:
    """The JSON object in the file at `path`, read as every settings file is
    (`adapter.claude.settings_files`); raises `NotRouted` saying what is wrong."""
    try:
        return read_json_object(path)
    except SettingsUnusable as unusable:
        raise _refused(unusable.code) from None


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
