"""session/load: replay a session's transcript (found by `session_store.find_transcript`) in order.

The file is read once in order, a block at a time, so memory does not grow with its length;
before that, its last lines are read backwards, a block at a time, until one decides which
usage limit is still active (`fsm.replay.active_from_newest`; usually the last few lines). A
line that is not JSON, or an entry of a shape or type we cannot read, is skipped and counted;
the count is logged once and the rest replays. Lines of Claude Code's known non-message types
(`fsm.replay.NON_MESSAGE_TYPES`) are skipped silently and counted apart. Updates go to the
client a few hundred at a time, in one write each (`ClientLink.send_raw_updates`); a restored
usage limit goes out through the core, after the updates before it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapter.json_codec import decode_line, long_digit_runs
from adapter.session import Session
from adapter.turn_hooks import title_for
from adapter.turn_view import TurnView, prompt_updates
from fsm.errors import PeerViolation
from fsm.events import HistoryFailureFound
from fsm.replay import (
    EntryKind,
    ReplayPlanner,
    TranscriptEntry,
    active_from_newest,
    parse_entry,
)

__all__ = ["ReplayStats", "lines_newest_first", "replay_transcript"]

log = logging.getLogger(__name__)

Wire = dict[str, Any]


# How much of the file is read at a time going forwards: the line cutting and the digit check
# run over a whole block in C instead of line by line.
_READ_BLOCK = 1024 * 1024
# Lines with long digit runs a block may hold before all its lines are checked one by one.
_RUNS_PER_BLOCK = 16


@dataclass(slots=True)
class ReplayStats:
    lines: int = 0
    skipped: int = 0  # corrupt: not JSON, or an entry we cannot read
    non_message: int = 0  # a known non-message type: expected, never replayed
    restored: int = 0


def _line_batches(path: Path, block: int = _READ_BLOCK) -> Iterator[tuple[bool, list[bytes]]]:
    """The file's lines, oldest first, as text mode cuts them (a lone `\r` ends a line too)
    without their ends, undecoded (UTF-8 is decoded once, by the decoder), a block's worth at
    a time, in batches that each say whether their lines are known to hold no run of 19
    digits (checked a block at a time: `json_codec.long_digit_runs`). Holds one block and one
    line at most."""
    with path.open("rb") as file:
        head: list[bytes] = []  # the start of a line that ends in a later block
        while data := file.read(block):
            cut = data.rfind(b"\n")
            if cut < 0:
                head.append(data)
                continue
            whole = b"".join((*head, data[:cut])) if head else data[:cut]
            head = [data[cut + 1 :]]
            yield from _batches(whole)
        tail = b"".join(head)
        if tail:
            yield from _batches(tail)


def _batches(whole: bytes) -> Iterator[tuple[bool, list[bytes]]]:
    lines = whole.split(b"\n")
    if b"\r" in whole:  # rare: each line is checked on its own
        yield False, [line for segment in lines for line in _split_universal(segment)]
        return
    runs = long_digit_runs(whole, _RUNS_PER_BLOCK)
    if runs is None:
        yield False, lines
        return
    start = 0
    for index in sorted({whole.count(b"\n", 0, at) for at in runs}):
        if index > start:
            yield True, lines[start:index]
        yield False, [lines[index]]
        start = index + 1
    if start < len(lines):
        yield True, lines[start:]


def _blank(line: bytes) -> bool:
    """Whether text mode would have read the line as blank (Unicode's whitespace only)."""
    return not line.decode("utf-8", errors="replace").strip()


def _entries(path: Path, stats: ReplayStats) -> Iterator[tuple[TranscriptEntry, Any]]:
    """Each readable entry with the decoded line it came from, oldest first."""
    for short_numbers, lines in _line_batches(path):
        for line in lines:
            if not line.strip():
                continue
            try:
                raw = decode_line(line, short_numbers=short_numbers)
                entry = parse_entry(raw)
            except (ValueError, PeerViolation):
                if not _blank(line):  # a blank line never decodes: checked only then
                    stats.lines += 1
                    stats.skipped += 1
                continue
            stats.lines += 1
            if entry.kind is EntryKind.NON_MESSAGE:
                stats.non_message += 1
            yield entry, raw


# How much of the file's end is read at a time when it is read backwards.
_BACK_BLOCK = 64 * 1024
# Updates sent in one write: a few hundred KiB at most, the client's reader never starved.
_BATCH_UPDATES = 256


def _split_universal(segment: bytes) -> list[bytes]:
    """The lines text mode reads from one `\n`-free run of bytes (a lone `\r` ends a line
    too, and `\r\n` is one line end)."""
    return segment.removesuffix(b"\r").split(b"\r") if b"\r" in segment else [segment]


def lines_newest_first(path: Path, block: int = _BACK_BLOCK) -> Generator[bytes, None, None]:
    """The file's lines, last first, as reading it forwards in text mode would cut them (line
    ends left off, undecoded). Reads `block` bytes at a time; holds one line and one block
    at most."""
    with path.open("rb") as file:
        end = file.seek(0, os.SEEK_END)
        pending: list[bytes] = []  # pieces of a line whose start is not read yet, last first
        last = True  # what follows the file's last `\n` is a line only if it is not empty
        while end > 0:
            start = max(0, end - block)
            file.seek(start)
            parts = file.read(end - start).split(b"\n")
            end = start
            if len(parts) > 1:
                pending.append(parts[-1])
                for segment in (b"".join(reversed(pending)), *reversed(parts[1:-1])):
                    if segment or not last:
                        yield from reversed(_split_universal(segment))
                    last = False
                pending = []
            pending.append(parts[0])
        head = b"".join(reversed(pending))
        if head or not last:
            yield from reversed(_split_universal(head))


def _entries_newest_first(path: Path) -> Iterator[TranscriptEntry]:
    for line in lines_newest_first(path):
        if not line.strip():
            continue  # blank by Unicode's rules too: it fails to decode and is skipped
        try:
            yield parse_entry(decode_line(line))
        except (ValueError, PeerViolation):
            continue


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


async def _flush(session: Session, batch: list[Wire]) -> None:
    if batch:
        await session.send_raws(batch)
        batch.clear()


async def replay_transcript(session: Session, path: Path) -> ReplayStats:
    """Send the session's history to the client, restoring usage limits as typed records."""
    stats = ReplayStats()
    planner = ReplayPlanner(
        session_id=session.session_id,
        capable=session.core.notices,
        active_uuid=active_from_newest(_entries_newest_first(path)),
    )
    view = TurnView(cwd=session.cwd, live=False, terminal=session.view.terminal)
    first_prompt: str | None = None
    batch: list[Wire] = []
    for entry, raw in _entries(path, stats):
        if first_prompt is None and entry.kind is EntryKind.PROMPT and entry.top_level:
            first_prompt = entry.text
        action = planner.plan(entry)
        if action.restore:
            stats.restored += 1
            # The record goes out through the core, after the updates before it.
            await _flush(session, batch)
            await session.feed(
                HistoryFailureFound(id=action.failure_id, title=action.title, active=action.active)
            )
        elif action.replay:
            batch += _updates(view, entry, raw)
            if len(batch) >= _BATCH_UPDATES:
                await _flush(session, batch)
    batch += view.close_open_calls()
    await _flush(session, batch)
    title = title_for(first_prompt or "")
    if title:
        # The session's name, as a live session gets it from its first prompt.
        await session.send_raw({"sessionUpdate": "session_info_update", "title": title})
    _log_skips(session.session_id, view.skipped, stats)
    return stats


def _log_skips(session_id: str, blocks: int, stats: ReplayStats) -> None:
    """Once per replay: what could not be read, counted."""
    if blocks:
        log.warning(
            "session %s: skipped %d transcript content block(s) of an unknown type or shape",
            session_id,
            blocks,
        )
    if stats.skipped:
        log.warning(
            "session %s: skipped %d unreadable transcript line(s) of %d",
            session_id,
            stats.skipped,
            stats.lines,
        )
    log.debug("session %s: %d non-message transcript line(s)", session_id, stats.non_message)
