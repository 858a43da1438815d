"""The rows of JetBrains AIR's session index, read from Claude Code's transcripts
(`fsm.air.session_index` decides what a row holds; this module reads the files).

Theory of operation: a session's rows come from its transcripts `<config>/projects/<folder>/
<id>.jsonl`; a scope is a set of project folders: the cwd's (as given and resolved) and, with
worktrees, the same subfolder of every checkout of its git repository, found by reading
`<common git dir>/worktrees/*/gitdir` without running git. One row per session: its newest
copy in the scope. The title is what AIR's own Claude provider reads
(`adapter.claude.session_archive.archived_name`), falling back on the title the SDK's listing
gives. A session whose context was cleared is shown once, under its ACP id, as its current
Claude session. Blocking file I/O: callers run it in a worker thread.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from adapter.claude import session_archive, session_links, session_store
from adapter.claude.settings_files import config_home
from adapter.wire.private_files import open_regular
from fsm import BackgroundTasks, IndexRow, background_tasks_of, scan_transcript

__all__ = [
    "Stamp",
    "checkouts",
    "row_of",
    "rows_by_id",
    "rows_in",
    "scope_folders",
    "stamps",
    "with_all_tasks",
]

# Where `.git` is looked for above a cwd, at most (a deep tree without one is no repository).
_MAX_PARENTS = 64
# A transcript's head and tail as the index reads them.
_WINDOW = 64 * 1024

Stamp = tuple[int, int]  # (mtime in ns, size): whether a transcript changed since


def _git_entry(cwd: Path) -> tuple[Path, Path] | None:
    """(the checkout's top folder, its `.git` entry) of the repository holding `cwd`."""
    here = cwd
    for _ in range(_MAX_PARENTS):
        entry = here / ".git"
        if entry.exists():
            return here, entry
        if here.parent == here:
            return None
        here = here.parent
    return None


def _read_small(path: Path) -> str | None:
    try:
        with open_regular(path) as file:
            return file.read(4096).decode("utf-8", errors="replace").strip()
    except OSError:
        return None


def _linked_gitdir(entry: Path) -> Path | None:
    """A linked worktree's own git folder (`<common>/worktrees/<name>`), from its `.git` file."""
    text = _read_small(entry) if entry.is_file() else None
    if text is None or not text.startswith("gitdir:"):
        return None
    gitdir = Path(text.removeprefix("gitdir:").strip())
    return gitdir if gitdir.is_absolute() else (entry.parent / gitdir).resolve()


def in_linked_worktree(cwd: str) -> bool:
    found = _git_entry(Path(cwd))
    return found is not None and _linked_gitdir(found[1]) is not None


def checkouts(cwd: str) -> list[str]:
    """`cwd` and the same subfolder of every other checkout of its repository (the main one
    and each linked worktree whose folder still exists); just `cwd` outside a repository."""
    found = _git_entry(Path(cwd))
    if found is None:
        return [cwd]
    top, entry = found
    linked = _linked_gitdir(entry)
    if linked is not None:
        common_text = _read_small(linked / "commondir")
        common = (linked / common_text).resolve() if common_text else linked.parent.parent
    else:
        common = entry
    tops: list[Path] = []
    if common.name == ".git":
        tops.append(common.parent)
    try:
        worktrees = sorted((common / "worktrees").iterdir())
    except OSError:
        worktrees = []
    for folder in worktrees:
        pointer = _read_small(folder / "gitdir")
        if pointer:
            tops.append(Path(pointer).parent)
    relative = Path(cwd).relative_to(top) if Path(cwd).is_relative_to(top) else Path()
    paths = [cwd]
    for checkout in tops:
        candidate = checkout / relative
        if candidate.is_dir():
            paths.append(str(candidate))
    return list(dict.fromkeys(paths))


def scope_folders(cwd: str | None, include_worktrees: bool, env: Mapping[str, str]) -> list[Path]:
    """The project folders of a scope; every project folder when `cwd` is None."""
    from adapter.claude.sdk_compat import sanitize_path

    projects = config_home(env) / "projects"
    if cwd is None:
        try:
            return sorted(p for p in projects.iterdir() if p.is_dir())
        except OSError:
            return []
    paths = checkouts(cwd) if include_worktrees else [cwd]
    both = [p for path in paths for p in (path, os.path.realpath(path))]
    names = dict.fromkeys(sanitize_path(p) for p in both)
    return [projects / name for name in names]


def stamps(folders: Iterable[Path]) -> dict[str, tuple[Path, Stamp]]:
    """Claude id -> its newest regular transcript in `folders` and that file's stamp."""
    found: dict[str, tuple[Path, Stamp]] = {}
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith(".jsonl"):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not entry.is_file(follow_symlinks=False) or info.st_size == 0:
                continue
            claude_id = entry.name[: -len(".jsonl")]
            stamp = (info.st_mtime_ns, info.st_size)
            if claude_id not in found or stamp[0] > found[claude_id][1][0]:
                found[claude_id] = (Path(entry.path), stamp)
    return found


def _head_tail(path: Path) -> tuple[str, str, int, bool]:
    with open_regular(path) as file:
        info = os.fstat(file.fileno())
        head = file.read(_WINDOW).decode("utf-8", errors="replace")
        if info.st_size <= _WINDOW:
            tail = head
        else:
            file.seek(info.st_size - _WINDOW)
            raw = file.read(_WINDOW).decode("utf-8", errors="replace")
            newline = raw.find("\n")
            tail = raw[newline + 1 :] if newline >= 0 else ""
    return head, tail, info.st_mtime_ns // 1_000_000, info.st_size <= _WINDOW


def row_of(
    session_id: str, claude_id: str, path: Path, generated: str | None, cwd: str | None
) -> IndexRow | None:
    """The row of `session_id` from its transcript `path` (of Claude session `claude_id`);
    None when the file cannot be read."""
    try:
        head, tail, mtime_ms, whole = _head_tail(path)
        title, archived = session_archive.archived_name(path, claude_id, generated)
    except OSError:
        return None
    facts = scan_transcript(head, tail, whole=whole)
    row_cwd = facts.cwd or cwd or ""
    return IndexRow(
        session_id=session_id,
        cwd=row_cwd,
        title=title or None,
        archived=archived,
        mtime_ms=mtime_ms,
        facts=facts,
        agent_worktree=facts.worktree_session and bool(row_cwd) and in_linked_worktree(row_cwd),
        transcript=str(path),
    )


# The tasks of whole transcripts already read, by (path, mtime in ns, size); the oldest go.
_SEARCHED: dict[tuple[str, int, int], BackgroundTasks] = {}
_SEARCHED_MAX = 64
# How much of a transcript is scanned at a time (line by line, never the whole file at once).
_SEARCH_CHUNK = 1024 * 1024


def with_all_tasks(row: IndexRow) -> IndexRow:
    """`row` with the background tasks of its whole transcript (`fsm.needs_task_search` says
    when), read once per version of the file; the row as it was when it cannot be read."""
    try:
        with open_regular(Path(row.transcript)) as file:
            info = os.fstat(file.fileno())
            key = (row.transcript, info.st_mtime_ns, info.st_size)
            tasks = _SEARCHED.get(key)
            if tasks is None:
                tasks = BackgroundTasks()
                lines: list[bytes] = []
                size = 0
                for line in file:
                    lines.append(line)
                    size += len(line)
                    if size >= _SEARCH_CHUNK:
                        text = b"".join(lines).decode("utf-8", errors="replace")
                        tasks = background_tasks_of(text, complete=False, after=tasks)
                        lines, size = [], 0
                text = b"".join(lines).decode("utf-8", errors="replace")
                tasks = background_tasks_of(text, complete=True, after=tasks)
                if len(_SEARCHED) >= _SEARCHED_MAX:
                    del _SEARCHED[next(iter(_SEARCHED))]
                _SEARCHED[key] = tasks
    except (OSError, ValueError):
        return row
    return replace(row, facts=replace(row.facts, background_tasks=tasks))


def _generated_titles(cwd: str | None, include_worktrees: bool) -> dict[str, str]:
    """The SDK's title of each session of the scope (custom title, summary, first prompt)."""
    from claude_agent_sdk import list_sessions

    from adapter.claude.sdk_compat import list_regular_transcripts_only

    list_regular_transcripts_only()
    found = list_sessions(directory=cwd, include_worktrees=include_worktrees)
    return {info.session_id: info.summary for info in found if info.summary}


def _generated_title(claude_id: str) -> str | None:
    from claude_agent_sdk import get_session_info

    from adapter.claude.sdk_compat import list_regular_transcripts_only

    list_regular_transcripts_only()
    info = get_session_info(claude_id)
    return info.summary if info is not None else None


def rows_in(
    cwd: str | None,
    include_worktrees: bool,
    env: Mapping[str, str],
    only: Iterable[str] | None = None,
) -> dict[str, IndexRow]:
    """ACP session id -> its row, for every session of the scope (or those of `only` in it)
    that has one to show."""
    shown_as, left = session_store.relinked(env)
    files = stamps(scope_folders(cwd, include_worktrees, env))
    wanted = None if only is None else set(only)
    generated: dict[str, str] | None = None
    rows: dict[str, IndexRow] = {}
    for claude_id, (path, _) in files.items():
        if claude_id in left:
            continue
        session_id = shown_as.get(claude_id, claude_id)
        if wanted is not None and session_id not in wanted:
            continue
        if wanted is None:
            if generated is None:
                generated = _generated_titles(cwd, include_worktrees)
            title = generated.get(claude_id)
        else:
            title = _generated_title(claude_id)
        row = row_of(session_id, claude_id, path, title, cwd)
        if row is not None and row.listed:
            rows[session_id] = row
    return rows


def rows_by_id(session_ids: Iterable[str], env: Mapping[str, str]) -> dict[str, IndexRow]:
    """The rows of these sessions in any project, whatever their archive state; an unknown id
    (or one that is no UUID) has none."""
    link_of = {link.acp_id: link.claude_id for link in session_links.links(env)}
    rows: dict[str, IndexRow] = {}
    for session_id in session_ids:
        claude_id = link_of.get(session_id, session_id)
        newest: tuple[Path, int] | None = None
        for path in session_archive.copies(claude_id, env):
            try:
                mtime = path.stat().st_mtime_ns
            except OSError:
                continue
            if newest is None or mtime > newest[1]:
                newest = (path, mtime)
        if newest is None:
            continue
        row = row_of(session_id, claude_id, newest[0], _generated_title(claude_id), None)
        if row is not None and row.listed:
            rows[session_id] = row
    return rows
