"""Where sessions live between processes: Claude Code's transcripts, plus our own markers.

Theory of operation: an ACP session id is Claude's session id, so Claude Code's transcript
`<config>/projects/<cwd>/<id>.jsonl` is the session's record, listed and forked through the
SDK's own helpers (`claude_agent_sdk.list_sessions` / `fork_session`). Claude Code writes a
transcript only once the session has been prompted, so `session/new` also leaves a small
marker `<config>/claude-acp/sessions/<id>.json` naming the session's folder; `locate` uses it
to load or resume a session that was created but never prompted (a fresh Claude process with
that id, nothing to replay). `session/list` pages with the cursor `offset:N`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from acp import RequestError
from acp.schema import ListSessionsResponse, SessionInfo

from adapter.claude import session_links, transcripts
from adapter.claude.settings_files import config_home
from adapter.wire.private_files import UnsafeFile, open_private, open_regular, private_folder

if TYPE_CHECKING:
    from fsm import ForkPoint

# The core's fork points and listed titles are imported by the fork and the listing that use
# them, not with this module: a resume or load needs `locate` before its Claude can be spawned
# (docs/performance.md).

__all__ = [
    "PAGE_SIZE",
    "Located",
    "delete",
    "discard_fork",
    "earlier_transcripts",
    "find_transcript",
    "fork",
    "keep_title",
    "known_on_disk",
    "list_page",
    "locate",
    "not_found",
    "pending_title",
    "relinked",
    "remember",
    "transcript_places",
]

log = logging.getLogger(__name__)

PAGE_SIZE = 1000
_CURSOR_PREFIX = "offset:"
# An entry's keys a fork point's search reads (`fsm.air.fork_points`).
_FORK_KEYS = ("type", "uuid", "parentUuid", "isSidechain", "parent_tool_use_id", "parent_agent_id")
# A marker is `{"cwd": ...}`: anything longer than a long path is not one (read no further).
_MARKER_LIMIT = 64 * 1024


@dataclass(frozen=True, slots=True)
class Located:
    transcript: Path | None  # None: created, never prompted (nothing to replay or resume)


def not_found(session_id: str) -> RequestError:
    return RequestError(
        -32002, "Resource not found: no such session in this folder", {"sessionId": session_id}
    )


def _marker(session_id: str, env: Mapping[str, str]) -> Path | None:
    try:
        uuid.UUID(session_id)
    except ValueError:
        return None
    return config_home(env) / "claude-acp" / "sessions" / f"{session_id}.json"


def remember(session_id: str, cwd: str, env: Mapping[str, str]) -> None:
    """Leave the marker that lets a never-prompted session be loaded later (best effort)."""
    path = _marker(session_id, env)
    if path is None:
        return
    try:
        # The marker names the user's folder: private, as the trace and the log file are.
        private_folder(path.parent)
        with open_private(path, append=False) as out:
            out.write(json.dumps({"cwd": os.path.realpath(cwd)}))
    except UnsafeFile as refused:
        log.warning("not recording session %s for a later load: %s", session_id, refused.reason)
    except OSError:
        log.warning("could not record session %s for a later load", session_id)


def _marked(session_id: str, cwd: str, env: Mapping[str, str]) -> bool:
    path = _marker(session_id, env)
    if path is None:
        return False
    try:
        with open_regular(path) as file:  # a FIFO planted as a marker must not hang a load
            data = json.loads(file.read(_MARKER_LIMIT).decode("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("cwd") == os.path.realpath(cwd)


def find_transcript(*, session_id: str, cwd: str, env: Mapping[str, str]) -> Path | None:
    """`<config>/projects/<sanitized cwd>/<session_id>.jsonl`, config being CLAUDE_CONFIG_DIR
    (the adapter's runtime env first, then ours) or `~/.claude`; None when there is none."""
    from adapter.claude.sdk_compat import (
        sanitize_path,  # the SDK's own rule for project folder names
    )

    if "/" in session_id or session_id in ("", ".", ".."):
        return None
    projects = config_home(env) / "projects"
    for folder in dict.fromkeys([cwd, os.path.realpath(cwd)]):
        candidate = projects / sanitize_path(folder) / f"{session_id}.jsonl"
        try:
            if candidate.is_file():
                return candidate
        except OSError:
            continue  # a name too long for the file system: no such transcript
    return None


def locate(session_id: str, cwd: str, env: Mapping[str, str]) -> Located:
    """The session's transcript, or a never-prompted session's marker; else -32002. A session
    whose plan exit cleared its context goes on in its linked Claude session (`session_links`)
    once that one has a transcript; the transcript's name is the Claude id to resume."""
    link = session_links.read(session_id, env)
    if link is not None:
        path = find_transcript(session_id=link.claude_id, cwd=cwd, env=env)
        if path is not None:
            return Located(transcript=path)
    path = find_transcript(session_id=session_id, cwd=cwd, env=env)
    if path is not None:
        return Located(transcript=path)
    if _marked(session_id, cwd, env):
        return Located(transcript=None)
    raise not_found(session_id)


def earlier_transcripts(
    session_id: str, cwd: str, current: Path, env: Mapping[str, str]
) -> list[Path]:
    """The transcripts a session whose context was cleared left behind, oldest first (its ACP
    id's own, then each later one it left), for `session/load` to replay before `current`,
    the continuation's. One that is gone is skipped with one log line: the rest replays."""
    link = session_links.read(session_id, env)
    if link is None or current.stem != link.claude_id:
        return []  # `locate` fell back to the ACP id's own transcript: nothing came before
    found: list[Path] = []
    missing = 0
    for claude_id in dict.fromkeys([session_id, *link.earlier]):
        path = find_transcript(session_id=claude_id, cwd=cwd, env=env)
        if path is None:
            missing += 1
        else:
            found.append(path)
    if missing:
        log.warning(
            "session %s: %d transcript(s) from before its context was cleared are missing;"
            " replaying the rest",
            session_id,
            missing,
        )
    return found


async def fork(
    session_id: str, cwd: str, env: Mapping[str, str], point: ForkPoint | None = None
) -> tuple[str, Path | None]:
    """A copy of the session under a new id: (new id, the copy's transcript to resume, or None
    when the session was never prompted and the fork starts fresh). With a fork point
    (JetBrains AIR's `_meta.jetbrains.air.fork`), the copy ends with that message; -32602 when
    the session has no such message."""
    from claude_agent_sdk import fork_session

    from fsm import fork_point_missing

    located = locate(session_id, cwd, env)
    # A point is looked for in the transcript; none written, no message
    # (docs/decisions.md#fork-point).
    if located.transcript is None and point is not None:
        text, data = fork_point_missing(point, session_id)
        raise RequestError(-32602, text, data)
    if located.transcript is None:
        new_id = str(uuid.uuid4())  # nothing was said yet: the fork is a fresh session
        remember(new_id, cwd, env)
        return new_id, None
    transcript = located.transcript
    up_to: str | None = None
    if point is not None:
        found = await asyncio.to_thread(_fork_point_uuid, point, transcript)
        if found is None:
            text, data = fork_point_missing(point, session_id)
            raise RequestError(-32602, text, data)
        up_to = found
    claude_id = transcript.stem  # the linked continuation's, where there is one
    try:
        if _small(transcript):
            # Copied here: a worker thread's hand-off there and back costs more (about 1 ms)
            # than the copy of a short transcript (docs/performance.md).
            result = fork_session(claude_id, directory=cwd, up_to_message_id=up_to)
        else:
            result = await _copied_in_a_thread(claude_id, cwd, up_to, transcript, env)
    except (OSError, ValueError) as exc:
        log.info("fork of session %s failed: %s", session_id, exc)  # the client hears it
        raise not_found(session_id) from exc
    remember(result.session_id, cwd, env)
    return result.session_id, _fork_copy(result.session_id, cwd, transcript, env)


async def _copied_in_a_thread(
    claude_id: str, cwd: str, up_to: str | None, transcript: Path, env: Mapping[str, str]
) -> Any:
    """The SDK's fork of a long transcript, on asyncio's worker thread, not anyio's: anyio's
    imports its asyncio backend (about 9 ms), which a process's first fork would do before its
    Claude is spawned; the backend is imported while Claude starts up
    (`serving.LateTaskGroup`)."""
    from claude_agent_sdk import fork_session

    copying = asyncio.ensure_future(
        asyncio.to_thread(fork_session, claude_id, directory=cwd, up_to_message_id=up_to)
    )
    try:
        return await asyncio.shield(copying)
    except asyncio.CancelledError:
        # Cancelled mid-copy: the thread goes on regardless. The fork was never given to the
        # client, so the copy it makes is removed, not left to be listed
        # (docs/decisions.md#cancelled-fork).
        await _copy_done(copying)
        if not copying.cancelled() and copying.exception() is None:
            new_id = copying.result().session_id
            discard_fork(new_id, _fork_copy(new_id, cwd, transcript, env), env)
        raise


# The largest transcript a fork copies without a worker thread: the SDK copies 32 KiB in well
# under a millisecond, less than the thread's hand-off (measured: 2.7 KB 0.3 ms, 27 KB 0.8 ms).
SMALL_COPY_BYTES = 32 * 1024


def _small(transcript: Path) -> bool:
    try:
        return transcript.stat().st_size <= SMALL_COPY_BYTES
    except OSError:
        return False  # the thread's copy reports what is wrong


def _fork_copy(new_id: str, cwd: str, original: Path, env: Mapping[str, str]) -> Path:
    # The SDK writes the copy beside the original, where `find_transcript` looks for it.
    copy = find_transcript(session_id=new_id, cwd=cwd, env=env)
    return copy or original.with_name(f"{new_id}.jsonl")


async def _copy_done(copying: asyncio.Future[Any]) -> None:
    """Wait until the copy's thread is done, whatever cancellation comes meanwhile: anyio's
    (a cancelled scope cancels again at every wait) through a shielded scope, asyncio's (once
    per `Task.cancel`) by waiting again. Only a cancelled fork imports anyio's backend here."""
    with anyio.CancelScope(shield=True):
        while not copying.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait((copying,))


def discard_fork(new_id: str, copy: Path | None, env: Mapping[str, str]) -> None:
    """Remove a fork the client was never given: its copied transcript (`copy`, None for a
    fresh fork) and its marker (docs/decisions.md#cancelled-fork). Best effort: what cannot be
    removed is logged."""
    for path in (copy, _marker(new_id, env)):
        if path is None or path.stem != new_id:
            continue  # never anything but the fork's own files
        try:
            path.unlink(missing_ok=True)
        except OSError:
            log.warning("could not remove a file of a fork that was not given to the client")


def _fork_entry(raw: Mapping[str, Any]) -> dict[str, Any]:
    """What a fork point's search reads of an entry: its links, and an assistant message's
    id and text (a tool result's bulk is never kept)."""
    kept = {k: raw.get(k) for k in _FORK_KEYS if k in raw}
    message = raw.get("message")
    if raw.get("type") == "assistant" and isinstance(message, Mapping):
        content = message.get("content")
        texts = [
            {"type": "text", "text": b["text"]}
            for b in (content if isinstance(content, list) else [])
            if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        text = content if isinstance(content, str) else texts
        kept["message"] = {"id": message.get("id"), "content": text}
    return kept


def _fork_point_uuid(point: ForkPoint, transcript: Path) -> str | None:
    from fsm import fork_point_uuid

    found = [
        _fork_entry(raw)
        for _, raw in transcripts.entries(transcript, transcripts.ReplayStats())
        if isinstance(raw, Mapping)
    ]
    return fork_point_uuid(point, found)


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    digits = cursor.removeprefix(_CURSOR_PREFIX)
    if not cursor.startswith(_CURSOR_PREFIX) or not digits.isdigit():
        raise RequestError.invalid_params({"cursor": "not a cursor this agent gave out"})
    return int(digits)


def _iso(milliseconds: int) -> str:
    stamp = datetime.datetime.fromtimestamp(milliseconds / 1000, tz=datetime.UTC)
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def list_page(
    cwd: str | None,
    cursor: str | None,
    page_size: int = PAGE_SIZE,
    env: Mapping[str, str] | None = None,
    *,
    hide_archived: bool = False,
) -> ListSessionsResponse:
    """One page of Claude's sessions for `cwd` (every folder when None), newest first;
    `hide_archived`: without the archived ones (`fsm.air.archive_titles`), for a JetBrains AIR
    client whose `session/delete` archives."""
    from claude_agent_sdk import list_sessions

    from adapter.claude.sdk_compat import list_regular_transcripts_only

    list_regular_transcripts_only()
    offset = _offset(cursor)
    if cwd is not None and not os.path.isabs(cwd):
        raise RequestError.invalid_params({"cwd": "must be an absolute path"})

    def read() -> list[object]:
        # One more than a page tells whether another page follows.
        found = list_sessions(
            directory=cwd, limit=page_size + 1, offset=offset, include_worktrees=False
        )
        return list(found)

    found = await anyio.to_thread.run_sync(read)
    from fsm import is_archived, listed_title, visible

    # A session whose context was cleared is listed once, under its ACP id, as its current
    # Claude session (the transcripts it left behind are not sessions of their own).
    shown_as, left = relinked(env or {})
    items = []
    for info in found[:page_size]:
        claude_id = info.session_id  # type: ignore[attr-defined]
        if claude_id in left:
            continue
        if hide_archived and is_archived(info.custom_title):  # type: ignore[attr-defined]
            continue
        items.append(
            SessionInfo(
                session_id=shown_as.get(claude_id, claude_id),
                cwd=info.cwd or cwd or "",  # type: ignore[attr-defined]
                # From the transcript, which anyone may have written: shown as one line,
                # without Claude Code's markers (docs/decisions.md#listed-titles).
                title=visible(listed_title(info.summary or "")) or None,  # type: ignore[attr-defined]
                updated_at=_iso(info.last_modified),  # type: ignore[attr-defined]
            )
        )
    more = len(found) > page_size
    return ListSessionsResponse(
        sessions=items, next_cursor=f"{_CURSOR_PREFIX}{offset + page_size}" if more else None
    )


def relinked(env: Mapping[str, str]) -> tuple[dict[str, str], set[str]]:
    """(current Claude id -> its ACP id, the Claude ids left behind) over every link."""
    shown_as: dict[str, str] = {}
    left: set[str] = set()
    for link in session_links.links(env):
        shown_as[link.claude_id] = link.acp_id
        left.update([link.acp_id, *link.earlier])
    return shown_as, left - set(shown_as)


# How many copies of one transcript (in several project folders) a delete removes at most.
_MAX_COPIES = 64


async def delete(session_id: str, env: Mapping[str, str]) -> bool:
    """Remove the session's transcripts (every project folder's, with their subagent
    transcripts) and our marker; whether there was anything to remove. Other file system
    errors propagate (the request fails as an internal error, as the reference's does:
    docs/reference-adapter.md#session-delete)."""
    from claude_agent_sdk import delete_session

    marker = _marker(session_id, env)  # None unless a UUID: then no session of ours either
    if marker is None:
        return False

    def remove() -> bool:
        found = False
        # A session whose context was cleared goes with every Claude session it went on in.
        link = session_links.forget(session_id, env)
        ids = [session_id, *((*link.earlier, link.claude_id) if link is not None else ())]
        for claude_id in dict.fromkeys(ids):
            for _ in range(_MAX_COPIES):
                try:
                    delete_session(claude_id)  # one folder's copy, the one listing would show
                except FileNotFoundError:
                    break
                found = True
        try:
            marker.unlink()
        except FileNotFoundError:
            return found
        return True

    return await anyio.to_thread.run_sync(remove)


def _marker_data(path: Path) -> dict[str, Any] | None:
    try:
        with open_regular(path) as file:  # a FIFO planted as a marker must not hang a read
            data = json.loads(file.read(_MARKER_LIMIT).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("cwd"), str) else None


def pending_title(session_id: str, env: Mapping[str, str]) -> tuple[bool, str | None]:
    """A never-prompted session's title, kept by its marker until Claude Code writes its
    transcript (docs/decisions.md#unwritten-titles): (whether it has a marker, the title)."""
    path = _marker(session_id, env)
    data = _marker_data(path) if path is not None else None
    if data is None:
        return False, None
    title = data.get("title")
    return True, title if isinstance(title, str) else None


def keep_title(session_id: str, env: Mapping[str, str], title: str | None) -> bool:
    """Keep `title` (None: none) as the never-prompted session's; False without a marker."""
    path = _marker(session_id, env)
    data = _marker_data(path) if path is not None else None
    if path is None or data is None:
        return False
    if title is None:
        data.pop("title", None)
    else:
        data["title"] = title
    try:
        with open_private(path, append=False) as out:
            out.write(json.dumps(data))
    except (UnsafeFile, OSError):
        log.warning("could not keep the title of session %s", session_id)
        return False
    return True


def known_on_disk(session_id: str, env: Mapping[str, str]) -> bool:
    """Whether Claude (or a never-prompted marker) knows the session in any folder."""
    marker = _marker(session_id, env)  # None unless a UUID: anything else could be a glob
    if marker is None:
        return False
    if marker.is_file():
        return True
    return any(os.path.lexists(path) for path in transcript_places(session_id, env))


def transcript_places(claude_id: str, env: Mapping[str, str]) -> list[Path]:
    """Where a transcript of `claude_id` would be, one place in each project folder (what
    `projects/*/<id>.jsonl` would match, in its order), whether it is there or not. Each folder
    is named, not globbed: a pattern per session id stays in fnmatch's and pathlib's caches, a
    few objects for every session ever looked up (tests/e2e/test_memory_slopes.py)."""
    try:
        folders = sorted((config_home(env) / "projects").iterdir())
    except OSError:
        return []
    return [folder / f"{claude_id}.jsonl" for folder in folders if not folder.name.startswith(".")]


def custom_title(claude_id: str, cwd: str) -> str | None:
    """The custom title Claude Code stored for the session (a `/rename`, else its generated
    title), as `session/list` shows it; None when it has none. Blocking: run it in a thread."""
    from claude_agent_sdk import get_session_info

    from adapter.claude.sdk_compat import list_regular_transcripts_only

    list_regular_transcripts_only()
    try:
        info = get_session_info(claude_id, directory=cwd)
    except (OSError, ValueError):
        return None
    return info.custom_title if info is not None else None
