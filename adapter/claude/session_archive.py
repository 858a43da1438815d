"""Archive a session on disk: the title records of `fsm.air.archive_titles`, appended to each copy
of its transcript (docs/decisions.md#session-delete-from-air).

Theory of operation: a session may have a copy of its transcript in several project folders
(`<config>/projects/*/<id>.jsonl`; a session whose context was cleared goes on in further
Claude sessions, `session_links`, each archived too). For each copy the current name is read as
AIR's own Claude provider reads it: the last `agent-name` record (tail, else head), else the
custom title the SDK reports (a `custom-title.json` sidecar counts when the tail has none);
the archived title is appended as the two records unless the copy's last two lines already are
exactly those. A sidecar is rewritten only where one exists. Empty transcripts do not count,
as Claude Code skips them. Blocking file I/O: callers run it in a worker thread.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path

from adapter.claude import session_links, session_store
from adapter.wire.private_files import UnsafeFile, open_private, open_regular
from fsm import archive_to, is_archived, title_records, visible_title

__all__ = [
    "TitleChange",
    "archive",
    "archived_name",
    "copies",
    "retitle",
    "write_pending_title",
]

log = logging.getLogger(__name__)

# The head and tail windows the SDK reads to title a transcript (its `LITE_READ_BUF_SIZE`).
_WINDOW = 64 * 1024
_SIDECAR = "custom-title.json"
_SIDECAR_LIMIT = 64 * 1024


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def copies(claude_id: str, env: Mapping[str, str]) -> list[Path]:
    """Every non-empty regular transcript of `claude_id` in any project folder."""
    if not _is_uuid(claude_id):  # anything else could be a glob
        return []
    found = []
    for path in session_store.transcript_places(claude_id, env):
        try:
            with open_regular(path) as file:
                if os.fstat(file.fileno()).st_size > 0:
                    found.append(path)
        except OSError:
            continue
    return found


def _head_tail(path: Path) -> tuple[str, str, bool]:
    """(first 64 KiB, last 64 KiB without its cut first line, whether the file ends a line)."""
    with open_regular(path) as file:
        size = os.fstat(file.fileno()).st_size
        head = file.read(_WINDOW).decode("utf-8", errors="replace")
        if size <= _WINDOW:
            return head, head, head.endswith("\n") or not head
        file.seek(size - _WINDOW)
        raw = file.read(_WINDOW).decode("utf-8", errors="replace")
    newline = raw.find("\n")
    return head, raw[newline + 1 :] if newline >= 0 else "", raw.endswith("\n")


def _last_field(text: str, key: str) -> str | None:
    """The last non-blank top-level string `key` of the JSON lines of `text`."""
    marker = f'"{key}"'
    if marker not in text:
        return None
    for line in reversed(text.split("\n")):
        if marker not in line:
            continue
        try:
            value = json.loads(line).get(key)
        except (ValueError, AttributeError):
            continue
        if isinstance(value, str) and value.strip():
            return value
    return None


def _sidecar(path: Path) -> Path:
    return path.parent / path.stem / _SIDECAR


def _sidecar_title(path: Path) -> str | None:
    try:
        with open_regular(_sidecar(path)) as file:
            data = json.loads(file.read(_SIDECAR_LIMIT).decode("utf-8"))
    except (OSError, ValueError):
        return None
    title = data.get("customTitle") if isinstance(data, dict) else None
    return title if isinstance(title, str) and title.strip() else None


def _sdk_title(claude_id: str) -> str | None:
    """The title the SDK's session listing gives the session (custom title, AI title, last
    prompt, summary, first prompt): asked only when no copy names it, so any copy's will do."""
    from claude_agent_sdk import get_session_info

    from adapter.claude.sdk_compat import list_regular_transcripts_only

    list_regular_transcripts_only()
    info = get_session_info(claude_id)
    return info.summary if info is not None else None


def archived_name(
    path: Path, claude_id: str, generated: str | None = None
) -> tuple[str | None, bool]:
    """(the copy's title, whether it is archived), as AIR's own Claude provider reads them;
    `generated`: the SDK's title of the session, when the caller has it already. The title
    keeps the prefix only when the copy is archived: a generated title (a first prompt that
    happens to start with it) never archives a session."""
    head, tail, _ = _head_tail(path)
    agent_name = _last_field(tail, "agentName") or _last_field(head, "agentName")
    custom = _last_field(tail, "customTitle")
    if custom is None:
        custom = _sidecar_title(path) or _last_field(head, "customTitle")
    title = agent_name or custom or generated or _sdk_title(claude_id)
    archived = is_archived(agent_name or custom)
    if title is not None and not archived and is_archived(title):
        title = visible_title(title)
    return title, archived


def _ensure_records(path: Path, records: str) -> None:
    """Append `records` unless the copy already ends with exactly them; a torn last line is
    closed first."""
    _, tail, ends_line = _head_tail(path)
    lines = [line for line in tail.split("\n") if line.strip()]
    if "\n".join(lines[-2:]) + "\n" == records:
        return
    with path.open("a", encoding="utf-8") as out:
        out.write(("" if ends_line else "\n") + records)


def _rewrite_sidecar(path: Path, title: str, *, create: bool = False) -> None:
    """Rewrite the copy's `custom-title.json` when it has one (or, `create`, in any case),
    atomically, private (0600 in a 0700 folder) as Claude Code's own `/rename` writes it."""
    sidecar = _sidecar(path)
    if not create and not sidecar.is_file():
        return
    temporary = sidecar.with_name(f"{_SIDECAR}.tmp.{uuid.uuid4().hex}")
    try:
        if create:
            sidecar.parent.mkdir(mode=0o700, exist_ok=True)
        with open_private(temporary, append=False) as out:
            out.write(json.dumps({"customTitle": title}, ensure_ascii=False))
        temporary.replace(sidecar)
    except (OSError, UnsafeFile) as exc:
        log.warning("could not rewrite the title sidecar of a transcript: %s", exc)
        with contextlib.suppress(OSError):
            temporary.unlink()


def _claude_ids(session_id: str, env: Mapping[str, str]) -> list[str]:
    """The ACP session's own Claude session, then each one it went on in."""
    link = session_links.read(session_id, env)
    later = (*link.earlier, link.claude_id) if link is not None else ()
    return list(dict.fromkeys([session_id, *later]))


# How a title changes: (the copy's current title, its Claude id) -> the title to store, or None
# when the copy is in that state already.
TitleChange = Callable[[str | None, str], str | None]


def retitle(
    session_id: str, env: Mapping[str, str], change: TitleChange, *, sidecar: bool = False
) -> bool:
    """Give every transcript of the session the title `change` makes of its current one (the
    two records, and its sidecar when it has one, or always with `sidecar`); whether the
    session has any transcript. A session created but never prompted has none yet: its
    marker keeps the title until its transcript is written (`write_pending_title`,
    docs/decisions.md#unwritten-titles), and it counts as found."""
    found = False
    claude_ids = _claude_ids(session_id, env)
    if not any(copies(claude_id, env) for claude_id in claude_ids):
        marked, current = session_store.pending_title(session_id, env)
        if not marked:
            return False
        title = change(current, session_id)
        return title is None or session_store.keep_title(session_id, env, title)
    for claude_id in claude_ids:
        found_copies = copies(claude_id, env)
        # Read before any copy gets a title: the SDK then titles the session by another copy.
        generated = _sdk_title(claude_id) if found_copies else None
        for path in found_copies:
            found = True
            current, _ = archived_name(path, claude_id, generated)
            title = change(current, claude_id)
            if title is None:
                continue  # in that state already
            _ensure_records(path, title_records(claude_id, title))
            _rewrite_sidecar(path, title, create=sidecar)
    return found


def write_pending_title(session_id: str, env: Mapping[str, str]) -> bool:
    """A session that had no transcript when it was titled (archived, renamed): once Claude
    Code has written its transcript, the kept title goes into it as the two records. Whether
    the session has its transcript now (nothing is left to do)."""
    if not copies(session_id, env):
        return False
    _, kept = session_store.pending_title(session_id, env)
    if kept is None:
        return True
    retitle(session_id, env, lambda current, claude_id: None if current == kept else kept)
    session_store.keep_title(session_id, env, None)
    return True


def archive(session_id: str, env: Mapping[str, str], archived: bool = True) -> bool:
    """Archive (or unarchive) every transcript of the session (idempotent); whether it has
    any."""
    return retitle(
        session_id, env, lambda current, claude_id: archive_to(archived, current, claude_id)
    )
