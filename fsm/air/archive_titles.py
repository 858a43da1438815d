"""The session archive in JetBrains AIR's on-disk format: a title prefix.

Theory of operation: a session is archived when its name starts with `[archived] `, and
archive, unarchive and rename append the stored title to the transcript as a pair of records
that Claude Code itself reads and writes (its `/rename` writes the same two):

    {"type":"custom-title","customTitle":"[archived] Title","sessionId":"…"}
    {"type":"agent-name","agentName":"[archived] Title","sessionId":"…"}

So the archive state lives in the transcript, beside the rest of the session: it survives a
restart of the agent, AIR's own Claude provider and the reference adapter read it the same way
(docs/reference-adapter.md#session-delete),
and `claude --resume` shows the prefix. The session's *name* is its last agent name, else its
custom title; the archive state is whether that name carries the prefix. Stored titles are
whitespace-collapsed and cut to Claude Code's 200-character title limit. Pure string rules;
`adapter.claude.session_archive` reads and writes the files.
"""

from __future__ import annotations

import json
import re

__all__ = [
    "ARCHIVED_PREFIX",
    "archive_to",
    "default_title",
    "is_archived",
    "stored_title",
    "title_records",
    "visible_title",
]

ARCHIVED_PREFIX = "[archived] "
# What Claude Code keeps of a stored title (`title.slice(0, 200).trim()`).
_CLI_TITLE_LIMIT = 200
# The white space AIR collapses is ASCII white space (Java's `\s`).
_WS = " \t\n\v\f\r"
# Leading space (what a trim removes), the marker, a run of white space, then a title character.
_ARCHIVED = re.compile(rf"^\s*\[archived\][{_WS}]+(?=[^{_WS}])")
_ARCHIVED_PREFIXES = re.compile(rf"^(?:\s*\[archived\][{_WS}]+(?=[^{_WS}]))+")
_WS_RUN = re.compile(rf"[{_WS}]+")


def is_archived(name: str | None) -> bool:
    """Whether a session's name (its last agent name, else its custom title) archives it."""
    return name is not None and _ARCHIVED.match(name) is not None


def visible_title(title: str) -> str:
    """The title without the archive prefix (removed once), as AIR shows it."""
    return _ARCHIVED.sub("", title, count=1)


def default_title(session_id: str) -> str:
    """The title of a session that has none at all, as AIR names it."""
    return f"Session {session_id[:8]}"


def stored_title(title: str, archived: bool, session_id: str) -> str:
    """`title` as stored in the given archive state: every prefix removed (a title stored twice
    prefixed must not stay archived), white space collapsed, the prefix put back when archived,
    cut to Claude Code's limit."""
    bare = _WS_RUN.sub(" ", _ARCHIVED_PREFIXES.sub("", title)).strip()
    shown = bare or default_title(session_id)
    full = ARCHIVED_PREFIX + shown if archived else shown
    return full if len(full) <= _CLI_TITLE_LIMIT else full[:_CLI_TITLE_LIMIT].strip()


def archive_to(archived: bool, current: str | None, session_id: str) -> str | None:
    """The title that archives (or unarchives) a session named `current`; None when it is in
    that state already (nothing to write)."""
    if is_archived(current) == archived:
        return None
    return stored_title(current or "", archived, session_id)


def title_records(session_id: str, title: str) -> str:
    """The `custom-title` and `agent-name` records of `title`, one per line."""
    custom = {"type": "custom-title", "customTitle": title, "sessionId": session_id}
    agent = {"type": "agent-name", "agentName": title, "sessionId": session_id}
    return f"{_compact(custom)}\n{_compact(agent)}\n"


def _compact(record: dict[str, str]) -> str:
    # As JavaScript's JSON.stringify writes it, so an unchanged pair is recognised by its bytes.
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
