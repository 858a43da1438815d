"""Claude Code compacting the conversation, as ACP `compaction_update` /
`compaction_summary_chunk` updates, for a client that declares
`clientCapabilities.session.compaction` (the reference adapter's gate); any other client gets
the synthetic card of `adapter.view.compaction`, from the same frames.

Theory of operation: `system/status` `compacting` opens a compaction named by its `uuid`
(`in_progress`); the API's streamed summary (`content_block_start` of type `compaction`,
`content_block_delta` of type `compaction_delta`) goes out as summary chunks, only into a
compaction that is open; the first end is terminal: `compact_result` `success` or a
`compact_boundary` (`completed`; later duplicates send nothing), `failed` (with
`compact_error` as `error`). A boundary with no start before it is a compaction of its own,
opened and completed at once. One still running when the turn ends (interrupted) is
`cancelled`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["CompactionUpdates"]

Wire = dict[str, Any]


def _update(compaction_id: str, status: str) -> Wire:
    return {"sessionUpdate": "compaction_update", "compactionId": compaction_id, "status": status}


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


class CompactionUpdates:
    def __init__(self) -> None:
        self._open: str | None = None  # the compaction running now
        self._ended: str | None = None  # the last one that ended (its boundary may follow)

    def system(self, subtype: str, data: Mapping[str, Any]) -> list[Wire]:
        """The updates for one `system` frame of the main conversation."""
        if subtype == "status":
            return self._status(data)
        if subtype == "compact_boundary":
            return self._boundary(data)
        return []

    def stream(self, event: object) -> list[Wire]:
        """A stream event of the main conversation: a piece of the retained summary."""
        if self._open is None or not isinstance(event, Mapping):
            return []
        text = _summary_text(event)
        if text is None:
            return []
        return [
            {
                "sessionUpdate": "compaction_summary_chunk",
                "compactionId": self._open,
                "content": {"type": "text", "text": text},
            }
        ]

    def _status(self, data: Mapping[str, Any]) -> list[Wire]:
        if data.get("status") == "compacting":
            compaction_id = data.get("uuid")
            if self._open is not None or not isinstance(compaction_id, str) or not compaction_id:
                return []
            self._open, self._ended = compaction_id, None
            return [_update(compaction_id, "in_progress")]
        result = data.get("compact_result")
        if self._open is None or result not in ("success", "failed"):
            return []
        compaction_id, self._open = self._open, None
        if result == "success":
            self._ended = compaction_id
            return [_update(compaction_id, "completed")]
        update = _update(compaction_id, "failed")
        error = data.get("compact_error")
        if isinstance(error, str) and error:
            update["error"] = error
        return [update]

    def _boundary(self, data: Mapping[str, Any]) -> list[Wire]:
        if self._ended is not None:
            self._ended = None
            return []  # its end was sent already: the boundary only repeats it
        if self._open is not None:
            compaction_id, self._open = self._open, None
            return [_update(compaction_id, "completed")]
        boundary = data.get("uuid")
        if not isinstance(boundary, str) or not boundary:
            return []
        return [_update(boundary, "in_progress"), _update(boundary, "completed")]

    def turn_ended(self) -> list[Wire]:
        """A turn ended: a compaction still running was cut short."""
        updates = [_update(self._open, "cancelled")] if self._open is not None else []
        self._open = self._ended = None
        return updates
