"""Text as a client may show it: every control character replaced by a visible stand-in.

Theory of operation: whatever reaches a title, an option's name or a plan entry from Claude, a
settings file or a client passes through `visible` first (`fsm.records` shapes titles with
it, the pickers check names with it), so no escape sequence acts on a terminal and nothing
reorders what a reader sees. Its own module, apart from the failure records: the pickers need
it, and a session's start does not need the records (docs/performance.md). The tables are
built by the first call (0.3 ms of a process's start that most never spend before their first
session is running).
"""

from __future__ import annotations

import functools

__all__ = ["visible"]

# Control characters as a reader can see them, never as a terminal acts on them: C0 as their
# Control Pictures (ESC as U+241B, so `ESC ]0;...BEL` cannot retitle a terminal and shows as
# "␛]0;...␇"), DEL as U+2421, C1 and the bidirectional embeddings and overrides (which reorder
# what a reader sees) as U+FFFD, the line and paragraph separators as spaces. A lone surrogate
# (a transcript's "\ud800" escape) is no text at all, and a title must encode: U+FFFD too.


@functools.cache
def _pictures() -> dict[int, int]:
    return {
        **{code: 0x2400 + code for code in range(0x20)},
        0x7F: 0x2421,
        **dict.fromkeys(range(0x80, 0xA0), 0xFFFD),
        **dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)], 0xFFFD),
        **dict.fromkeys(range(0xD800, 0xE000), 0xFFFD),
        0x2028: 0x20,
        0x2029: 0x20,
    }


@functools.cache
def _table(lines: bool) -> dict[int, int]:
    """One line: tabs and newlines as spaces; `lines`: they stay, the rest as `_pictures`."""
    if lines:
        return {code: to for code, to in _pictures().items() if code not in (0x09, 0x0A)}
    return {**_pictures(), 0x09: 0x20, 0x0A: 0x20}


def visible(text: str, *, lines: bool = False) -> str:
    """`text` as a title, an option name or a plan entry may show it: every control character
    replaced by a visible stand-in (see `_pictures`); tabs and newlines become spaces unless
    `lines` (details, which may have several lines, keep them). Tool output never comes here:
    a console block keeps its bytes."""
    return text.translate(_table(lines))
