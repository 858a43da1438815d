"""Claude Code's settings files, as far as the adapter itself needs them.

Claude Code reads its user, project and local settings itself (the runtime passes
`setting_sources`) and its managed (enterprise) settings always; the adapter reads the same
files to decide what a session may start in and switch to before Claude has said anything
(`adapter.claude.permission_settings`). Later tiers win, as in Claude Code: user
(`<config>/settings.json`), project (`<cwd>/.claude/settings.json`, committed with the
repository), local (`<cwd>/.claude/settings.local.json`, not committed), managed
(`adapter.claude.managed_settings`). A missing file counts as empty; one that is not a regular
file, cannot be read or is not a JSON object counts as empty too, carries the problem
(`adapter.claude.settings_reader` says it in the log once a session), and is `unreadable` so
that the caller can stay on the safe side.

Every settings file is read through `read_json_object`, which the copy of a client's settings
file a routed Claude starts with uses too (`adapter.claude.settings_copy`, where each problem,
a missing file included, refuses the start): only a regular file is read, opened without ever
blocking on a FIFO or a device planted at the path (`adapter.wire.private_files.open_regular`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapter.wire.private_files import NotRegular, open_regular
from fsm import SettingsProblem

__all__ = [
    "SETTING_SOURCES",
    "SettingsFile",
    "SettingsUnusable",
    "config_home",
    "log_problems",
    "read_json_object",
    "read_settings",
    "read_settings_object",
]

log = logging.getLogger(__name__)

# Every settings file Claude Code honours for a session, in Claude Code's precedence order.
SETTING_SOURCES = ("user", "project", "local")


@dataclass(frozen=True, slots=True)
class SettingsFile:
    """One tier's settings: `tier` is "user", "project", "local" or "managed"."""

    tier: str
    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    read: tuple[str, ...] = ()  # every file (and folder) looked at for it
    problems: tuple[SettingsProblem, ...] = ()  # what of it exists but could not be used

    @property
    def unreadable(self) -> bool:
        """Some of it exists, but is not a readable JSON object."""
        return bool(self.problems)

    def permissions(self) -> dict[str, Any]:
        found = self.data.get("permissions")
        return found if isinstance(found, dict) else {}


def config_home(env: Mapping[str, str]) -> Path:
    """`CLAUDE_CONFIG_DIR` (the runtime's environment first, then ours), else `~/.claude`."""
    configured = env.get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path.home() / ".claude"


def _problems(problem: SettingsProblem | None) -> tuple[SettingsProblem, ...]:
    return () if problem is None else (problem,)


def _version(path: Path) -> str:
    """A file we could not read, as far as its metadata tells one state of it from another."""
    try:
        found = path.stat()
    except OSError:
        return ""
    return f"{found.st_size}:{found.st_mtime_ns}"


class SettingsUnusable(Exception):
    """A settings file that cannot be used. `code` is the kind of problem, in the words
    `fsm.settings_file_refusal` takes (`missing`, `not-regular`, `unreadable`, `not-json`,
    `not-object`); `why` says it for the log; `version` tells one state of the file from
    another (`SettingsProblem.version`)."""

    def __init__(self, code: str, why: str, version: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.why = why
        self.version = version


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in the settings file at `path`; `SettingsUnusable` saying what is wrong
    when there is none (never the file's content). Only a regular file is read, and a FIFO or
    a device at `path` is never waited on."""
    try:
        with open_regular(path) as found:
            raw = found.read()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise SettingsUnusable("missing", "is missing") from None
    except NotRegular:
        why = "cannot be read (not a regular file)"
        raise SettingsUnusable("not-regular", why, _version(path)) from None
    except (OSError, UnicodeDecodeError) as exc:  # no permission, a symlink loop, not UTF-8...
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise SettingsUnusable("unreadable", f"cannot be read ({why})", _version(path)) from None
    version = hashlib.blake2b(raw, digest_size=16).hexdigest()
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise SettingsUnusable("not-json", "is not JSON", version) from None
    if not isinstance(data, dict):
        raise SettingsUnusable("not-object", "is not a JSON object", version)
    return data


def read_settings_object(path: Path) -> tuple[dict[str, Any], SettingsProblem | None]:
    """`(the file's object, what is wrong with it)`: a missing file is `({}, None)`; one that
    is not a regular file, cannot be read, is not JSON or is not an object is `({}, problem)`,
    which the caller logs (`adapter.claude.settings_reader`), by path and never by content."""
    try:
        return read_json_object(path), None
    except SettingsUnusable as unusable:
        if unusable.code == "missing":
            return {}, None
        problem = SettingsProblem(path=str(path), why=unusable.why, version=unusable.version)
        return {}, problem


def log_problems(problems: Iterable[SettingsProblem]) -> None:
    """Say in the log that each of these settings files is ignored, and why (by path, never by
    content)."""
    for problem in problems:
        log.warning("Claude Code settings %s %s; ignoring it", problem.path, problem.why)


def read_settings(cwd: str, env: Mapping[str, str]) -> list[SettingsFile]:
    """The user, project and local settings files of a session in `cwd`, lowest tier first."""
    project = Path(cwd) / ".claude"
    files = []
    for tier, path in (
        ("user", config_home(env) / "settings.json"),
        ("project", project / "settings.json"),
        ("local", project / "settings.local.json"),
    ):
        data, problem = read_settings_object(path)
        files.append(SettingsFile(tier, path, data, (str(path),), _problems(problem)))
    return files
