"""How many compactions a session's transcript holds before one: what a live compaction's id
needs to agree with its load's (`adapter.view.compaction_ids`). Read once per session, when a
resumed or loaded session opens (else at its first compaction seen live); the live side counts
on from there.

The transcript is read by the same reader as `session/load` (`adapter.claude.transcripts`),
with the same test for a boundary, so both count the same entries. A long transcript is read
in a worker thread, so that it does not hold the session's other work; a short one at once
(docs/performance.md, "Work done ahead"): a resume counts when it opens, as its Claude answers
the handshake, and a thread there held the answer up by its hand-off and the interpreter lock.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import anyio

from adapter.claude.session_store import find_transcript
from adapter.claude.transcripts import ReplayStats, entries
from adapter.view.compaction_ids import is_session_boundary
from adapter.wire.private_files import open_regular

__all__ = ["boundaries_before"]

log = logging.getLogger(__name__)


# The longest transcript counted without a worker thread. Its bytes are read at once and parsed
# only when they name a boundary: most short transcripts have none, and a look for the word in
# 32 KiB takes microseconds where parsing it took up to 1.7 ms (measured: 436 short lines).
SMALL_COUNT_BYTES = 32 * 1024
BOUNDARY_WORD = b"compact_boundary"


def _count(session_id: str, path: Path, stop: str | None) -> int:
    count = 0
    try:
        for _entry, raw in entries(path, ReplayStats()):
            if isinstance(raw, Mapping) and is_session_boundary(raw):
                if stop is not None and raw.get("uuid") == stop:
                    break  # the boundary being shown now: not one before it
                count += 1
    except OSError:
        log.warning("session %s: could not read its transcript to name a compaction", session_id)
    return count


async def boundaries_before(
    session_id: str, cwd: str, env: Mapping[str, str], stop: str | None = None
) -> int:
    """The main-conversation compactions in the session's transcript (0 without one), those
    before the boundary `stop` if it is there."""
    path = find_transcript(session_id=session_id, cwd=cwd, env=env)
    if path is None:
        return 0
    try:
        # Never blocks, whatever the path is (a FIFO is not a regular file).
        with open_regular(path) as file:
            head = file.read(SMALL_COUNT_BYTES + 1)
    except OSError:
        head = None  # the thread's read says what is wrong
    if head is not None and len(head) <= SMALL_COUNT_BYTES:
        if BOUNDARY_WORD not in head and b"\\u" not in head:  # nor spelt with escapes
            return 0
        return _count(session_id, path, stop)
    return await anyio.to_thread.run_sync(_count, session_id, path, stop)
