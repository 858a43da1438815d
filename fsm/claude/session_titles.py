"""A live session's name from Claude Code, as the reference adapter gets it
(docs/reference-adapter.md#session-titles).

Claude Code names a session itself (a small model's title, stored in its transcript, which
`session/list` shows) and answers `generate_session_title {description, persist: true}` with
that title, or generates one. The adapter asks once a turn whose prompt says enough is over
(`title_description`; Claude Code answers with frames of its own, which must not land inside a
running turn), and shows what comes back (`generated_title`) in place of the first line of the
first prompt, which stays the name until then and when Claude Code gives none. Claude Code's
title is its own words: shown on one line, at most `TITLE_LENGTH` characters (the reference's
bound), masked as any text of Claude's about the session (docs/decisions.md#titles,
docs/decisions.md#secrets). Unlike the reference, which asks as soon as the prompt is sent
(docs/decisions.md#live-session-names).
"""

from __future__ import annotations

from collections.abc import Mapping

from fsm.records import redact
from fsm.visible_text import visible

__all__ = [
    "MIN_DESCRIPTION",
    "RENAME_COMMANDS",
    "TITLE_LENGTH",
    "generated_title",
    "renames_session",
    "shown_title",
    "title_description",
]

TITLE_LENGTH = 256
# Below this Claude Code's generator returns no title without asking its model.
MIN_DESCRIPTION = 10
# Claude Code's `/rename` and its alias: it stores the name as the session's custom title.
RENAME_COMMANDS = frozenset({"/rename", "/name"})
# What Claude Code titles from: the prompt's trailing 1,000 characters.
_DESCRIPTION_LENGTH = 1000


def title_description(said: str, *, titled: bool) -> str | None:
    """What to ask Claude Code to title the session from (`said`: what the prompt says,
    `fsm.typed_prompt_said`); None when the session has its title or the prompt says too
    little."""
    text = said.strip()
    if titled or len(text) < MIN_DESCRIPTION:
        return None
    return text[-_DESCRIPTION_LENGTH:]


def renames_session(text: str) -> bool:
    """Whether a prompt typed live is Claude Code's `/rename` (or `/name`): the session's name
    is then the one Claude Code stored, read once the turn is over (`shown_title`;
    docs/decisions.md#live-session-names)."""
    words = text.split(None, 1)
    return bool(words) and words[0] in RENAME_COMMANDS


def generated_title(response: object, private: tuple[str, ...] = ()) -> str | None:
    """The title in Claude Code's answer to `generate_session_title`, as shown; None for no
    title (null, empty, another shape)."""
    return shown_title(response.get("title") if isinstance(response, Mapping) else None, private)


def shown_title(title: object, private: tuple[str, ...] = ()) -> str | None:
    """A title Claude Code gave or stored (its answer's, or the custom title its transcript
    holds, as `session/list` shows it), as shown: one masked line of at most `TITLE_LENGTH`
    characters; None for no title."""
    if not isinstance(title, str):
        return None
    line = " ".join(visible(redact(title[: TITLE_LENGTH * 16], private)).split())
    if not line:
        return None
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1] + "…"
