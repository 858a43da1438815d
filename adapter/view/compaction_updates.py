"""Claude Code compacting the conversation, as ACP `compaction_update` /
`compaction_summary_chunk` updates, for a client that declares
`clientCapabilities.session.compaction` (the reference adapter's gate:
docs/reference-adapter.md#compaction-updates); any other client gets the synthetic card of
`adapter.view.compaction`, from the same frames.

Theory of operation: `system/status` `compacting` opens a compaction, named as its load will
name it (`adapter.view.compaction_ids`), `in_progress`; the API's streamed summary
(`content_block_start` of type `compaction`, `content_block_delta` of type `compaction_delta`)
goes out as summary chunks, only into a compaction that is open; the first end is terminal:
`compact_result` `success` or a `compact_boundary` (`completed`; later duplicates send
nothing), `failed` (with `compact_error` as `error`). A boundary with no start before it is a
compaction of its own, opened and completed at once. One still running when the turn ends
(interrupted) is `cancelled`. The summary Claude Code's PostCompact hook reports (`compacted`,
before the end), cleaned as the reference adapter cleans it (the `<analysis>` scratch dropped,
the `<summary>` tags taken off), goes out as the reference sends it: as the `summary` of the
`completed` update (`[{type: text, text}]`), unless it only repeats what streamed as chunks.
A compaction of the adapter's own idle `/compact` (`idle` set for its turn) says so on each of
its `compaction_update`s, in `_meta.claudeCode.trigger: "idle"` (the reference sends this client
no trigger at all; the card's `rawOutput` carries it for every other client).

Every JetBrains AIR client (`AirClient.compaction_meta`) also finds the compaction's facts in
`_meta.jetbrains.air.contextCompaction`, as the reference sends them
(docs/reference-adapter.md#context-compaction-meta): `{version: 1}` on the
`in_progress` and on a `failed` (whose error has its own field), the boundary's trigger and
counts on the `completed`. A boundary that comes after the `completed` went out (a `success`
status before it) brings them in one more `completed` update, to an AIR client only
(`AirClient.repeats_compaction_end`); a `cancelled` carries none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from adapter.view.compaction import facts
from adapter.view.compaction_ids import CompactionIds
from fsm import AirClient

__all__ = ["CompactionUpdates", "cleaned_summary", "compaction_update", "summary_chunk"]

Wire = dict[str, Any]


def compaction_update(
    compaction_id: str, status: str, *, air: AirClient | None = None, known: Wire | None = None
) -> Wire:
    """A `compaction_update` at `status`; with `air`, the compaction's `known` facts in `_meta`
    for an AIR client (`AirClient.compaction_meta`), live and on load."""
    update: Wire = {
        "sessionUpdate": "compaction_update",
        "compactionId": compaction_id,
        "status": status,
    }
    meta = air.compaction_meta(None, known or {}) if air is not None else None
    if meta is not None:
        update["_meta"] = meta
    return update


def _summary_text(event: Mapping[str, Any]) -> str | None:
    """The summary text one stream event carries, if it is compaction's."""
    kind = event.get("type")
    if kind == "content_block_start":
        block = event.get("content_block")
        if isinstance(block, Mapping) and block.get("type") == "compaction":
            content = block.get("content")
            return content if isinstance(content, str) and content else None
    if kind == "content_block_delta":
        delta = event.get("delta")
        if isinstance(delta, Mapping) and delta.get("type") == "compaction_delta":
            content = delta.get("content")
            return content if isinstance(content, str) and content else None
    return None


_ANALYSIS = re.compile(r"<analysis>.*?</analysis>", re.DOTALL)
_SUMMARY_TAGS = re.compile(r"</?summary>")


def cleaned_summary(raw: str) -> str:
    """A PostCompact `compact_summary` as a reader sees it: the model's `<analysis>` scratch
    dropped, the `<summary>` tags taken off."""
    return _SUMMARY_TAGS.sub("", _ANALYSIS.sub("", raw)).strip()


def summary_chunk(compaction_id: str, text: str) -> Wire:
    """A piece of a compaction's summary, live (as it streams) and on load (the stored one)."""
    return {
        "sessionUpdate": "compaction_summary_chunk",
        "compactionId": compaction_id,
        "content": {"type": "text", "text": text},
    }


class CompactionUpdates:
    def __init__(self, ids: CompactionIds, air: AirClient | None = None) -> None:
        self._ids = ids
        self._air = air or AirClient()
        self._open: str | None = None  # the compaction running now
        self._ended: str | None = None  # the last one that ended (its boundary may follow)
        self._streamed: list[str] = []  # the open one's summary as it streamed
        self._summary: str | None = None  # the PostCompact hook's, not yet sent
        self.idle = False  # the turn is the adapter's own idle `/compact`

    def _marked(self, updates: list[Wire]) -> list[Wire]:
        if not self.idle:
            return updates
        idle = {"claudeCode": {"trigger": "idle"}}
        return [
            {**u, "_meta": {**u.get("_meta", {}), **idle}}
            if u["sessionUpdate"] == "compaction_update"
            else u
            for u in updates
        ]

    def compacted(self, summary: str) -> None:
        """The PostCompact hook's summary of the compaction ending now."""
        self._summary = cleaned_summary(summary) or None

    def _completed(self, compaction_id: str, known: Wire) -> list[Wire]:
        summary, self._summary = self._summary, None
        streamed, self._streamed = "".join(self._streamed), []
        update = compaction_update(compaction_id, "completed", air=self._air, known=known)
        # As the reference sends it: on the terminal update, unless it only repeats the chunks.
        if summary and summary != streamed.strip():
            update["summary"] = [{"type": "text", "text": summary}]
        return [update]

    def system(self, subtype: str, data: Mapping[str, Any]) -> list[Wire]:
        """The updates for one `system` frame of the main conversation."""
        if subtype == "status":
            return self._marked(self._status(data))
        if subtype == "compact_boundary":
            return self._marked(self._boundary(data))
        return []

    def stream(self, event: object) -> list[Wire]:
        """A stream event of the main conversation: a piece of the retained summary."""
        if self._open is None or not isinstance(event, Mapping):
            return []
        text = _summary_text(event)
        if text is None:
            return []
        self._streamed.append(text)
        return [summary_chunk(self._open, text)]

    def _status(self, data: Mapping[str, Any]) -> list[Wire]:
        if data.get("status") == "compacting":
            if self._open is not None:
                return []
            compaction_id = self._ids.starting()
            self._open, self._ended, self._streamed = compaction_id, None, []
            return [compaction_update(compaction_id, "in_progress", air=self._air)]
        result = data.get("compact_result")
        if self._open is None or result not in ("success", "failed"):
            return []
        compaction_id, self._open = self._open, None
        if result == "success":
            self._ended = compaction_id
            self._ids.bounded()
            return self._completed(compaction_id, {})
        self._ids.failed()
        self._summary, self._streamed = None, []
        update = compaction_update(compaction_id, "failed", air=self._air)
        error = data.get("compact_error")
        if isinstance(error, str) and error:
            update["error"] = error
        return [update]

    def _boundary(self, data: Mapping[str, Any]) -> list[Wire]:
        known = facts(data.get("compact_metadata"), idle=self.idle)
        if self._ended is not None:
            # Its end was sent already: the boundary only repeats it, but for the facts it
            # brings an AIR client.
            ended, self._ended = self._ended, None
            if not self._air.repeats_compaction_end(known):
                return []
            return [compaction_update(ended, "completed", air=self._air, known=known)]
        if self._open is not None:
            compaction_id, self._open = self._open, None
            self._ids.bounded()
            return self._completed(compaction_id, known)
        compaction_id = self._ids.starting()
        self._ids.bounded()
        opened = compaction_update(compaction_id, "in_progress", air=self._air)
        return [opened, *self._completed(compaction_id, known)]

    def turn_ended(self) -> list[Wire]:
        """A turn ended: a compaction still running was cut short."""
        updates = self._marked([compaction_update(self._open, "cancelled")] if self._open else [])
        if self._open is not None:
            self._ids.failed()
        self._open = self._ended = self._summary = None
        self._streamed = []
        return updates
