"""Claude Code's transcripts read as lines and entries: forwards a block at a time, backwards
from the end, always cut as text mode cuts lines (a lone `\r` ends a line too), decoded once by
`json_codec.decode_line`. The one reader for `session/load` (`adapter.session.load_replay`) and
for a resume's tail (`transcript_tail`). Holds one block and one line at most either way.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapter.wire.json_codec import decode_line, long_digit_runs
from adapter.wire.private_files import open_regular
from fsm import EntryKind, PeerViolation, TranscriptEntry, parse_entry

__all__ = [
    "BACK_BLOCK",
    "MAX_TRANSCRIPT_LINE",
    "ReplayStats",
    "entries",
    "entries_newest_first",
    "line_batches",
    "lines_newest_first",
]


# How much of the file is read at a time going forwards: the line cutting and the digit check
# run over a whole block in C instead of line by line.
_READ_BLOCK = 1024 * 1024
# Lines with long digit runs a block may hold before all its lines are checked one by one.
_RUNS_PER_BLOCK = 16
# The longest transcript line read (a stored tool result of many MiB): a longer one is skipped
# as it is read, never held whole, so a huge or hostile file costs a bounded amount of memory.
MAX_TRANSCRIPT_LINE = 32 * 1024 * 1024

log = logging.getLogger(__name__)


def _skipped_long_line(path: Path, limit: int) -> None:
    log.warning("skipped a transcript line over %d MiB in %s", limit // (1024 * 1024), path.name)


@dataclass(slots=True)
class ReplayStats:
    lines: int = 0
    skipped: int = 0  # corrupt: not JSON, or an entry we cannot read
    non_message: int = 0  # a known non-message type: expected, never replayed
    restored: int = 0


def line_batches(
    path: Path, block: int = _READ_BLOCK, limit: int = MAX_TRANSCRIPT_LINE
) -> Iterator[tuple[bool, list[bytes]]]:
    """The file's lines, oldest first, as text mode cuts them (a lone `\r` ends a line too)
    without their ends, undecoded (UTF-8 is decoded once, by the decoder), a block's worth at
    a time, in batches that each say whether their lines are known to hold no run of 19
    digits (checked a block at a time: `json_codec.long_digit_runs`). A line over `limit`
    bytes is skipped as it is read (logged). Holds one block and one line at most."""
    with open_regular(path) as file:
        head: list[bytes] = []  # the start of a line that ends in a later block
        held = 0  # bytes in `head`
        skipping = False  # inside a line over the limit: dropped up to its end
        while data := file.read(block):
            cut = data.find(b"\n") if skipping else data.rfind(b"\n")
            if cut < 0:
                if not skipping:
                    head.append(data)
                    held += len(data)
                    if held > limit:
                        head, held, skipping = [], 0, True
                        _skipped_long_line(path, limit)
                continue
            if skipping:  # the long line ends here; what follows is read as usual
                skipping, data = False, data[cut + 1 :]
                cut = data.rfind(b"\n")
                if cut < 0:
                    head, held = [data], len(data)
                    continue
            first = data.find(b"\n")
            if held + first > limit:  # the line that ends in this block is too long
                _skipped_long_line(path, limit)
                head, held = [], 0
                data, cut = data[first + 1 :], cut - first - 1
                if cut < 0:
                    head, held = [data], len(data)
                    continue
            whole = b"".join((*head, data[:cut])) if head else data[:cut]
            head = [data[cut + 1 :]]
            held = len(head[0])
            yield from _batches(whole)
        tail = b"".join(head)
        if tail and not skipping:
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


def entries(path: Path, stats: ReplayStats) -> Iterator[tuple[TranscriptEntry, Any]]:
    """Each readable entry with the decoded line it came from, oldest first."""
    for short_numbers, lines in line_batches(path):
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
BACK_BLOCK = 64 * 1024


def _split_universal(segment: bytes) -> list[bytes]:
    """The lines text mode reads from one `\n`-free run of bytes (a lone `\r` ends a line
    too, and `\r\n` is one line end)."""
    return segment.removesuffix(b"\r").split(b"\r") if b"\r" in segment else [segment]


def lines_newest_first(
    path: Path, block: int = BACK_BLOCK, limit: int = MAX_TRANSCRIPT_LINE
) -> Generator[bytes, None, None]:
    """The file's lines, last first, as reading it forwards in text mode would cut them (line
    ends left off, undecoded). Reads `block` bytes at a time; holds one line and one block
    at most. A line over `limit` bytes is skipped as it is read (logged), as `line_batches`
    skips it (`limit` stays above `block`, so only a line spanning blocks can be too long)."""
    with open_regular(path) as file:
        end = file.seek(0, os.SEEK_END)
        pending: list[bytes] = []  # pieces of a line whose start is not read yet, last first
        held = 0  # bytes in `pending`
        skipping = False  # inside a line over the limit: dropped up to its start
        last = True  # what follows the file's last `\n` is a line only if it is not empty
        while end > 0:
            start = max(0, end - block)
            file.seek(start)
            parts = file.read(end - start).split(b"\n")
            end = start
            if len(parts) > 1:
                if not skipping and held + len(parts[-1]) > limit:
                    _skipped_long_line(path, limit)
                    skipping = True
                if skipping:
                    last = False
                    segments: tuple[bytes, ...] = tuple(reversed(parts[1:-1]))
                else:
                    pending.append(parts[-1])
                    segments = (b"".join(reversed(pending)), *reversed(parts[1:-1]))
                for segment in segments:
                    if segment or not last:
                        yield from reversed(_split_universal(segment))
                    last = False
                pending, held, skipping = [parts[0]], len(parts[0]), False
                continue
            if not skipping:
                pending.append(parts[0])
                held += len(parts[0])
                if held > limit:
                    _skipped_long_line(path, limit)
                    pending, held, skipping = [], 0, True
        head = b"".join(reversed(pending))
        if not skipping and (head or not last):
            yield from reversed(_split_universal(head))


def entries_newest_first(path: Path) -> Iterator[TranscriptEntry]:
    for line in lines_newest_first(path):
        if not line.strip():
            continue  # blank by Unicode's rules too: it fails to decode and is skipped
        try:
            yield parse_entry(decode_line(line))
        except (ValueError, PeerViolation):
            continue
