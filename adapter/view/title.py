"""A session's title from its first prompt, live and on replay alike."""

from __future__ import annotations

from fsm import visible

__all__ = ["title_for"]

_TITLE_LIMIT = 80


def title_for(text: str) -> str | None:
    """A session title from its first prompt: the first line, at most 80 characters."""
    for line in text.splitlines():
        line = visible(" ".join(line.split()))
        if line:
            return line if len(line) <= _TITLE_LIMIT else line[: _TITLE_LIMIT - 1] + "\u2026"
    return None
