"""Claude Code's settings files, as far as the adapter itself needs them.

Claude Code reads its user, project and local settings itself (the runtime passes
`setting_sources`); the adapter reads the same files only to show the right initial mode in
the client's picker before Claude has said anything. Later files win, as in Claude Code:
user (`<config>/settings.json`), project (`<cwd>/.claude/settings.json`), local
(`<cwd>/.claude/settings.local.json`). A file that is missing or unreadable counts as empty.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["SETTING_SOURCES", "auto_mode_disabled", "config_home", "default_mode"]

# Every settings file Claude Code honours for a session, in Claude Code's precedence order.
SETTING_SOURCES = ("user", "project", "local")

# Aliases Claude Code accepts for `permissions.defaultMode`.
_MODE_ALIASES = {"manual": "default", "ask": "default"}


def config_home(env: Mapping[str, str]) -> Path:
    """`CLAUDE_CONFIG_DIR` (the runtime's environment first, then ours), else `~/.claude`."""
    configured = env.get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path.home() / ".claude"


def _files(cwd: str, env: Mapping[str, str]) -> list[Path]:
    project = Path(cwd) / ".claude"
    return [
        config_home(env) / "settings.json",
        project / "settings.json",
        project / "settings.local.json",
    ]


def default_mode(cwd: str, env: Mapping[str, str]) -> str | None:
    """`permissions.defaultMode` from the settings files (the last one that sets it wins)."""
    mode = None
    for path in _files(cwd, env):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        permissions = data.get("permissions") if isinstance(data, dict) else None
        value = permissions.get("defaultMode") if isinstance(permissions, dict) else None
        if isinstance(value, str):
            mode = _MODE_ALIASES.get(value, value)
    return mode


def auto_mode_disabled(cwd: str, env: Mapping[str, str]) -> bool:
    """Whether a settings file says `disableAutoMode: "disable"`, at its top level or under
    `permissions`, as the reference adapter reads it (the last file that sets it wins)."""
    disabled = False
    for path in _files(cwd, env):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        permissions = data.get("permissions")
        for holder in (data, permissions if isinstance(permissions, dict) else {}):
            if "disableAutoMode" in holder:
                disabled = holder["disableAutoMode"] == "disable"
    return disabled
