"""Claude Code's managed (enterprise policy) settings: the highest tier, which no user or
repository file overrides.

Theory of operation: an administrator puts `managed-settings.json` (and drop-ins in
`managed-settings.d/*.json`, read after it in name order, later keys winning) into a system
folder: `/etc/claude-code` on Linux, `/Library/Application Support/ClaudeCode` on macOS,
`C:\\Program Files\\ClaudeCode` on Windows. `read_managed` reads that tier for the permission
rules (`adapter.claude.permission_settings`); `apply_managed_env` puts its `env` into the
adapter's own environment when the adapter starts, before any Claude Code process (or `claude
auth status`) is started, so every one of them inherits it, as the reference adapter does
(docs/reference-adapter.md#managed-env). A
file that cannot be read is said in the log by path, never by content, and marks the tier
`unreadable`: what it might have forbidden is then treated as forbidden.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from adapter.claude.settings_files import SettingsFile, log_problems, read_settings_object
from fsm import SettingsProblem

__all__ = ["apply_managed_env", "managed_folder", "read_managed"]

log = logging.getLogger(__name__)

_FILE = "managed-settings.json"
_DROP_INS = "managed-settings.d"


def managed_folder() -> Path:
    """Where this system keeps Claude Code's managed settings."""
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode")
    if sys.platform == "win32":
        return Path("C:\\Program Files\\ClaudeCode")
    return Path("/etc/claude-code")


def _merged(base: dict[str, Any], later: dict[str, Any]) -> dict[str, Any]:
    # A drop-in adds to the objects it shares with what came before (`env`, `permissions`).
    merged = dict(base)
    for key, value in later.items():
        before = merged.get(key)
        both = isinstance(before, dict) and isinstance(value, dict)
        merged[key] = {**before, **value} if both else value  # type: ignore[dict-item]
    return merged


def read_managed(folder: Path | None = None) -> SettingsFile:
    """The managed tier (in `folder`, else `managed_folder()`): the main file and its drop-ins,
    merged; `unreadable` when any of them exists but is not a readable JSON object (its
    problems are the caller's to log: `adapter.claude.settings_reader`)."""
    where = folder if folder is not None else managed_folder()
    data, problem = read_settings_object(where / _FILE)
    read, problems = [str(where / _FILE), str(where / _DROP_INS)], [problem]
    try:
        drop_ins = sorted(p for p in (where / _DROP_INS).glob("*.json") if p.name[0] != ".")
    except OSError as exc:
        why = f"cannot be listed ({exc.strerror or type(exc).__name__})"
        problems.append(SettingsProblem(path=str(where / _DROP_INS), why=why))
        drop_ins = []
    for path in drop_ins:
        more, problem = read_settings_object(path)
        data = _merged(data, more)
        read.append(str(path))
        problems.append(problem)
    found = tuple(p for p in problems if p is not None)
    return SettingsFile("managed", where / _FILE, data, tuple(read), found)


def apply_managed_env(
    environ: MutableMapping[str, str], folder: Path | None = None
) -> tuple[str, ...]:
    """Put the managed tier's `env` into `environ` (the policy wins over what is there); the
    names set, in order. A value that is not a string is left out, by name, in the log."""
    managed = read_managed(folder)
    log_problems(managed.problems)  # said once, at start-up; sessions say them once each
    env = managed.data.get("env")
    if env is None:
        return ()
    if not isinstance(env, dict):
        log.warning("managed settings %s: env is not an object; ignoring it", managed.path)
        return ()
    applied = []
    for name, value in env.items():
        if isinstance(value, str) and name and "=" not in name and "\0" not in name + value:
            environ[name] = value
            applied.append(name)
        else:
            log.warning("managed settings %s: env %s is not a string; ignored", managed.path, name)
    if applied:
        log.info("managed settings: environment set for Claude Code: %s", ", ".join(applied))
    return tuple(applied)
