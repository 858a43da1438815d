"""session/load: replay a session's transcript (found by `session_store.find_transcript`) in order.

The file is read once in order, a block at a time, so memory does not grow with its length;
before that, its last lines are read backwards, a block at a time, until one decides which
usage limit is still active (`fsm.claude.replay.active_from_newest`; usually the last few lines). A
line that is not JSON, or an entry of a shape or type we cannot read, is skipped and counted;
the count is logged once and the rest replays. Lines of Claude Code's known non-message types
(`fsm.claude.transcript_entries.NON_MESSAGE_TYPES`) are skipped silently and counted apart. Updates
go to the client a few hundred at a time, in one write each (`ClientLink.send_raw_updates`); a
restored usage limit goes out through the core, after the updates before it.

A session whose plan exit cleared its context (`adapter.claude.session_links`) replays the
transcripts it left behind first, oldest first, then its continuation's, as one history: one
view, one planner (the newest usage limit across them all is the active one), one title from
the very first prompt, so the client sees what the live session showed.
"""

from __future__ import annotations

import functools
import itertools
import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from acp import RequestError

from adapter.claude import session_store
from adapter.claude.plan_files import existing_plan_file
from adapter.claude.skill_files import skill_file_in
from adapter.claude.subagent_files import subagent_files
from adapter.claude.transcripts import ReplayStats, entries, entries_newest_first
from adapter.session.session import Session
from adapter.view.compaction_replay import ReplayedCompactions
from adapter.view.title import title_for
from adapter.view.turn_view import TurnView, prompt_updates
from fsm import (
    AirClient,
    AsyncTasks,
    EntryKind,
    HistoryFailureFound,
    ReplayPlanner,
    SubagentReplay,
    TaskReplay,
    TranscriptEntry,
    active_from_newest,
    fork_directive,
)

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


def _child_updates(view: TurnView, entry: TranscriptEntry, launch: str) -> list[Wire]:
    """The updates of one entry of a subagent's own transcript (its prompt, its words, its
    calls and their results), for its child session: nothing of the root's is closed."""
    if entry.kind is EntryKind.PROMPT:
        return prompt_updates(entry.content)
    if entry.kind is EntryKind.USER_OTHER:
        return view.user(entry.content)
    if entry.kind is EntryKind.ASSISTANT:
        return view.assistant(entry.content, message_id=None, parent=launch)
    return []


def _message_content(raw: Mapping[str, Any]) -> object:
    message = raw.get("message")
    return message.get("content") if isinstance(message, Mapping) else None


def _agent_transcripts(transcript: Path) -> dict[str, Path]:
    """A session's subagent transcripts by the Agent call that launched each."""
    return {launch: found.transcript for launch, found in subagent_files(transcript).items()}


class _Batch:
    """Updates on their way to the client, a few hundred at a time, each on its session (the
    root's, or a JetBrains AIR child session's)."""

    def __init__(self, session: Session, subagents: SubagentReplay, tasks: TaskReplay) -> None:
        self.session = session
        self.subagents = subagents
        self.tasks = tasks
        self.pending: list[tuple[str, Wire]] = []
        # Each transcript's subagent transcripts, by launch, read once when first needed; a
        # subagent's history is replayed once.
        self.agents: dict[Path, dict[str, Path]] = {}

    def add(self, updates: list[Wire], session_id: str | None = None) -> None:
        target = session_id or self.session.session_id
        self.pending += self.subagents.route_all(updates, target)

    def extend(self, routed: list[tuple[str, Wire]]) -> None:
        self.pending += routed

    def tasks_of(self, entry: TranscriptEntry, raw: Mapping[str, Any], session_id: str) -> None:
        """An entry of `session_id`'s history: its tool calls learnt, the async tasks its task
        notifications end restored (before the entry's own updates, as the reference:
        docs/reference-adapter.md#subagent-replay)."""
        if entry.kind is EntryKind.ASSISTANT:
            self.tasks.read(entry.content, session_id)
        else:
            self.pending += self.tasks.notified(_message_content(raw))

    async def flush(self) -> None:
        for session_id, group in itertools.groupby(self.pending, key=lambda pair: pair[0]):
            await self.session.send_raws([update for _, update in group], session_id)
        self.pending.clear()


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
        plan_updates=session.view.plan_updates,
    )
    compactions = ReplayedCompactions(
        updates=session.view.compaction_updates,
        session_id=session.session_id,
        air=session.view.air,
    )
    first_prompt: str | None = None
    # JetBrains AIR's native subagent sessions: each subagent's history on a child session.
    air = session.view.air or AirClient()
    subagents = SubagentReplay(session.session_id, enabled=air.native_subagents)
    # JetBrains AIR's async tasks, each on the session of the call that started it.
    tasks = TaskReplay(AsyncTasks() if air.async_tasks else None)
    batch = _Batch(session, subagents, tasks)
    for entry, raw, transcript in _all_entries(paths, stats):
        if not first_prompt and entry.kind is EntryKind.PROMPT and entry.top_level:
            # The first prompt the user said something in (a `/model` alone names nothing).
            first_prompt = entry.text
        action = planner.plan(entry)
        shown, spent = compactions.entry(raw)  # a past compaction, as the live session showed it
        batch.add(shown)
        if action.restore:
            stats.restored += 1
            # The record goes out through the core, after the updates before it.
            await batch.flush()
            await session.feed(
                HistoryFailureFound(id=action.failure_id, title=action.title, active=action.active)
            )
        elif action.replay and not spent:
            parent = raw.get("parent_tool_use_id")
            parent = parent if isinstance(parent, str) else None
            launches = subagents.read(entry.content, parent)
            if entry.kind is not EntryKind.ASSISTANT:
                subagents.notified(_message_content(raw))
            target, announced = subagents.target(parent)
            batch.extend(announced)
            batch.tasks_of(entry, raw, target)
            if entry.kind is EntryKind.ASSISTANT and parent and subagents.enabled:
                choices = session.view.model_choices()
                batch.extend(subagents.model(parent, entry.model, choices))
            batch.add(_updates(view, entry, raw), target)
            for launch in launches:
                await _replay_child(batch, view, transcript, launch, stats)
            if len(batch.pending) >= _BATCH_UPDATES:
                await batch.flush()
    batch.add([*compactions.finish(), *view.close_open_calls()])
    batch.extend(subagents.finish())
    await batch.flush()

    async def refine_models() -> None:
        # Once the load is answered the model list is known (the reference's
        # `publishReplayedChildModels`: docs/reference-adapter.md#subagent-replay): a child
        # shown its model's id gets the list's entry.
        for session_id, update in subagents.refined_models(session.view.model_choices()):
            await session.send_raws([update], session_id)

    if subagents.enabled:
        session.controls.after_setup_answer(refine_models)
    # The replayed task list is the live session's plan from here on, as it was live.
    session.view.adopt_tasks(view.tasks)
    # The session's name: the one Claude Code stored (a `/rename`, a generated title), as
    # `session/list` shows it and the live session showed it
    # (docs/decisions.md#live-session-names), else its first prompt's first line.
    stored = functools.partial(
        anyio.to_thread.run_sync, session_store.custom_title, path.stem, session.cwd
    )
    title = None if await session.view.read_title(stored) else title_for(first_prompt or "")
    if title:
        await session.send_raw({"sessionUpdate": "session_info_update", "title": title})
    _log_skips(session.session_id, view.skipped, stats)
    return stats


def _all_entries(
    paths: Sequence[Path], stats: ReplayStats
) -> Iterator[tuple[TranscriptEntry, Any, Path]]:
    for path in paths:
        for entry, raw in entries(path, stats):
            yield entry, raw, path


async def _replay_child(
    batch: _Batch,
    view: TurnView,
    transcript: Path,
    launch: str,
    stats: ReplayStats,
) -> None:
    """The child of `launch`, announced right after the message that launched it, then its
    own transcript on its session, its own launches' children within it."""
    batch.extend(batch.subagents.announce(launch))
    agents = batch.agents
    if transcript not in agents:
        agents[transcript] = _agent_transcripts(transcript)
    path = agents[transcript].pop(launch, None)  # each subagent's history once
    if path is None:
        return
    target, _ = batch.subagents.target(launch)
    try:
        records = list(entries(path, stats))
    except OSError:
        log.warning(
            "session %s: a subagent's transcript could not be read", batch.session.session_id
        )
        return
    # A fork child: what it inherited is not its own; its directive is its prompt.
    fork = fork_directive(raw for _, raw in records)
    if fork is not None:
        start, prompt = fork
        records = records[start + 1 :]
        if prompt is not None:
            batch.add(prompt_updates(({"type": "text", "text": prompt},)), target)
    for entry, raw in records:
        launches = batch.subagents.read(entry.content, launch)
        batch.tasks_of(entry, raw, target)
        if entry.kind is EntryKind.ASSISTANT:
            batch.extend(batch.subagents.model(launch, entry.model))
        batch.add(_child_updates(view, entry, launch), target)
        for inner in launches:
            await _replay_child(batch, view, transcript, inner, stats)
        if len(batch.pending) >= _BATCH_UPDATES:
            await batch.flush()


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
