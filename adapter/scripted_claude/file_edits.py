"""An allowed Edit or Write carried out on disk, as Claude Code carries it out, with the
`tool_use_result` it reports (`filePath`, `originalFile`, and for a Write `type` and
`content`; for an Edit `oldString`, `newString`): what a test of the adapter's patches needs.
Absolute paths only; anything that does not apply leaves the file alone and reports nothing.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = ["apply_edit"]


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as file:
            return file.read()
    except FileNotFoundError:
        return None


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as file:
        file.write(text)


def apply_edit(tool_name: str, tool_input: Mapping[str, Any]) -> dict[str, Any] | None:
    path = tool_input.get("file_path")
    if not isinstance(path, str) or not os.path.isabs(path):
        return None
    original = _read(path)
    if tool_name == "Write":
        content = tool_input.get("content")
        if not isinstance(content, str):
            return None
        _write(path, content)
        kind = "create" if original is None else "update"
        return {"type": kind, "filePath": path, "content": content, "originalFile": original}
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    if tool_name != "Edit" or not isinstance(old, str) or not isinstance(new, str):
        return None
    text = original or ""
    if old and old not in text:
        return None
    changed = text.replace(old, new) if tool_input.get("replace_all") is True else None
    _write(path, changed if changed is not None else (text.replace(old, new, 1) if old else new))
    return {"filePath": path, "oldString": old, "newString": new, "originalFile": text}
