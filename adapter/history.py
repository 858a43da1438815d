"""session/load: replay a session's transcript (found by `session_store.find_transcript`) in order.

The file is read line by line twice (`fsm.replay` explains why), so memory does not grow with
its length. A line that is not JSON, or an entry of a shape or type we cannot read, is skipped
and counted; the count is logged once and the rest replays. Lines of Claude Code's known
non-message types (`fsm.replay.NON_MESSAGE_TYPES`) are skipped silently and counted apart.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapter.session import Session
from adapter.turn_hooks import title_for
from adapter.turn_view import TurnView, prompt_updates
from fsm.errors import PeerViolation
from fsm.events import HistoryFailureFound
from fsm.replay import ActiveScan, EntryKind, ReplayPlanner, TranscriptEntry, parse_entry

__all__ = ["ReplayStats", "replay_transcript"]

log = logging.getLogger(__name__)

Wire = dict[str, Any]


@dataclass(slots=True)
class ReplayStats:
    lines: int = 0
    skipped: int = 0  # corrupt: not JSON, or an entry we cannot read
    non_message: int = 0  # a known non-message type: expected, never replayed
    restored: int = 0


def _entries(path: Path, stats: ReplayStats | None) -> Iterator[tuple[TranscriptEntry, Any]]:
    """Each readable entry with the decoded line it came from."""
    with path.open("r", encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if not line.strip():
                continue
            if stats is not None:
                stats.lines += 1
            try:
                raw = json.loads(line)
                entry = parse_entry(raw)
            except (ValueError, PeerViolation):
                if stats is not None:
                    stats.skipped += 1
                continue
            if stats is not None and entry.kind is EntryKind.NON_MESSAGE:
                stats.non_message += 1
            yield entry, raw


def _updates(view: TurnView, entry: TranscriptEntry, raw: Mapping[str, Any]) -> list[Wire]:
    """The ACP session updates for one stored entry: the live path's own (adapter.turn_view)."""
    if entry.kind is EntryKind.PROMPT:
        # A new prompt: calls the last turn left open never finished.
        return [*view.close_open_calls(), *prompt_updates(entry.content)]
    if entry.kind is EntryKind.USER_OTHER:
        return view.user(entry.content, tool_use_result=raw.get("toolUseResult"))
    if entry.kind is EntryKind.ASSISTANT:
        message = raw.get("message")
        message_id = message.get("id") if isinstance(message, dict) else None
        parent = raw.get("parent_tool_use_id")
        return view.assistant(
            entry.content,
            message_id=message_id if isinstance(message_id, str) else None,
            parent=parent if isinstance(parent, str) else None,
        )
    return []


async def replay_transcript(session: Session, path: Path) -> ReplayStats:
    """Send the session's history to the client, restoring usage limits as typed records."""
    scan = ActiveScan()
    for entry, _ in _entries(path, None):
        scan.feed(entry)
    stats = ReplayStats()
    planner = ReplayPlanner(
        session_id=session.session_id, capable=session.core.notices, active_uuid=scan.active_uuid
    )
    view = TurnView(cwd=session.cwd, live=False, terminal=session.view.terminal)
    first_prompt: str | None = None
    for entry, raw in _entries(path, stats):
        if first_prompt is None and entry.kind is EntryKind.PROMPT and entry.top_level:
            first_prompt = entry.text
        action = planner.plan(entry)
        if action.restore:
            stats.restored += 1
            await session.feed(
                HistoryFailureFound(id=action.failure_id, title=action.title, active=action.active)
            )
        elif action.replay:
            for update in _updates(view, entry, raw):
                await session.send_raw(update)
    for update in view.close_open_calls():
        await session.send_raw(update)
    title = title_for(first_prompt or "")
    if title:
        # The session's name, as a live session gets it from its first prompt.
        await session.send_raw({"sessionUpdate": "session_info_update", "title": title})
    if view.skipped:
        log.warning(
            "session %s: skipped %d transcript content block(s) of an unknown type or shape",
            session.session_id,
            view.skipped,
        )
    if stats.skipped:
        log.warning(
            "session %s: skipped %d unreadable transcript line(s) of %d",
            session.session_id,
            stats.skipped,
            stats.lines,
        )
    log.debug(
        "session %s: %d non-message transcript line(s)", session.session_id, stats.non_message
    )
    return stats
