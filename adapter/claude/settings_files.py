"""Claude Code's settings files, as far as the adapter itself needs them.

Claude Code reads its user, project and local settings itself (the runtime passes
`setting_sources`) and its managed (enterprise) settings always; the adapter reads the same
files to decide what a session may start in and switch to before Claude has said anything
(`adapter.claude.permission_settings`). Later tiers win, as in Claude Code: user
(`<config>/settings.json`), project (`<cwd>/.claude/settings.json`, committed with the
repository), local (`<cwd>/.claude/settings.local.json`, not committed), managed
(`adapter.claude.managed_settings`). A missing file counts as empty; one that cannot be read or
is not a JSON object counts as empty too, is said once in the log, and is marked `unreadable`
so that the caller can stay on the safe side.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "SETTING_SOURCES",
    "SettingsFile",
    "config_home",
    "read_json_object",
    "read_settings",
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
    unreadable: bool = False  # it exists, but is not a readable JSON object

    def permissions(self) -> dict[str, Any]:
        found = self.data.get("permissions")
        return found if isinstance(found, dict) else {}


def config_home(env: Mapping[str, str]) -> Path:
    """`CLAUDE_CONFIG_DIR` (the runtime's environment first, then ours), else `~/.claude`."""
    configured = env.get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path.home() / ".claude"


def read_json_object(path: Path) -> tuple[dict[str, Any], bool]:
    """`(the file's object, whether it exists but is unusable)`: a missing file is `({}, False)`;
    one that cannot be read, is not JSON or is not an object is `({}, True)`, logged with why."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, False
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        log.warning("Claude Code settings %s cannot be read (%s); ignoring it", path, why)
        return {}, True
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        log.warning("Claude Code settings %s is not JSON; ignoring it", path)
        return {}, True
    if not isinstance(data, dict):
        log.warning("Claude Code settings %s is not a JSON object; ignoring it", path)
        return {}, True
    return data, False


def read_settings(cwd: str, env: Mapping[str, str]) -> list[SettingsFile]:
    """The user, project and local settings files of a session in `cwd`, lowest tier first."""
    project = Path(cwd) / ".claude"
    files = []
    for tier, path in (
        ("user", config_home(env) / "settings.json"),
        ("project", project / "settings.json"),
        ("local", project / "settings.local.json"),
    ):
        data, unreadable = read_json_object(path)
        files.append(SettingsFile(tier, path, data, unreadable))
    return files
