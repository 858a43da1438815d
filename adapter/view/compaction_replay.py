"""Past compactions on `session/load`, shown as the live session showed them: the "Compact
conversation" card (`adapter.view.compaction`), or for a client that declares
`session.compaction`, `compaction_update`s (`adapter.view.compaction_updates`).

Theory of operation: Claude Code's transcript keeps a compaction as a top-level `system` entry
of subtype `compact_boundary` (named by its place in the session, as the live session named
it: `adapter.view.compaction_ids`; `compactMetadata` holds the trigger and the
token counts, camel-cased, where a live boundary's `compact_metadata` is snake-cased), usually
followed by the `isCompactSummary` user entry carrying the summary the conversation went on
from. The card opens and completes at the boundary, with the counts. The update opens at the
boundary; the summary right after it goes out as one `compaction_summary_chunk`, and the
compaction completes before whatever comes next (or at the transcript's end). A subagent's
(sidechain) compaction is not the session's.

A JetBrains AIR client finds the facts as the live session gave them (`AirClient
.compaction_meta`): in `_meta.jetbrains.air.contextCompaction` on the card's reports, and on the
updates (`{version: 1}` when it opens, the boundary's trigger and counts when it completes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapter.view.compaction import CompactionCards, facts
from adapter.view.compaction_ids import CompactionIds, is_session_boundary
from adapter.view.compaction_updates import compaction_update, summary_chunk
from fsm import AirClient

__all__ = ["ReplayedCompactions"]

Wire = dict[str, Any]
_CAMEL = {"preTokens": "pre_tokens", "postTokens": "post_tokens", "durationMs": "duration_ms"}


def _metadata(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The boundary's counts in the live frame's (snake-cased) shape."""
    stored = raw.get("compactMetadata", raw.get("compact_metadata"))
    if not isinstance(stored, Mapping):
        return {}
    return {_CAMEL.get(key, key): value for key, value in stored.items() if isinstance(key, str)}


def _summary(raw: Mapping[str, Any]) -> str:
    message = raw.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, Mapping)]
        return "\n".join(t for t in texts if isinstance(t, str))
    return ""


class ReplayedCompactions:
    def __init__(self, *, updates: bool, session_id: str, air: AirClient | None = None) -> None:
        """`updates`: the client declared `session.compaction`."""
        self._updates = updates
        self._air = air or AirClient()
        self._ids = CompactionIds(session_id, before=0)
        self._cards = CompactionCards(self._ids, self._air)
        self._open: str | None = None  # an update-client's compaction awaiting its summary
        self._known: Wire = {}  # the open one's facts, from its boundary

    def entry(self, raw: object) -> tuple[list[Wire], bool]:
        """What to send before one stored entry, and whether the entry is spent (shown here,
        so not replayed as ordinary content)."""
        if not isinstance(raw, Mapping):
            return self.finish(), False
        if raw.get("isCompactSummary") and raw.get("type") == "user" and self._updates:
            if self._open is None:
                return [], False
            text = _summary(raw)
            chunk = [summary_chunk(self._open, text)] if text else []
            return [*chunk, *self.finish()], True
        if not self._is_boundary(raw):
            # Claude Code's bookkeeping lines may come between a boundary and its summary.
            message = raw.get("type") in ("user", "assistant")
            return (self.finish() if message else []), False
        before = self.finish()
        if not self._updates:
            boundary = {**raw, "compact_metadata": _metadata(raw)}
            return [*before, *self._cards.system("compact_boundary", boundary)], True
        boundary_id = self._ids.starting()
        self._ids.bounded()
        self._open, self._known = boundary_id, facts(_metadata(raw))
        return [*before, compaction_update(boundary_id, "in_progress", air=self._air)], True

    @staticmethod
    def _is_boundary(raw: Mapping[str, Any]) -> bool:
        return is_session_boundary(raw)

    def finish(self) -> list[Wire]:
        """The transcript (or the compaction's part of it) ended: an open one completed."""
        if self._open is None:
            return []
        compaction_id, self._open = self._open, None
        known, self._known = self._known, {}
        return [compaction_update(compaction_id, "completed", air=self._air, known=known)]
