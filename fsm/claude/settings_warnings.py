"""Which problems with Claude Code's settings files a session warns about
(docs/decisions.md#settings-warned-once).

A session reads its settings files when it opens, at each prompt, at the idle deadline and at
each model change (docs/decisions.md#settings-read-again). A file that exists but cannot be
used (it cannot be read, is not JSON, is not a JSON object; a managed drop-in folder that cannot
be listed) is ignored each time, and is warned about once: again only when it is broken in
another way or with other content than when it was warned about, or after a read found it
usable (or gone) and it broke again. `SettingsWarnings` keeps, per session, what each path was
last warned about; the shell reads the files and logs what `heard` returns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["SettingsProblem", "SettingsWarnings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsProblem:
    """One settings file (or folder) that could not be used: `why` it could not, and `version`,
    what it held when read (the shell's digest of its bytes, or its size and change time when it
    could not be read), so that a file changed and still broken is a problem of its own."""

    path: str
    why: str
    version: str = ""


class SettingsWarnings:
    """One session's memory of the settings problems it warned about, by path."""

    def __init__(self) -> None:
        self._warned: dict[str, SettingsProblem] = {}

    def heard(
        self, read: Iterable[str], problems: Iterable[SettingsProblem]
    ) -> tuple[SettingsProblem, ...]:
        """A read of the paths `read` (each file looked at, usable, broken or missing) found
        `problems`: the ones to warn about now, in the order given. A path read without a
        problem is forgotten, so that breaking it again is warned about again."""
        found = {problem.path: problem for problem in problems}
        for path in read:
            if path not in found:
                self._warned.pop(path, None)
        new = []
        for path, problem in found.items():
            if self._warned.get(path) != problem:
                self._warned[path] = problem
                new.append(problem)
        return tuple(new)
