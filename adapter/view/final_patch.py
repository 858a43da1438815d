"""The git patch of a finished Edit or Write for a JetBrains AIR `diffPatch` client: the file
as Claude Code reports it was (`toolUseResult.originalFile`, none for a created file) against
the file on disk now, as the reference adapter builds it (docs/reference-adapter.md#final-patch;
Claude Code's `structuredPatch` is display data: it rewrites tabs and line endings). None, and
the card keeps its plain diff, when the change cannot be told exactly: an Edit that filled an
empty `old_string` (a created file and a filled empty one look alike), a Write that changed
nothing, no usable original or file (`read_text` is the session's reader), a file that starts
with a BOM, a created file whose text is not what the Write wrote, nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fsm import MAX_PATCH_BYTES, file_patch, patch_block

__all__ = ["ReadText", "final_patch"]

# A file's text as a patch's side, None when missing or unusable (the view reads no disk).
ReadText = Callable[[str], str | None]


def final_patch(result: object, read_text: ReadText) -> dict[str, Any] | None:
    """`{content, locations}` for the call's last update, or None."""
    if not isinstance(result, Mapping):
        return None
    path = result.get("filePath")
    if not isinstance(path, str):
        return None
    kind, original = result.get("type"), result.get("originalFile")
    if kind is None and result.get("oldString") == "" and original == "":
        return None
    if (
        kind == "update"
        and isinstance(result.get("content"), str)
        and original == result["content"]
    ):
        return None
    if kind == "create":
        old = None
    elif isinstance(original, str):
        if len(original.encode()) > MAX_PATCH_BYTES:
            return None
        old = original
    else:
        return None
    new = read_text(path)
    if new is None or new.startswith("\ufeff"):
        return None
    if kind == "create" and new != result.get("content"):
        return None
    patch = file_patch(path, old, new)
    if patch is None:
        return None
    locations = (
        [{"path": path}]
        if patch.created
        else [{"path": path, "line": line} for line in patch.new_starts]
    )
    return {"content": [patch_block(path, patch)], "locations": locations}
