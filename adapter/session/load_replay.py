"""session/load: replay a session's transcript (found by `session_store.find_transcript`) in order.

The file is read once in order, a block at a time, so memory does not grow with its length;
before that, its last lines are read backwards, a block at a time, until one decides which
usage limit is still active (`fsm.replay.active_from_newest`; usually the last few lines). A
line that is not JSON, or an entry of a shape or type we cannot read, is skipped and counted;
the count is logged once and the rest replays. Lines of Claude Code's known non-message types
(`fsm.transcript_entries.NON_MESSAGE_TYPES`) are skipped silently and counted apart. Updates
go to the client a few hundred at a time, in one write each (`ClientLink.send_raw_updates`); a
restored usage limit goes out through the core, after the updates before it.

A session whose plan exit cleared its context (`adapter.claude.session_links`) replays the
transcripts it left behind first, oldest first, then its continuation's, as one history: one
view, one planner (the newest usage limit across them all is the active one), one title from
the very first prompt, so the client sees what the live session showed.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from acp import RequestError

from adapter.claude.plan_files import existing_plan_file
from adapter.claude.skill_files import skill_file_in
from adapter.claude.transcripts import ReplayStats, entries, entries_newest_first
from adapter.session.session import Session
from adapter.view.compaction_replay import ReplayedCompactions
from adapter.view.title import title_for
from adapter.view.turn_view import TurnView, prompt_updates
from fsm import EntryKind, HistoryFailureFound, ReplayPlanner, TranscriptEntry, active_from_newest

if TYPE_CHECKING:
    from adapter.claude.claude_runtime import ClaudeRuntime

__all__ = ["replay_transcript", "start_and_replay"]

log = logging.getLogger(__name__)

Wire = dict[str, Any]

# Updates sent in one write: a few hundred KiB at most, the client's reader never starved.
_BATCH_UPDATES = 256


def _updates(view: TurnView, entry: TranscriptEntry, raw: Mapping[str, Any]) -> list[Wire]:
    """The ACP session updates for one stored entry: the live path's own
    (adapter.view.turn_view)."""
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


async def replay_transcript(
    session: Session, path: Path, earlier: Sequence[Path] = ()
) -> ReplayStats:
    """Send the session's history to the client, restoring usage limits as typed records:
    the `earlier` transcripts (oldest first), then `path`'s."""
    stats = ReplayStats()
    paths = [*earlier, path]
    newest_first = (entries_newest_first(p) for p in reversed(paths))
    planner = ReplayPlanner(
        session_id=session.session_id,
        capable=session.core.notices,
        active_uuid=active_from_newest(itertools.chain.from_iterable(newest_first)),
    )
    view = TurnView(
        cwd=session.cwd,
        live=False,
        terminal=session.view.terminal,
        terminal_delta=session.view.terminal_delta,
        air=session.view.air,
        existing_file=existing_plan_file,
        skill_file=skill_file_in(session.cwd),
    )
    compactions = ReplayedCompactions(
        updates=session.view.compaction_updates, session_id=session.session_id
    )
    first_prompt: str | None = None
    batch: list[Wire] = []
    for entry, raw in itertools.chain.from_iterable(entries(p, stats) for p in paths):
        if not first_prompt and entry.kind is EntryKind.PROMPT and entry.top_level:
            # The first prompt the user said something in (a `/model` alone names nothing).
            first_prompt = entry.text
        action = planner.plan(entry)
        shown, spent = compactions.entry(raw)  # a past compaction, as the live session showed it
        batch += shown
        if action.restore:
            stats.restored += 1
            # The record goes out through the core, after the updates before it.
            await _flush(session, batch)
            await session.feed(
                HistoryFailureFound(id=action.failure_id, title=action.title, active=action.active)
            )
        elif action.replay and not spent:
            batch += _updates(view, entry, raw)
            if len(batch) >= _BATCH_UPDATES:
                await _flush(session, batch)
    batch += [*compactions.finish(), *view.close_open_calls()]
    await _flush(session, batch)
    # The replayed task list is the live session's plan from here on, as it was live.
    session.view.adopt_tasks(view.tasks)
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


async def start_and_replay(
    session: Session, runtime: ClaudeRuntime, path: Path, earlier: Sequence[Path] = ()
) -> None:
    """session/load: `session` takes over `runtime` (resuming Claude) while the transcript at
    `path` (after any `earlier` ones) streams to the client (both read it; on a long one, each
    takes a while)."""
    from adapter.claude.claude_runtime import RuntimeStartError

    failed_start: list[RuntimeStartError] = []

    async def start() -> None:
        try:
            await session.start(runtime)
        except RuntimeStartError as exc:
            failed_start.append(exc)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(start)
            await replay_transcript(session, path, earlier)
    except Exception as exc:
        # Declared boundary: a bug in replay must not show the client our internals.
        log.exception("session %s: replay failed", session.session_id)
        await session.close()
        await runtime.close()  # the session may not have taken it over yet
        raise RequestError.internal_error(
            {"reason": "the session's history could not be replayed"}
        ) from exc
    if failed_start:
        await session.close()
        raise failed_start[0].request_error() from failed_start[0]
