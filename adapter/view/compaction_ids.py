"""One name for each compaction, the same live and on `session/load`.

Theory of operation: live, a compaction is first seen at Claude Code's `status: compacting`,
whose `uuid` the transcript never keeps; `session/load` sees only the transcript's
`compact_boundary` entry, which the live side sees last (or, for a compaction that fails,
never). What both sides do know is where the compaction stands in the session: the session's
id and how many of its compactions came before (main-conversation boundaries in its
transcript). The id is a UUID (version 5) of those two, so the card's `toolCallId` and
`compactionId` agree however the session is shown. A compaction that fails leaves no boundary:
the next one at the same place gets the same ordinal and, live, a retry number, so no id is
ever reused (its load, which knows nothing of the failure, names it without the retry number;
the one case where the two differ).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

__all__ = ["CompactionIds", "compaction_id", "is_session_boundary"]

# Fixed forever: changing it renames every compaction a client has seen.
_NAMESPACE = uuid.UUID("6f1d3c2a-8b4e-5a7f-9c0d-2e4b6a8c0f13")


def compaction_id(session_id: str, ordinal: int, retry: int = 0) -> str:
    """The id of the session's `ordinal`-th compaction (0 the first), `retry` attempts after
    one at that place failed."""
    name = f"{session_id}/compaction/{ordinal}" + (f"/retry/{retry}" if retry else "")
    return str(uuid.uuid5(_NAMESPACE, name))


def is_session_boundary(raw: Mapping[str, Any]) -> bool:
    """Whether a transcript entry is a compaction of the session's main conversation."""
    boundary = raw.get("uuid")
    return (
        raw.get("type") == "system"
        and raw.get("subtype") == "compact_boundary"
        and not raw.get("isSidechain")
        and isinstance(boundary, str)
        and bool(boundary)
    )


class CompactionIds:
    """The names a session's compactions get, in order. Live, how many came before is read
    from the transcript (I/O, the shell's) the first time one is seen: `learn`."""

    def __init__(self, session_id: str, before: int | None = None) -> None:
        self._session_id = session_id
        self._before = before
        self._retry = 0

    @property
    def known(self) -> bool:
        return self._before is not None

    def learn(self, before: int) -> None:
        if self._before is None:
            self._before = max(0, before)

    def starting(self) -> str:
        """The id of the compaction starting now."""
        return compaction_id(self._session_id, self._before or 0, self._retry)

    def failed(self) -> None:
        self._retry += 1

    def bounded(self) -> None:
        """The compaction that started last left its boundary: the next is one further on."""
        self._before = (self._before or 0) + 1
        self._retry = 0
