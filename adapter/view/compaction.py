"""Claude Code compacting the conversation (automatic, or `/compact`), as the synthetic "Compact
conversation" tool card the reference adapter shows a client without `session.compaction`
(docs/reference-adapter.md#compaction-updates).

Theory of operation: Claude Code writes `system/status` `compacting` when it starts (the card
is named as its load will name it, `adapter.view.compaction_ids`), `system/status` with
`compact_result` `success` or `failed` (and `compact_error`) when it ends, and
`system/compact_boundary` with the token counts (`compact_metadata`: trigger, pre_tokens,
post_tokens, duration_ms). The card opens `in_progress` at the start, and the first end closes
it: `failed` with the error as content, or `completed`, with the counts as `rawOutput` when the
boundary brings them. A boundary with no start before it opens and closes a card of its own; a
compaction still running when the turn ends (interrupted) fails with "Compaction did not
finish". Only the main conversation's compactions are shown (a subagent's is not the
session's).

The `usage_update` with the context retained comes from `adapter.view.usage` at the boundary.
A `/compact` the adapter sent itself when the session sat idle (`idle` set for its turn) says
`trigger: "idle"` where Claude Code says `manual`, as the reference adapter's card does
(docs/reference-adapter.md#compaction-updates); Claude Code's own automatic compaction inside
that turn stays `automatic`.

Every JetBrains AIR client (`AirClient.compaction_meta`) finds the facts on each report of the
card instead, in `_meta.jetbrains.air.contextCompaction` (`{version: 1}` at the start, the
boundary's counts and trigger at the end, a failure's error), and no `rawOutput`
(`AirClient.compaction_raw_output`), as the reference adapter sends them
(docs/reference-adapter.md#context-compaction-meta, docs/decisions.md#air-only-keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapter.view.compaction_ids import CompactionIds
from fsm import AirClient

__all__ = ["CompactionCards"]

Wire = dict[str, Any]
_TITLE = "Compact conversation"
_META = {"claudeCode": {"toolName": "compact"}}
_TRIGGERS = {"auto": "automatic", "manual": "manual"}


def _count(data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**53:
        return value
    return None


def facts(metadata: object, *, idle: bool = False) -> Wire:
    """A boundary's `compact_metadata` as the card's `rawOutput` (odd values left out);
    `idle`: the adapter sent this `/compact` itself."""
    data: Mapping[str, Any] = metadata if isinstance(metadata, Mapping) else {}
    out: Wire = {}
    trigger = data.get("trigger")
    if isinstance(trigger, str) and trigger in _TRIGGERS:
        out["trigger"] = _TRIGGERS[trigger]
    if idle and trigger != "auto":
        out["trigger"] = "idle"
    for key, wire in (("pre_tokens", "preTokens"), ("post_tokens", "postTokens")):
        value = _count(data, key)
        if value is not None:
            out[wire] = value
    duration = _count(data, "duration_ms")
    if duration is not None:
        out["durationMs"] = duration
    return out


class CompactionCards:
    def __init__(self, ids: CompactionIds, air: AirClient | None = None) -> None:
        self._ids = ids
        self._air = air or AirClient()
        self._open: str | None = None  # the compaction running now
        self._ended: str | None = None  # the last one that ended (its boundary may follow)
        self.idle = False  # the turn is the adapter's own idle `/compact`

    def _meta(self, known: Wire) -> Wire:
        """The card's `_meta`, with the compaction's facts for an AIR client."""
        return self._air.compaction_meta(_META, known) or _META

    def _card_update(self, card_id: str, status: str, known: Wire) -> Wire:
        return {
            "sessionUpdate": "tool_call_update",
            "toolCallId": card_id,
            "status": status,
            "_meta": self._meta(known),
        }

    def system(self, subtype: str, data: Mapping[str, Any]) -> list[Wire]:
        """The card updates for one `system` frame of the main conversation."""
        if subtype == "status":
            return self._status(data)
        if subtype == "compact_boundary":
            return self._boundary(data)
        return []

    def _status(self, data: Mapping[str, Any]) -> list[Wire]:
        if data.get("status") == "compacting":
            if self._open is not None:
                return []
            card_id = self._open = self._ids.starting()
            return [
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": card_id,
                    "name": "compact",
                    "title": _TITLE,
                    "kind": "think",
                    "status": "in_progress",
                    "_meta": self._meta({}),
                }
            ]
        result = data.get("compact_result")
        if self._open is None or result not in ("success", "failed"):
            return []
        card_id, self._open = self._open, None
        if result == "success":
            self._ended = card_id
            self._ids.bounded()
            return []  # the boundary that follows closes it with the counts
        self._ids.failed()
        error = data.get("compact_error")
        update = self._card_update(
            card_id, "failed", {"error": error} if isinstance(error, str) else {}
        )
        text = f"Compaction failed: {error}" if isinstance(error, str) else "Compaction failed"
        update["content"] = [{"type": "content", "content": {"type": "text", "text": text}}]
        return [update]

    def _boundary(self, data: Mapping[str, Any]) -> list[Wire]:
        if self._open is not None:
            self._ids.bounded()  # it ended with its boundary (no success status before it)
        card_id = self._open or self._ended
        self._open = self._ended = None
        opened: list[Wire] = []
        if card_id is None:
            opened = self._status({"status": "compacting"})
            card_id, self._open = self._open, None
            self._ids.bounded()
        assert card_id is not None
        known = facts(data.get("compact_metadata"), idle=self.idle)
        update = self._card_update(card_id, "completed", known)
        raw_output = self._air.compaction_raw_output(known)
        if raw_output is not None:
            update["rawOutput"] = raw_output
        return [*opened, update]

    def turn_ended(self) -> list[Wire]:
        """A turn ended: a compaction that succeeded but whose boundary never came is done; one
        that never ended (the turn was interrupted) failed, and says so."""
        updates: list[Wire] = []
        if self._ended is not None:
            updates.append(self._card_update(self._ended, "completed", {}))
        if self._open is not None:
            text = "Compaction did not finish"
            update = self._card_update(self._open, "failed", {"error": text})
            update["content"] = [{"type": "content", "content": {"type": "text", "text": text}}]
            updates.append(update)
            self._ids.failed()
        self._open = self._ended = None
        return updates
