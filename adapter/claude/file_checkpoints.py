"""What Claude Code's file checkpoint says a prompt changed, without rewinding anything
(JetBrains AIR's `agentFileChangeReport`, `fsm.air.file_change_reports`).

Theory of operation: Claude Code keeps a checkpoint of the files its file tools change per
prompt when the session runs with file checkpointing. Its `rewind_files` control request with
`dry_run` answers `{canRewind, filesChanged}` for the prompt's user message (the uuid the
adapter stamps on it) and rewinds nothing; the SDK has no wrapper for the dry run, so it goes
through `sdk_compat`. The preview gets two seconds; a turn's answer never waits longer. The
paths are resolved as the reference adapter resolves them
(docs/reference-adapter.md#file-change-reports): against the working folder, then
through the real folder of their nearest existing ancestor, so a link or a `..` names the file
it reaches.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import anyio

from adapter.claude.sdk_compat import send_control_request

__all__ = ["PREVIEW_SECONDS", "preview", "resolved", "roots"]

PREVIEW_SECONDS = 2.0


async def preview(client: Any, turn_id: str) -> tuple[list[object] | None, str | None]:
    """What rewinding the prompt `turn_id` would change: (the paths, None), or (None, why
    not: `timeout`, `invalidOutput`, `providerError`)."""
    request = {"subtype": "rewind_files", "user_message_id": turn_id, "dry_run": True}
    with anyio.move_on_after(PREVIEW_SECONDS):
        try:
            answer = await send_control_request(client, request)
        except Exception:
            return None, "providerError"
        files = answer.get("filesChanged") if isinstance(answer, Mapping) else None
        if not isinstance(answer, Mapping) or answer.get("canRewind") is not True:
            return None, "invalidOutput"
        if not isinstance(files, list):
            return None, "invalidOutput"
        return list(files), None
    return None, "timeout"


def _real(path: str) -> str:
    """`path` through the real folder of its nearest existing ancestor."""
    missing: list[str] = []
    current = os.path.abspath(path)
    while True:
        if os.path.lexists(current):
            try:
                return os.path.join(os.path.realpath(current), *reversed(missing))
            except (OSError, ValueError):
                return os.path.abspath(path)
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.abspath(path)
        missing.append(os.path.basename(current))
        current = parent


def resolved(paths: Iterable[object], cwd: str) -> list[object]:
    """Each path resolved against `cwd` (its folder real, its name kept); anything that is
    not a usable path is passed on as it is, for the report's rules to drop."""
    found: list[object] = []
    for path in paths:
        if not isinstance(path, str) or not path.strip() or "\x00" in path:
            found.append(path)
            continue
        absolute = os.path.normpath(os.path.join(_real(cwd), path))
        found.append(os.path.join(_real(os.path.dirname(absolute)), os.path.basename(absolute)))
    return found


def roots(cwd: str, add_dirs: Sequence[str]) -> list[str]:
    """The session's folders, real: the working folder first."""
    base = _real(cwd)
    found = [base]
    for folder in add_dirs:
        real = _real(os.path.join(base, folder))
        if real not in found:
            found.append(real)
    return found
