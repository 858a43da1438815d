"""One session's reads of Claude Code's settings files, each problem said once.

A session reads its settings tiers (user, project, local: `adapter.claude.settings_files`;
managed: `adapter.claude.managed_settings`) when it opens, at each prompt, at the idle deadline
and at each model change (docs/decisions.md#settings-read-again). Every read goes through the
session's `SettingsReader`, which asks the core (`fsm.SettingsWarnings`) which of the problems
found are new and logs only those (docs/decisions.md#settings-warned-once): a broken file is
warned about once, not at every prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from adapter.claude.managed_settings import read_managed
from adapter.claude.settings_files import SettingsFile, log_problems, read_settings
from fsm import SettingsWarnings

__all__ = ["SettingsReader"]


class SettingsReader:
    """Reads the settings tiers of a session in `cwd` (`env`: what its Claude is started with
    besides our environment; `managed`: the managed folder, else the system's)."""

    def __init__(self, cwd: str, env: Mapping[str, str], managed: Path | None = None) -> None:
        self._cwd = cwd
        self._env = env
        self._managed = managed
        self._warnings = SettingsWarnings()

    def read(self) -> list[SettingsFile]:
        """Every tier as it reads now, lowest first (managed last); new problems logged."""
        files = [*read_settings(self._cwd, self._env), read_managed(self._managed)]
        log_problems(
            self._warnings.heard(
                [path for f in files for path in f.read],
                [problem for f in files for problem in f.problems],
            )
        )
        return files
