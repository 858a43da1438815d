"""Whose settings may loosen permissions (docs/decisions.md#whose-settings-may-loosen-permissions).

Theory of operation: `permission_settings` reads what Claude Code's settings tiers say about a
session's permission modes (the files in `adapter.claude.settings_files` order, the managed
tier last) and decides, as Claude Code's own trust policy and the SDK's
`filterEscalatingDefaultMode` do, which of it a session may act on:

- `permissions.defaultMode`: the highest tier that sets it decides. An escalating mode from a
  tier a repository controls is ignored (logged once at INFO, by file and mode) and the session
  starts in Manual: `bypassPermissions` and `auto` from the project or the local file,
  `acceptEdits` from the project file (the SDK's filter and Claude Code both honour the local
  file's `acceptEdits`: that file is the user's, never committed). A value that is not a
  string, or a mode Claude Code does not have: logged, Manual.
- `permissions.disableBypassPermissionsMode: "disable"` in any tier: bypass is not offered, nor
  any later switch to it.
- `disableAutoMode: "disable"` (top level or under `permissions`): the last tier that sets it.
- A file that cannot be read or is not a JSON object is logged (`settings_files`) and counts as
  empty, and what it might have named does not start the session: Manual unless a readable
  tier names a mode. An unreadable managed tier also removes bypass (it may have forbidden it).

Nothing here reads files or starts anything: the caller hands the tiers in.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from adapter.claude.settings_files import SettingsFile

__all__ = ["ESCALATING", "KNOWN_MODES", "PermissionSettings", "permission_settings"]

log = logging.getLogger(__name__)

# Claude Code's permission modes, and the spellings it accepts for Manual.
KNOWN_MODES = frozenset({"default", "acceptEdits", "plan", "auto", "bypassPermissions", "dontAsk"})
_ALIASES = {"manual": "default", "ask": "default"}
# The modes that let Claude act without asking, and the tiers a repository controls for each:
# the SDK's `filterEscalatingDefaultMode` (the local file may pick Accept edits, not the rest).
ESCALATING = {
    "bypassPermissions": frozenset({"project", "local"}),
    "auto": frozenset({"project", "local"}),
    "acceptEdits": frozenset({"project"}),
}
MANUAL = "default"

# (file, mode) pairs already said: a session per folder would otherwise repeat the line.
_told: set[tuple[str, str]] = set()


@dataclass(frozen=True, slots=True)
class PermissionSettings:
    """What a new session's pickers start from."""

    default_mode: str | None = None  # None: no tier names one (auto where offered, else Manual)
    bypass_disabled: bool = False
    auto_disabled: bool = False


def permission_settings(files: Sequence[SettingsFile]) -> PermissionSettings:
    """The permission settings a session may act on, from its tiers (lowest first)."""
    return PermissionSettings(
        default_mode=_default_mode(files),
        bypass_disabled=any(_disables_bypass(f) for f in files),
        auto_disabled=_auto_disabled(files),
    )


def _default_mode(files: Sequence[SettingsFile]) -> str | None:
    for settings in reversed(files):
        permissions = settings.permissions()
        if "defaultMode" not in permissions:
            continue
        value = permissions["defaultMode"]
        mode = _ALIASES.get(value, value) if isinstance(value, str) else None
        if mode not in KNOWN_MODES:
            shown = repr(value)[:80]
            log.warning(
                "Claude Code settings %s: permissions.defaultMode %s is not a permission mode; "
                "starting in Manual",
                settings.path,
                shown,
            )
            return MANUAL
        assert mode is not None
        if settings.tier in ESCALATING.get(mode, frozenset()):
            key = (str(settings.path), mode)
            if key not in _told:
                _told.add(key)
                log.info(
                    "ignoring permissions.defaultMode %r from %s: a repository's settings cannot "
                    "start a session that asks less; starting in Manual",
                    mode,
                    settings.path,
                )
            return MANUAL
        return mode
    # Nothing names a mode: an unreadable file might have, so it must not start in auto.
    return MANUAL if any(f.unreadable for f in files) else None


def _disables_bypass(settings: SettingsFile) -> bool:
    if settings.tier == "managed" and settings.unreadable:
        return True
    return settings.permissions().get("disableBypassPermissionsMode") == "disable"


def _auto_disabled(files: Sequence[SettingsFile]) -> bool:
    """`disableAutoMode: "disable"`, at the top level or under `permissions`, as the reference
    adapter reads it (the last tier that sets it wins; docs/reference-adapter.md#auto-mode)."""
    disabled = False
    for settings in files:
        for holder in (settings.data, settings.permissions()):
            if "disableAutoMode" in holder:
                disabled = holder["disableAutoMode"] == "disable"
    return disabled
