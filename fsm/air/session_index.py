"""JetBrains AIR's session index: what a client that negotiated `sessionIndex` may ask, and
what each answer holds (docs/decisions.md#session-index).

Theory of operation: the index is a view of Claude Code's transcripts, so it has no lifecycle
of its own; its rows are computed from what the shell reads (a transcript's head and tail, its
title records, its file time) and from what this connection knows of the sessions it runs
(`OwnActivity`, kept by each session's core). This module decides everything in between:

- `INDEX_METHODS`, the table of the six extension methods: each row names its guard (the AIR
  capability it needs; a client without it gets -32601, as if the method did not exist) and
  its parameter reader. `route_index_request` applies both; a reader raises `BadIndexRequest`
  (-32602).
- `index_list_options`, `encode_cursor`/`decode_cursor`, `index_page`: `session/list` for such
  a client (limit, archive filter, worktrees, an opaque cursor bound to its scope, newest
  first).
- `scan_transcript`: the facts of a transcript's head and tail (last message, last prompt,
  model, fork source, how its last turn ended); `row_state`: the row's `state`.
- `index_session_info`: the row as the client sees it, and `change_signature`, what a change of it
  is compared by (`updatedAt` alone is no change).
- `ListSubscriptions`: the subscriptions of one connection and what each was sent last;
  `deliver` turns the sessions that may have changed into one `_session/list/changes`.

Timestamps are whole milliseconds since the epoch; `iso_ms`/`parse_iso_ms` convert without a
clock. The shell passes `now_ms` where a rule needs the time.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fsm.air.archive_titles import is_archived, stored_title, visible_title
from fsm.air.async_tasks import task_notices
from fsm.air.client import INDEX_CAPABILITIES, AirClient
from fsm.air.meta import with_air_meta
from fsm.claude.transcript_entries import listed_title

__all__ = [
    "ARCHIVE_METHOD",
    "BATCH_GET_METHOD",
    "INDEX_CAPABILITIES",
    "INDEX_METHODS",
    "LIST_CHANGES_METHOD",
    "RENAME_METHOD",
    "SUBSCRIBE_METHOD",
    "UNARCHIVE_METHOD",
    "UNSUBSCRIBE_METHOD",
    "ArchiveRequest",
    "BackgroundTasks",
    "BadIndexRequest",
    "BatchGetRequest",
    "IndexMethodNotFound",
    "IndexRow",
    "ListOptions",
    "ListSubscriptions",
    "LiveRecord",
    "OwnActivity",
    "RenameRequest",
    "SubscribeRequest",
    "TooManySubscriptions",
    "TranscriptFacts",
    "UnsubscribeRequest",
    "background_tasks_of",
    "change_signature",
    "decode_cursor",
    "encode_cursor",
    "index_list_options",
    "index_page",
    "index_session_info",
    "iso_ms",
    "live_sessions",
    "needs_task_search",
    "parse_iso_ms",
    "registry_candidates",
    "rename_to",
    "route_index_request",
    "row_state",
    "sanitize_title",
    "scan_transcript",
]

BATCH_GET_METHOD = "_session/batch_get"
RENAME_METHOD = "_session/rename"
ARCHIVE_METHOD = "_session/archive"
UNARCHIVE_METHOD = "_session/unarchive"
SUBSCRIBE_METHOD = "_session/list/subscribe"
UNSUBSCRIBE_METHOD = "_session/list/unsubscribe"
LIST_CHANGES_METHOD = "_session/list/changes"

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_SUBSCRIPTIONS = 128
ARCHIVED_FILTERS = ("unarchived", "archived", "all")
# A title as a list shows it: collapsed to one line and cut, with an ellipsis, at this length.
MAX_TITLE_LENGTH = 256
_CURSOR_VERSION = 5
# An unfinished turn written this recently is taken to be running still.
_RECENT_UNFINISHED_MS = 10 * 60 * 1000


class BadIndexRequest(Exception):
    """Malformed parameters (-32602): `data` says which."""

    def __init__(self, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.data = data


class TooManySubscriptions(BadIndexRequest):
    def __init__(self) -> None:
        super().__init__(
            f"At most {MAX_SUBSCRIPTIONS} session list subscriptions per connection",
            {"reason": "too_many_subscriptions", "max": MAX_SUBSCRIPTIONS},
        )


class IndexMethodNotFound(Exception):
    """The client did not negotiate what the method needs (-32601)."""


# --- the requests ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BatchGetRequest:
    session_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ArchiveRequest:
    """`_session/archive`, `_session/unarchive`."""

    session_id: str


@dataclass(frozen=True, slots=True)
class RenameRequest:
    session_id: str
    title: str  # sanitized, never blank


@dataclass(frozen=True, slots=True)
class SubscribeRequest:
    cwd: str


@dataclass(frozen=True, slots=True)
class UnsubscribeRequest:
    subscription_id: str


IndexRequest = (
    BatchGetRequest | ArchiveRequest | RenameRequest | SubscribeRequest | UnsubscribeRequest
)


def _record(params: object) -> dict[str, Any]:
    return params if isinstance(params, dict) else {}


def _is_absolute(path: object) -> bool:
    # POSIX and Windows absolute forms, as Node's `path.isAbsolute` of the platform would.
    if not isinstance(path, str) or not path:
        return False
    return path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path) is not None


def sanitize_title(text: str) -> str:
    """A title as the list shows it: white space collapsed to one line, cut at 256 characters
    with an ellipsis."""
    collapsed = re.sub(r"\s+", " ", text[: MAX_TITLE_LENGTH * 16]).strip()
    if len(collapsed) <= MAX_TITLE_LENGTH:
        return collapsed
    return collapsed[: MAX_TITLE_LENGTH - 1] + "\u2026"


def _batch_get(params: object) -> BatchGetRequest:
    record = _record(params)
    ids = record.get("sessionIds")
    if (
        len(record) != 1
        or not isinstance(ids, list)
        or any(not isinstance(i, str) or not i.strip() for i in ids)
        or len(set(ids)) != len(ids)
    ):
        raise BadIndexRequest("params require only sessionIds: distinct, non-blank strings")
    return BatchGetRequest(tuple(ids))


def _session_ref(params: object) -> ArchiveRequest:
    session_id = _record(params).get("sessionId")
    if not isinstance(session_id, str) or not session_id.strip():
        raise BadIndexRequest("params require a non-empty sessionId")
    return ArchiveRequest(session_id.strip())


def _rename(params: object) -> RenameRequest:
    ref = _session_ref(params)
    raw = _record(params).get("title")
    title = sanitize_title(raw) if isinstance(raw, str) else ""
    if not title:
        raise BadIndexRequest("title must be a non-empty string")
    return RenameRequest(ref.session_id, title)


def _subscribe(params: object) -> SubscribeRequest:
    cwd = _record(params).get("cwd")
    if not _is_absolute(cwd):
        raise BadIndexRequest("params require an absolute cwd", {"cwd": cwd})
    assert isinstance(cwd, str)
    return SubscribeRequest(cwd)


def _unsubscribe(params: object) -> UnsubscribeRequest:
    subscription_id = _record(params).get("subscriptionId")
    if not isinstance(subscription_id, str):
        raise BadIndexRequest("params require a subscriptionId")
    return UnsubscribeRequest(subscription_id)


@dataclass(frozen=True, slots=True)
class IndexMethod:
    """One row of the table: whether this client may call it, and how its params are read."""

    guard: Callable[[AirClient], bool]
    read: Callable[[object], IndexRequest]


def _negotiated(client: AirClient) -> bool:
    return client.session_index


INDEX_METHODS: Mapping[str, IndexMethod] = {
    BATCH_GET_METHOD: IndexMethod(_negotiated, _batch_get),
    RENAME_METHOD: IndexMethod(_negotiated, _rename),
    ARCHIVE_METHOD: IndexMethod(_negotiated, _session_ref),
    UNARCHIVE_METHOD: IndexMethod(_negotiated, _session_ref),
    SUBSCRIBE_METHOD: IndexMethod(_negotiated, _subscribe),
    UNSUBSCRIBE_METHOD: IndexMethod(_negotiated, _unsubscribe),
}


def route_index_request(client: AirClient, method: str, params: object) -> IndexRequest:
    """The request `method` makes for this client: `IndexMethodNotFound` when its guard refuses
    (checked before the params), `BadIndexRequest` when its params are malformed."""
    row = INDEX_METHODS[method]
    if not row.guard(client):
        raise IndexMethodNotFound(method)
    return row.read(params)


def rename_to(title: str, current: str | None, session_id: str) -> str:
    """The stored title a rename to `title` writes over a copy named `current`: a rename keeps
    the archive state."""
    return stored_title(title, is_archived(current), session_id)


# --- session/list ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ListOptions:
    cwd: str | None  # None: every project
    limit: int = DEFAULT_LIMIT
    archived: str = "unarchived"
    include_worktrees: bool = False

    def shows(self, archived: bool) -> bool:
        if self.archived == "all":
            return True
        return archived == (self.archived == "archived")


def index_list_options(cwd: object, meta: object) -> ListOptions:
    """`session/list`'s scope from its `cwd` and `_meta.jetbrains.air.list`."""
    if cwd is not None and not _is_absolute(cwd):
        raise BadIndexRequest("cwd must be an absolute path", {"cwd": cwd})
    jetbrains = _record(meta).get("jetbrains")
    air = _record(jetbrains).get("air")
    options = _record(_record(air).get("list"))
    limit = options.get("limit")
    limit = DEFAULT_LIMIT if limit is None else limit
    if isinstance(limit, float) and limit.is_integer():
        limit = int(limit)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise BadIndexRequest(
            "`_meta.jetbrains.air.list.limit` must be an integer of at least 1", {"limit": limit}
        )
    archived = options.get("archived")
    archived = "unarchived" if archived is None else archived
    if archived not in ARCHIVED_FILTERS:
        raise BadIndexRequest(
            '`_meta.jetbrains.air.list.archived` must be "unarchived", "archived" or "all"',
            {"archived": archived},
        )
    worktrees = options.get("includeWorktrees")
    worktrees = False if worktrees is None else worktrees
    if not isinstance(worktrees, bool):
        raise BadIndexRequest(
            "`_meta.jetbrains.air.list.includeWorktrees` must be a boolean",
            {"includeWorktrees": worktrees},
        )
    assert cwd is None or isinstance(cwd, str)
    return ListOptions(cwd, min(limit, MAX_LIMIT), str(archived), worktrees)


def _scope(options: ListOptions) -> dict[str, Any]:
    return {
        "cwd": options.cwd,
        "archived": options.archived,
        "worktrees": options.include_worktrees,
    }


def encode_cursor(order_ms: int, session_id: str, options: ListOptions) -> str:
    payload = {"v": _CURSOR_VERSION, "u": order_ms, "id": session_id, **_scope(options)}
    raw = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str, options: ListOptions) -> tuple[int, str]:
    """(order, session id) a cursor of this scope names; -32602 for any other cursor."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError):
        payload = None
    if (
        not isinstance(payload, dict)
        or payload.get("v") != _CURSOR_VERSION
        or isinstance(payload.get("u"), bool)
        or not isinstance(payload.get("u"), int)
        or not isinstance(payload.get("id"), str)
    ):
        shown = cursor if len(cursor) <= 200 else cursor[:200] + "\u2026"
        raise BadIndexRequest(f"Unknown session/list cursor: {shown}")
    if any(payload.get(key) != value for key, value in _scope(options).items()):
        raise BadIndexRequest("The session/list cursor belongs to another cwd or filter")
    return int(payload["u"]), str(payload["id"])


# --- a transcript's facts -------------------------------------------------------------------

_INTERRUPT_PREFIX = "[Request interrupted by user"
_TURN_END_SUBTYPES = frozenset({"stop_hook_summary", "turn_duration"})
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>")
_SKIPPED_TEXT = re.compile(r"^(?:\s*<[a-z][\w-]*[\s>]|\[Request interrupted by user[^\]]*\])")
_FORKED_FROM = re.compile(
    r'"forkedFrom":\s?\{"sessionId":\s?"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
    r'[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"'
)
_MESSAGE_MARKERS = ('"type":"user"', '"type":"assistant"', '"type": "user"', '"type": "assistant"')


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTasks:
    """The background tasks of a session that did not end yet, from its transcript
    (docs/reference-adapter.md#background-tasks): `complete` when every record was read (the
    whole file, or all records after a complete earlier set)."""

    open: tuple[str, ...] = ()
    stop_calls: tuple[str, ...] = ()
    complete: bool = False


# Text a line must hold to bear on a task, so that the other lines are not parsed.
_TASK_MARKERS = ("backgroundTaskId", '"isAsync"', "<task-notification>", "TaskStop", "task_id")


def _ended_task(text: object) -> str | None:
    """The task a `<task-notification>` input ends: only an input that starts with the tag,
    as AIR's `TaskNotification` reads it, and its first notification with a `<status>` (one
    without comes while the task runs), read by `task_notices`, the one parser of them."""
    if not isinstance(text, str) or not text.lstrip().startswith("<task-notification>"):
        return None
    notices = task_notices(text)
    return str(notices[0]["task_id"]) if notices else None


def background_tasks_of(
    text: str, *, complete: bool, after: BackgroundTasks | None = None
) -> BackgroundTasks:
    """The tasks of the lines of `text`, applied on the tasks `after`: a tool result opens a
    task (`toolUseResult.backgroundTaskId`, or `isAsync` with an `agentId`); its
    `<task-notification>` with a status (a user record, or a queue `remove`) or the result
    of a `TaskStop` call closes it; a sidechain record opens or closes none."""
    opened: dict[str, None] = dict.fromkeys(after.open if after else ())
    stop_calls: dict[str, None] = dict.fromkeys(after.stop_calls if after else ())
    for line in text.split("\n"):
        if not any(marker in line for marker in _TASK_MARKERS):
            continue
        record = _entry(line)
        if record is None or record.get("isSidechain") is True:
            continue
        kind = record.get("type")
        result = record.get("toolUseResult")
        result = result if isinstance(result, dict) else {}
        if kind == "user":
            started = result.get("backgroundTaskId") or (
                result.get("agentId") if result.get("isAsync") else None
            )
            if isinstance(started, str) and started:
                opened[started] = None
        delivered = None
        if kind == "user":
            delivered = _ended_task(_first_text(record))
        elif kind == "queue-operation" and record.get("operation") == "remove":
            delivered = _ended_task(record.get("content"))
        if delivered:
            opened.pop(delivered, None)
        content = _content(record)
        stop_result = False
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            call = block.get("id") if block.get("type") == "tool_use" else None
            if block.get("name") == "TaskStop" and isinstance(call, str) and call:
                stop_calls[call] = None
            used = block.get("tool_use_id")
            if isinstance(used, str) and used in stop_calls:
                stop_calls.pop(used)
                stop_result = True
        stopped = result.get("task_id")
        if stop_result and isinstance(stopped, str):
            opened.pop(stopped, None)
    return BackgroundTasks(open=tuple(opened), stop_calls=tuple(stop_calls), complete=complete)


@dataclass(frozen=True, slots=True, kw_only=True)
class TranscriptFacts:
    """What a transcript's head and tail tell the index; None where they do not."""

    has_messages: bool = False
    cwd: str | None = None
    forked_from: str | None = None
    last_message_at: str | None = None  # timestamps as written (ISO 8601)
    last_prompt_at: str | None = None
    model: str | None = None
    turn: str | None = None  # "finished" | "unfinished"
    last_turn_error: bool = False
    last_turn_ended_at: str | None = None
    worktree_session: bool = False  # its last `worktree-state` says Claude Code made the tree
    background_tasks: BackgroundTasks = BackgroundTasks()


def _entry(line: str) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _content(entry: dict[str, Any]) -> object:
    message = entry.get("message")
    return message.get("content") if isinstance(message, dict) else None


def _first_text(entry: dict[str, Any]) -> str | None:
    content = _content(entry)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                return text if isinstance(text, str) else None
    return None


def _is_user_prompt(entry: dict[str, Any]) -> bool:
    """A prompt the user sent: text that is no slash command, interrupt or tag, or an image or
    a document; a tool result, a meta or a compact summary record is none."""
    if entry.get("type") != "user" or entry.get("isMeta") is True:
        return False
    if entry.get("isCompactSummary") is True:
        return False
    content = _content(entry)
    texts: list[str] = []
    media = False
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_result":
                return False
            if kind in ("image", "document"):
                media = True
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
    for raw in texts:
        text = raw.replace("\n", " ").strip()
        if not text or _COMMAND_NAME.search(text):
            continue
        if "<bash-input>" in text or not _SKIPPED_TEXT.match(text):
            return True
    return media


def _turn_effect(entry: dict[str, Any]) -> str | None:
    kind = entry.get("type")
    if kind == "assistant":
        if entry.get("isApiErrorMessage") is True:
            return "finished"
        message = entry.get("message")
        stop = message.get("stop_reason") if isinstance(message, dict) else None
        return "finished" if stop == "end_turn" else "unfinished"
    if kind == "user":
        if entry.get("isMeta") is True:
            return None
        text = _first_text(entry)
        return (
            "finished"
            if text is not None and text.startswith(_INTERRUPT_PREFIX)
            else ("unfinished")
        )
    if kind == "system":
        return "finished" if entry.get("subtype") in _TURN_END_SUBTYPES else None
    return None


def _timestamp(entry: dict[str, Any]) -> str | None:
    stamp = entry.get("timestamp")
    return stamp if isinstance(stamp, str) else None


def scan_transcript(head: str, tail: str, *, whole: bool = False) -> TranscriptFacts:
    """The facts of a transcript from its first and last lines (the tail read backwards);
    `whole`: the tail is the whole file, so its background tasks are complete."""
    has_messages = any(m in head or m in tail for m in _MESSAGE_MARKERS)
    forked = _FORKED_FROM.search(head)
    cwd: str | None = None
    for line in head.split("\n"):
        if '"cwd"' in line:
            entry = _entry(line)
            if entry is not None and isinstance(entry.get("cwd"), str) and entry["cwd"]:
                cwd = entry["cwd"]
                break
    found: dict[str, Any] = {}
    checking_error = False
    worktree: bool | None = None
    for line in reversed(tail.split("\n")):
        if not line.strip():
            continue
        entry = _entry(line)
        if entry is None:
            continue
        if worktree is None and entry.get("type") == "worktree-state":
            session = entry.get("worktreeSession")
            worktree = isinstance(session, dict) and session.get("enteredExisting") is not True
        if entry.get("isSidechain") is True:
            continue
        kind = entry.get("type")
        if cwd is None and isinstance(entry.get("cwd"), str) and entry["cwd"]:
            cwd = entry["cwd"]
        if "message_at" not in found and kind in ("user", "assistant"):
            found["message_at"] = _timestamp(entry)
        if "prompt_at" not in found and _is_user_prompt(entry):
            found["prompt_at"] = _timestamp(entry)
        if "model" not in found and kind == "assistant":
            message = entry.get("message")
            model = message.get("model") if isinstance(message, dict) else None
            if isinstance(model, str) and model and model != "<synthetic>":
                found["model"] = model
        effect = _turn_effect(entry)
        if effect is None:
            continue
        if "turn" not in found:
            found["turn"] = effect
            checking_error = effect == "finished"
        if checking_error:
            # The record that ended the last turn, behind Claude Code's turn-end records.
            if kind == "assistant" and entry.get("isApiErrorMessage") is True:
                found["error"] = True
                checking_error = False
            elif kind != "system":
                checking_error = False
        if effect == "finished" and "ended_at" not in found:
            found["ended_at"] = _timestamp(entry)
    return TranscriptFacts(
        has_messages=has_messages,
        cwd=cwd,
        forked_from=forked.group(1) if forked else None,
        last_message_at=found.get("message_at"),
        last_prompt_at=found.get("prompt_at"),
        model=found.get("model"),
        turn=found.get("turn"),
        last_turn_error=bool(found.get("error")),
        last_turn_ended_at=found.get("ended_at"),
        worktree_session=bool(worktree),
        background_tasks=background_tasks_of(tail, complete=whole),
    )


def needs_task_search(facts: TranscriptFacts, live: LiveRecord | None) -> bool:
    """Whether the whole transcript must be read for its background tasks: a finished turn of
    a session a live process holds, whose tail did not hold them all (a task can start before
    the tail) (`withAllBackgroundTasks`: docs/reference-adapter.md#background-tasks)."""
    return facts.turn == "finished" and not facts.background_tasks.complete and live is not None


# --- a row ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class OwnActivity:
    """What this connection knows of a session it runs (the session's core keeps it)."""

    state: str  # "idle" | "running" | "requires_action"
    last_turn_failed: bool = False  # its last turn failed with an error, not a cancel
    cost_usd: float | None = None  # Claude Code's last `total_cost_usd`


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexRow:
    """One session as the index has it: `title` as stored (it may carry the archive prefix),
    `archived` by the session's name; `mtime_ms` the transcript's file time."""

    session_id: str
    cwd: str
    title: str | None
    archived: bool
    mtime_ms: int
    facts: TranscriptFacts
    agent_worktree: bool = False  # Claude Code made the worktree, and the cwd lies in one now
    transcript: str = ""  # the transcript's path, to read it whole when a task search needs it

    @property
    def updated_ms(self) -> int:
        written = parse_iso_ms(self.facts.last_message_at)
        return self.mtime_ms if written is None else min(written, self.mtime_ms)

    @property
    def order_ms(self) -> int:
        prompted = parse_iso_ms(self.facts.last_prompt_at)
        return self.updated_ms if prompted is None else min(prompted, self.updated_ms)

    @property
    def listed(self) -> bool:
        """A transcript without messages or without a title has no row."""
        return self.facts.has_messages and bool(self.shown_title)

    @property
    def shown_title(self) -> str:
        return sanitize_title(listed_title(visible_title(self.title))) if self.title else ""


@dataclass(frozen=True, slots=True, kw_only=True)
class LiveRecord:
    """A live Claude Code process's entry in its registry (`<config>/sessions/<pid>.json`)."""

    pid: int
    session_id: str
    kind: str | None = None  # "interactive", ...
    entrypoint: str | None = None  # "cli", "sdk-ts", "sdk-py", ...
    status: str | None = None  # "busy", "shell", "waiting", "idle"
    status_updated_ms: float | None = None
    proc_start: str | None = None  # the process's start time as `ps -o lstart=` says it
    last_seen_ms: float = 0.0  # its newest `updatedAt`, `statusUpdatedAt` or `startedAt`


_REGISTRY_FILE = re.compile(r"^(\d+)\.json$")
# A registry entry older than this counts only when its process start time matches.
_STALE_RECORD_MS = 24 * 60 * 60 * 1000
_REGISTRY_STATES = {"busy": "running", "shell": "running", "waiting": "requires_action"}


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _string(raw: Mapping[str, object], key: str) -> str | None:
    value = raw.get(key)
    return value if isinstance(value, str) else None


def registry_candidates(files: Mapping[str, object], domain: str) -> list[LiveRecord]:
    """The registry entries that may be live, from its files (name -> decoded JSON; None for
    one unreadable): only `<pid>.json` holding that `pid` and a `sessionId`, of this pid domain
    (another machine's or pid namespace's is skipped). Whether each process lives is the
    caller's to find out (`live_sessions`)."""
    found: list[LiveRecord] = []
    for name, raw in files.items():
        match = _REGISTRY_FILE.match(name)
        if match is None or not isinstance(raw, Mapping):
            continue
        pid = int(match.group(1))
        if raw.get("pid") != pid or isinstance(raw.get("pid"), bool):
            continue
        session_id = raw.get("sessionId")
        domain_of = raw.get("pidDomain")
        if not isinstance(session_id, str) or (isinstance(domain_of, str) and domain_of != domain):
            continue
        seen = [_finite(raw.get(key)) for key in ("updatedAt", "statusUpdatedAt", "startedAt")]
        start = _string(raw, "procStart")
        found.append(
            LiveRecord(
                pid=pid,
                session_id=session_id,
                kind=_string(raw, "kind"),
                entrypoint=_string(raw, "entrypoint"),
                status=_string(raw, "status"),
                status_updated_ms=_finite(raw.get("statusUpdatedAt")),
                proc_start=" ".join(start.split()) if start is not None else None,
                last_seen_ms=max([v for v in seen if v is not None], default=0.0),
            )
        )
    return found


def live_sessions(
    candidates: Iterable[LiveRecord], alive: set[int], starts: Mapping[int, str], now_ms: float
) -> dict[str, LiveRecord]:
    """The live registry entry of each session (docs/reference-adapter.md#live-registry): its
    process is `alive`; a recorded start time must match the live process's (`starts`, as
    `ps -o lstart=` says it), so a reused pid does not count; an entry older than a day counts
    only with that match. Several processes of one session: the newest status."""
    by_session: dict[str, LiveRecord] = {}
    for record in candidates:
        if record.pid not in alive:
            continue
        actual = starts.get(record.pid)
        actual = " ".join(actual.split()) if actual is not None else None
        if record.proc_start is not None and actual is not None and record.proc_start != actual:
            continue
        matches = record.proc_start is not None and actual == record.proc_start
        if now_ms - record.last_seen_ms > _STALE_RECORD_MS and not matches:
            continue
        previous = by_session.get(record.session_id)
        if previous is None or (record.status_updated_ms or 0) > (previous.status_updated_ms or 0):
            by_session[record.session_id] = record
    return by_session


def row_state(
    row: IndexRow, own: OwnActivity | None, now_ms: int, live: LiveRecord | None = None
) -> str | None:
    """`idle`, `running`, `requires_action` or `error`; None when unknown
    (`deriveActivity`: docs/reference-adapter.md#session-activity). A session run here says what
    its core knows. Any other: with no live Claude Code process (`live`, from its registry) it is
    idle, or `error` after an API error; an interactive Claude Code not driven by an SDK, whose
    registry status is newer than the transcript, says its status; a turn that ended with a
    background task still open is running until the registry says idle; otherwise the
    transcript's tail tells (a finished turn is idle, an unfinished one written in the last 10
    minutes running)."""
    if own is not None:
        return "error" if own.state == "idle" and own.last_turn_failed else own.state
    facts = row.facts
    failed = facts.turn == "finished" and facts.last_turn_error
    if live is None:
        return "error" if failed else "idle"
    entrypoint = live.entrypoint or ""
    if (
        live.kind == "interactive"
        and not entrypoint.startswith("sdk-")
        and live.status_updated_ms is not None
        and live.status_updated_ms > row.mtime_ms
    ):
        state = _REGISTRY_STATES.get(live.status or "")
        if live.status == "idle":
            state = "error" if failed else "idle"
        return state
    if facts.turn == "finished" and facts.background_tasks.open and live.status != "idle":
        # Claude Code wakes the session again when an open task ends.
        return "running"
    if failed:
        return "error"
    if facts.turn == "finished":
        return "idle"
    if facts.turn == "unfinished" and now_ms - row.mtime_ms < _RECENT_UNFINISHED_MS:
        return "running"
    return None


def index_session_info(
    row: IndexRow, own: OwnActivity | None, now_ms: int, live: LiveRecord | None = None
) -> dict[str, Any]:
    """The `SessionInfo` of a row: the flat row fields under `_meta.jetbrains.air`, each left
    out when unknown, except `archived`."""
    cost = own.cost_usd if own is not None else None
    prompted = parse_iso_ms(row.facts.last_prompt_at)
    ended = parse_iso_ms(row.facts.last_turn_ended_at)
    fields: dict[str, Any] = {
        "archived": row.archived,
        "lastPromptAt": None if prompted is None else iso_ms(prompted),
        "model": row.facts.model,
        "forkedFrom": row.facts.forked_from,
        "agentWorktree": True if row.agent_worktree else None,
        "state": row_state(row, own, now_ms, live),
        "lastTurnEndedAt": None if ended is None else iso_ms(ended),
        "cost": {"amount": cost, "currency": "USD"} if cost is not None and cost > 0 else None,
    }
    meta: dict[str, Any] | None = None
    for key, value in fields.items():
        if value is not None:
            meta = with_air_meta(meta, key, value)
    return {
        "sessionId": row.session_id,
        "cwd": row.cwd,
        "title": row.shown_title,
        "updatedAt": iso_ms(row.updated_ms),
        "_meta": meta,
    }


def change_signature(info: Mapping[str, Any]) -> str:
    """What a change of a row is compared by: everything but `updatedAt`."""
    key = [info.get("sessionId"), info.get("cwd"), info.get("title"), info.get("_meta")]
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


def _order(row: IndexRow) -> tuple[int, str]:
    # Newest first; ties by session id ascending.
    return (-row.order_ms, row.session_id)


def index_page(
    rows: Iterable[IndexRow], options: ListOptions, cursor: str | None
) -> tuple[list[IndexRow], str | None]:
    """One index_page of the listed rows the filter shows, after `cursor`; and the next cursor when
    more rows follow."""
    shown = sorted((r for r in rows if r.listed and options.shows(r.archived)), key=_order)
    if cursor is not None:
        order_ms, session_id = decode_cursor(cursor, options)
        after = (-order_ms, session_id)
        shown = [r for r in shown if _order(r) > after]
    taken = shown[: options.limit]
    if len(shown) <= options.limit or not taken:
        return taken, None
    last = taken[-1]
    return taken, encode_cursor(last.order_ms, last.session_id, options)


# --- subscriptions --------------------------------------------------------------------------


@dataclass(slots=True)
class _Subscription:
    cwd: str
    # What this subscription last sent per session: the row's signature, or None for a
    # session it told removed whose transcript is still there (so it is not told again).
    sent: dict[str, str | None] = field(default_factory=dict)


class ListSubscriptions:
    """The `_session/list/subscribe` subscriptions of one connection. Subscribing reads no
    rows: the first change of a session after it is sent in full, later ones only when the
    row's signature differs from what this subscription sent last."""

    def __init__(self) -> None:
        self._subscriptions: dict[str, _Subscription] = {}

    def subscribe(self, subscription_id: str, cwd: str) -> None:
        if len(self._subscriptions) >= MAX_SUBSCRIPTIONS:
            raise TooManySubscriptions()
        self._subscriptions[subscription_id] = _Subscription(cwd)

    def unsubscribe(self, subscription_id: str) -> None:
        """An unknown id is no error."""
        self._subscriptions.pop(subscription_id, None)

    def __bool__(self) -> bool:
        return bool(self._subscriptions)

    def scopes(self) -> dict[str, str]:
        """Subscription id -> its cwd."""
        return {sid: sub.cwd for sid, sub in self._subscriptions.items()}

    def deliver(
        self,
        subscription_id: str,
        changed: Iterable[str],
        rows: Mapping[str, dict[str, Any]],
        stored: frozenset[str] | set[str],
    ) -> dict[str, Any] | None:
        """The `_session/list/changes` params for the sessions that may have changed: `rows`
        holds the current row of each session of the scope that has one, `stored` the ids
        that still have a transcript there. None when nothing differs."""
        subscription = self._subscriptions.get(subscription_id)
        if subscription is None:
            return None
        sessions: list[dict[str, Any]] = []
        removed: list[str] = []
        for session_id in dict.fromkeys(changed):
            current = rows.get(session_id)
            sent = subscription.sent.get(session_id, "")
            if current is None:
                if sent is None:
                    continue  # told removed already
                removed.append(session_id)
                if session_id in stored:
                    subscription.sent[session_id] = None
                else:
                    subscription.sent.pop(session_id, None)
                continue
            signature = change_signature(current)
            if sent == signature:
                continue
            subscription.sent[session_id] = signature
            sessions.append(current)
        if not sessions and not removed:
            return None
        return {"subscriptionId": subscription_id, "sessions": sessions, "removed": removed}


# --- time without a clock -------------------------------------------------------------------

_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$"
)


def _days_from_civil(year: int, month: int, day: int) -> int:
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719468
    era = (days if days >= 0 else days - 146096) // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2), month, day


def parse_iso_ms(text: str | None) -> int | None:
    """Milliseconds since the epoch of an ISO 8601 timestamp as Claude Code writes them."""
    match = _ISO.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    fraction = (match.group(7) or "0")[:3].ljust(3, "0")
    zone = match.group(8)
    offset = 0
    if zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        offset = sign * (int(zone[1:3]) * 60 + int(zone[4:6]))
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return (seconds - offset * 60) * 1000 + int(fraction)


def iso_ms(milliseconds: int) -> str:
    """`YYYY-MM-DDTHH:MM:SS.mmmZ`, as JavaScript's `toISOString`."""
    days, rest = divmod(milliseconds, 86_400_000)
    year, month, day = _civil_from_days(days)
    seconds, millis = divmod(rest, 1000)
    hour, seconds = divmod(seconds, 3600)
    minute, second = divmod(seconds, 60)
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"
