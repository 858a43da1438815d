"""session/load: find a session's transcript where Claude keeps it and replay it in order.

The file is read line by line twice (`fsm.replay` explains why), so memory does not grow with
its length. A line that is not JSON, or an entry of a shape or type we cannot read, is skipped
and counted; the count is logged once and the rest replays.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapter.session import Session
from adapter.translate import tool_kind
from fsm.errors import PeerViolation
from fsm.events import HistoryFailureFound
from fsm.replay import ActiveScan, EntryKind, ReplayPlanner, TranscriptEntry, parse_entry

__all__ = ["ReplayStats", "find_transcript", "replay_transcript"]

log = logging.getLogger(__name__)


def _sanitize(path: str) -> str:
    # The SDK's own rule for project folder names (private; see `adapter.compat`).
    from adapter.compat import sanitize_path

    return sanitize_path(path)


def find_transcript(*, session_id: str, cwd: str, env: Mapping[str, str]) -> Path | None:
    """`<config>/projects/<sanitized cwd>/<session_id>.jsonl`, config being CLAUDE_CONFIG_DIR
    (the adapter's runtime env first, then ours) or `~/.claude`; None when there is none."""
    if "/" in session_id or session_id in ("", ".", ".."):
        return None
    config = env.get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
    projects = Path(config or Path.home() / ".claude") / "projects"
    for folder in dict.fromkeys([cwd, os.path.realpath(cwd)]):
        candidate = projects / _sanitize(folder) / f"{session_id}.jsonl"
        if candidate.is_file():
            return candidate
    return None


@dataclass(slots=True)
class ReplayStats:
    lines: int = 0
    skipped: int = 0
    restored: int = 0


def _entries(path: Path, stats: ReplayStats | None) -> Iterator[TranscriptEntry]:
    with path.open("r", encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if not line.strip():
                continue
            if stats is not None:
                stats.lines += 1
            try:
                yield parse_entry(json.loads(line))
            except (ValueError, PeerViolation):
                if stats is not None:
                    stats.skipped += 1


def _text(block: Mapping[str, Any], key: str) -> str:
    value = block.get(key)
    return value if isinstance(value, str) else ""


def _text_content(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _updates(entry: TranscriptEntry) -> Iterator[dict[str, Any]]:
    """The ACP session updates for one stored entry, as wire dicts.

    Replay is the one bulk path (a long session is 100,000s of updates), and building and
    dumping a pydantic model per update was a measured share of its time; these shapes are the
    schema's `user_message_chunk`, `agent_message_chunk`, `agent_thought_chunk`, `tool_call`
    and `tool_call_update`, as `acp.helpers` would build them.
    """
    for block in entry.content:
        kind = block.get("type")
        if entry.kind is EntryKind.PROMPT and kind == "text" and _text(block, "text"):
            yield {"sessionUpdate": "user_message_chunk", "content": _text_content(block["text"])}
        elif entry.kind is EntryKind.USER_OTHER and kind == "tool_result":
            content = block.get("content")
            text = content if isinstance(content, str) else ""
            if isinstance(content, list):
                text = "".join(_text(c, "text") for c in content if isinstance(c, dict))
            update: dict[str, Any] = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": _text(block, "tool_use_id"),
                "status": "failed" if block.get("is_error") else "completed",
            }
            if text:
                update["content"] = [{"type": "content", "content": _text_content(text)}]
            yield update
        elif entry.kind is EntryKind.ASSISTANT and kind == "text" and _text(block, "text"):
            yield {"sessionUpdate": "agent_message_chunk", "content": _text_content(block["text"])}
        elif entry.kind is EntryKind.ASSISTANT and kind == "thinking":
            if _text(block, "thinking"):
                yield {
                    "sessionUpdate": "agent_thought_chunk",
                    "content": _text_content(block["thinking"]),
                }
        elif entry.kind is EntryKind.ASSISTANT and kind == "tool_use":
            name = _text(block, "name") or "tool"
            call: dict[str, Any] = {
                "sessionUpdate": "tool_call",
                "toolCallId": _text(block, "id"),
                "title": name,
                "kind": tool_kind(name),
                "status": "completed",
            }
            if block.get("input") is not None:
                call["rawInput"] = block["input"]
            yield call


async def replay_transcript(session: Session, path: Path) -> ReplayStats:
    """Send the session's history to the client, restoring usage limits as typed records."""
    scan = ActiveScan()
    for entry in _entries(path, None):
        scan.feed(entry)
    stats = ReplayStats()
    planner = ReplayPlanner(
        session_id=session.session_id, capable=session.core.notices, active_uuid=scan.active_uuid
    )
    for entry in _entries(path, stats):
        action = planner.plan(entry)
        if action.restore:
            stats.restored += 1
            await session.feed(
                HistoryFailureFound(id=action.failure_id, title=action.title, active=action.active)
            )
        elif action.replay:
            for update in _updates(entry):
                await session.send_raw(update)
    if stats.skipped:
        log.warning(
            "session %s: skipped %d unreadable transcript line(s) of %d",
            session.session_id,
            stats.skipped,
            stats.lines,
        )
    return stats
