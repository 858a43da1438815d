"""What an Edit or Write will change, as JetBrains AIR's `diffPatch` shows it in the
permission question: the exact git patch (`fsm.air.git_patch`), read from the file and the tool's
input before Claude Code runs it, as the reference adapter predicts it
(docs/reference-adapter.md#git-patch).

No preview (the question keeps the card's own diff) when the change cannot be predicted
exactly: a file that cannot be a patch's side (`adapter.claude.patch_sources`), an Edit of a
missing file with a non-empty `old_string`, an `old_string` that does not occur exactly once
without `replace_all`, new text with a NUL or a CR or over the size limit, nothing changed, or
a change too large to diff. A Write over a file that cannot be shown says so instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from adapter.claude.patch_sources import read_patch_source
from fsm import MAX_PATCH_BYTES, file_patch, patch_block, patchable

__all__ = ["preview_content"]


def _replaced(text: str, old: str, new: str, replace_all: bool) -> str:
    """The file after Claude Code's replacement: an empty `new_string` also takes the line
    break that follows `old_string`, when there is one."""
    target = old
    if new == "" and not old.endswith("\n") and f"{old}\n" in text:
        target = f"{old}\n"
    return text.replace(target, new) if replace_all else text.replace(target, new, 1)


def _edit(data: Mapping[str, Any], path: str) -> list[dict[str, Any]] | None:
    old_string, new_string = data.get("old_string"), data.get("new_string")
    if not isinstance(old_string, str) or not isinstance(new_string, str):
        return None
    if old_string == new_string or not patchable(new_string):
        return None
    source = read_patch_source(path)
    if source.text is None and not source.missing:
        return None
    if old_string == "":
        # Creates the file, or fills one that holds only white space (a BOM is not predicted).
        current = source.text
        if current is not None and (current.strip() != "" or "\ufeff" in current):
            return None
        patch = file_patch(path, current, new_string)
        return [patch_block(path, patch)] if patch is not None else None
    text = source.text
    if text is None:
        return None
    count = text.count(old_string)
    replace_all = data.get("replace_all") is True
    if count == 0 or (not replace_all and count != 1):
        return None
    growth = max(0, len(new_string.encode()) - len(old_string.encode()))
    if len(text.encode()) + count * growth > MAX_PATCH_BYTES:
        return None
    patch = file_patch(path, text, _replaced(text, old_string, new_string, replace_all))
    return [patch_block(path, patch)] if patch is not None else None


def _write(data: Mapping[str, Any], path: str, shown_path: str) -> list[dict[str, Any]] | None:
    content = data.get("content")
    if not isinstance(content, str):
        return None
    source = read_patch_source(path)
    if source.text is None and not source.missing:
        words = (
            f"Overwrites the existing file `{shown_path}`. "
            "The adapter cannot show its current content."
        )
        return [{"type": "content", "content": {"type": "text", "text": words}}]
    if source.text == content:
        return None
    standard = [{"type": "diff", "path": shown_path, "oldText": source.text, "newText": content}]
    if not patchable(content):
        return standard
    patch = file_patch(path, source.text, content)
    return [patch_block(path, patch)] if patch is not None else standard


def preview_content(tool_name: str, tool_input: object) -> list[dict[str, Any]] | None:
    """The question's content for an Edit or Write, None to keep the card's."""
    if not isinstance(tool_input, Mapping):
        return None
    file_path = tool_input.get("file_path")
    if not isinstance(file_path, str) or not os.path.isabs(file_path):
        return None  # Claude Code names files by absolute paths; anything else is not guessed
    if tool_name == "Edit":
        return _edit(tool_input, file_path)
    if tool_name == "Write":
        return _write(tool_input, file_path, file_path)
    return None
