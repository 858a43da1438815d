"""JetBrains AIR's session index, for a client that negotiated `sessionIndex`
(docs/decisions.md#session-index): `session/list` with its `_meta.jetbrains.air.list` options
and row fields, `_session/batch_get`, `_session/rename`, `_session/archive`,
`_session/unarchive`, `_session/list/subscribe` and `_session/list/unsubscribe`, and the
`_session/list/changes` notifications.

Theory of operation: `fsm.air.session_index` decides (its method table's guard answers -32601 to a
client without the capability, its readers -32602 to bad params; it pages, shapes rows and
says what a subscription is to be told); `adapter.claude.index_rows` reads the rows from the
transcripts and `adapter.claude.session_archive` writes the title records. A session this
connection runs shows what its core knows (`SessionCore.activity`). A rename of a session whose
Claude runs goes through Claude Code's `rename_session` control request too, since Claude Code
keeps the title in memory and writes it back; an archive closes a session running here first
(as `session/close` does), so no Claude writes its transcript after the records.

Subscriptions look when something changed: at once after a change made here, when Claude Code
writes in one of their project folders (watched with inotify where there is one,
`adapter.claude.folder_watch`; at most once a second), and every 10 seconds all the same (every
second where folders cannot be watched). The transcripts of each subscription's scope (the cwd
and the same folder in every worktree) are stat'ed, and the
sessions whose file changed, appeared or went, or whose run here changed state, are read again;
`ListSubscriptions.deliver` then sends only what differs from what that subscription was sent.
Delivery is best effort: the client re-reads the list when it needs to be sure.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from acp import RequestError
from anyio.abc import TaskGroup

from adapter.wire.client_link import ClientLink
from fsm import (
    ARCHIVE_METHOD,
    INDEX_METHODS,
    LIST_CHANGES_METHOD,
    AirClient,
    ArchiveRequest,
    BadIndexRequest,
    BatchGetRequest,
    IndexMethodNotFound,
    IndexRow,
    ListSubscriptions,
    OwnActivity,
    RenameRequest,
    SubscribeRequest,
    UnsubscribeRequest,
    air_info_update,
    archive_to,
    index_list_options,
    index_page,
    index_session_info,
    needs_task_search,
    rename_to,
    route_index_request,
)

if TYPE_CHECKING:
    from pathlib import Path

    from adapter.claude.folder_watch import FolderWatch
    from adapter.claude.live_registry import LiveRegistry
    from adapter.session.session import Session

__all__ = ["IndexHost", "SessionIndexRequests"]

log = logging.getLogger(__name__)

LIST = "session/list"
# How often the subscriptions' scopes are looked at for changes made elsewhere, where their
# folders cannot be watched; and where they are watched, how often they are looked at anyway.
POLL_SECONDS = 1.0
RESCAN_SECONDS = 10.0

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


class IndexHost(Protocol):
    async def close_session(self, session_id: str, **kwargs: Any) -> Any: ...


def _not_found(session_id: str) -> RequestError:
    shown = session_id if len(session_id) <= 100 else f"{session_id[:100]}\u2026"
    return RequestError(-32002, f"Session not found: {shown}", {"sessionId": shown})


def _now_ms() -> int:
    return int(time.time() * 1000)


class SessionIndexRequests:
    """The session index of one connection."""

    def __init__(
        self,
        *,
        host: IndexHost,
        sessions: Mapping[str, Session],
        link: ClientLink,
        env: Mapping[str, str],
        task_group: TaskGroup,
    ) -> None:
        self._host = host
        self._sessions = sessions
        self._link = link
        self._env = env
        self._tg = task_group
        self._air = AirClient()
        self._subscriptions = ListSubscriptions()
        # Per subscription: the stamps of its scope's transcripts and the activity of the
        # sessions run here, as last looked at.
        self._seen: dict[str, tuple[dict[str, tuple[int, int]], dict[str, OwnActivity]]] = {}
        self._wake = anyio.Event()
        self._polling = False
        self._closed = False
        # The title change in flight per session: the next one waits for it, so each reads
        # the title the one before wrote (a rename keeps the archive state an archive set).
        self._mutating: dict[str, anyio.Lock] = {}
        self._registry: LiveRegistry | None = None  # Claude Code's live processes, when asked

    def negotiate(self, air: AirClient) -> None:
        self._air = air

    # --- routing ----------------------------------------------------------------------------

    def guard(self, handler: _Handler) -> _Handler:
        """A wrapper for the connection's request router: the index methods, and `session/list`
        for a client that negotiated the index."""

        async def routed(method: str, params: Any, is_notification: bool) -> Any:
            if is_notification:
                return await handler(method, params, is_notification)
            if method == LIST and self._air.session_index:
                return await self._answer(self.list, params)
            if method not in INDEX_METHODS:
                return await handler(method, params, is_notification)
            try:
                request = route_index_request(self._air, method, params)
            except IndexMethodNotFound:
                raise RequestError.method_not_found(method) from None
            except BadIndexRequest as bad:
                raise RequestError(-32602, str(bad), bad.data) from None
            return await self._answer(self._perform, request, method)

        return routed

    async def _answer(self, act: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        try:
            return await act(*args)
        except BadIndexRequest as bad:
            raise RequestError(-32602, str(bad), bad.data) from None

    async def _perform(self, request: Any, method: str) -> dict[str, Any]:
        if isinstance(request, BatchGetRequest):
            return await self.batch_get(request)
        if isinstance(request, RenameRequest):
            async with self._one_at_a_time(request.session_id):
                return await self.rename(request)
        if isinstance(request, ArchiveRequest):
            async with self._one_at_a_time(request.session_id):
                return await self.set_archived(request.session_id, method == ARCHIVE_METHOD)
        if isinstance(request, SubscribeRequest):
            return await self.subscribe(request)
        if isinstance(request, UnsubscribeRequest):
            self.unsubscribe(request)
            return {}
        raise AssertionError(f"no performer for {method}")  # pragma: no cover - table and here

    @contextlib.asynccontextmanager
    async def _one_at_a_time(self, session_id: str) -> AsyncIterator[None]:
        lock = self._mutating.setdefault(session_id, anyio.Lock())
        try:
            async with lock:
                yield
        finally:
            if not lock.locked() and lock.statistics().tasks_waiting == 0:
                self._mutating.pop(session_id, None)

    # --- rows ---------------------------------------------------------------------------------

    def _own(self, session_id: str) -> OwnActivity | None:
        session = self._sessions.get(session_id)
        if session is None:
            return None
        return session.core.activity(asking=session.controls.asking_user())

    async def _infos(self, rows: list[IndexRow]) -> list[dict[str, Any]]:
        """The rows as the client sees them: a session run here with what its core knows, any
        other with what Claude Code's registry of live processes says (`LiveRegistry`)."""
        if self._registry is None:
            from adapter.claude.live_registry import LiveRegistry

            self._registry = LiveRegistry(self._env)
        live = await anyio.to_thread.run_sync(self._registry.snapshot) if rows else {}
        searched: list[IndexRow] = []
        for row in rows:
            if needs_task_search(row.facts, live.get(row.session_id)):
                from adapter.claude import index_rows

                row = await anyio.to_thread.run_sync(index_rows.with_all_tasks, row)
            searched.append(row)
        rows = searched
        now = _now_ms()
        return [
            index_session_info(row, self._own(row.session_id), now, live.get(row.session_id))
            for row in rows
        ]

    async def list(self, params: Any) -> dict[str, Any]:
        from adapter.claude import index_rows

        params = params if isinstance(params, dict) else {}
        options = index_list_options(params.get("cwd"), params.get("_meta"))
        cursor = params.get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            raise BadIndexRequest("cursor must be a string", {"cursor": cursor})
        found = await anyio.to_thread.run_sync(
            index_rows.rows_in, options.cwd, options.include_worktrees, self._env
        )
        rows, next_cursor = index_page(found.values(), options, cursor)
        answer: dict[str, Any] = {"sessions": await self._infos(rows)}
        if next_cursor is not None:
            answer["nextCursor"] = next_cursor
        return answer

    async def batch_get(self, request: BatchGetRequest) -> dict[str, Any]:
        from adapter.claude import index_rows

        found = await anyio.to_thread.run_sync(
            index_rows.rows_by_id, request.session_ids, self._env
        )
        rows = [found[i] for i in request.session_ids if i in found]
        return {"sessions": await self._infos(rows)}

    # --- titles -------------------------------------------------------------------------------

    async def rename(self, request: RenameRequest) -> dict[str, Any]:
        from adapter.claude import index_rows, session_archive

        session_id = request.session_id
        session = self._sessions.get(session_id)
        rows = await anyio.to_thread.run_sync(index_rows.rows_by_id, [session_id], self._env)
        row = rows.get(session_id)
        if row is None and session is None:
            raise _not_found(session_id)
        stored = rename_to(request.title, row.title if row is not None else None, session_id)
        if session is not None:
            await self._rename_in_claude(session, stored)
        await anyio.to_thread.run_sync(
            lambda: session_archive.retitle(
                session_id,
                self._env,
                lambda current, claude_id: rename_to(request.title, current, claude_id),
                sidecar=True,
            )
        )
        if session is not None:
            session.view.title_given()
            shown = {"sessionUpdate": "session_info_update", "title": request.title}
            await self._link.send_raw_update(session_id, shown)
        self.changed()
        return {}

    async def _rename_in_claude(self, session: Session, title: str) -> None:
        """Give a running Claude the session's new stored title: Claude Code keeps the title in
        memory and would write its own back over the records; -32600 when it refuses."""
        runtime = session.claude.runtime
        if runtime is None:
            return  # no Claude runs: the records are the whole title
        try:
            await runtime.rename(title, session.claude.claude_session_id)
        except Exception as exc:  # its refusal, or it went away meanwhile: nothing is written
            log.warning(
                "session %s: Claude did not take the new title: %s", session.session_id, exc
            )
            raise RequestError(
                -32600,
                "The Claude Code CLI of this session cannot change its title while it runs.",
                {"sessionId": session.session_id},
            ) from exc

    async def set_archived(self, session_id: str, archived: bool) -> dict[str, Any]:
        """`_session/archive` (a session running here is closed first) or `_session/unarchive`;
        both idempotent, neither loads anything."""
        from adapter.claude import session_archive

        loaded = session_id in self._sessions
        if loaded and archived:
            await self._host.close_session(session_id)
        found = await anyio.to_thread.run_sync(
            lambda: session_archive.retitle(
                session_id,
                self._env,
                lambda current, claude_id: archive_to(archived, current, claude_id),
            )
        )
        if not found and not loaded:
            raise _not_found(session_id)
        if loaded:
            await self._link.send_raw_update(session_id, air_info_update("archived", archived))
        self.changed()
        return {}

    # --- subscriptions --------------------------------------------------------------------------

    async def subscribe(self, request: SubscribeRequest) -> dict[str, Any]:
        if self._closed:
            raise RequestError.internal_error({"reason": "the connection is closed"})
        subscription_id = str(uuid.uuid4())
        self._subscriptions.subscribe(subscription_id, request.cwd)
        self._seen[subscription_id] = (await self._stamps(request.cwd), self._activities())
        if not self._polling:
            self._polling = True
            self._tg.start_soon(self._poll)
        return {"subscriptionId": subscription_id}

    def unsubscribe(self, request: UnsubscribeRequest) -> None:
        self._subscriptions.unsubscribe(request.subscription_id)
        self._seen.pop(request.subscription_id, None)

    def changed(self) -> None:
        """Something changed here (a rename, an archive, a delete, a turn): look now."""
        self._wake.set()

    def close(self) -> None:
        self._closed = True
        self._wake.set()

    async def _stamps(self, cwd: str) -> dict[str, tuple[int, int]]:
        from adapter.claude import index_rows, session_store

        def read() -> dict[str, tuple[int, int]]:
            shown_as, _ = session_store.relinked(self._env)
            found = index_rows.stamps(index_rows.scope_folders(cwd, True, self._env))
            return {shown_as.get(cid, cid): stamp for cid, (_, stamp) in found.items()}

        return await anyio.to_thread.run_sync(read)

    def _activities(self) -> dict[str, OwnActivity]:
        return {sid: own for sid in list(self._sessions) if (own := self._own(sid)) is not None}

    async def _poll(self) -> None:
        """Look at the subscriptions' scopes when a change is made here or a session run here
        changed state (checked every second, in memory), when Claude Code writes in a watched
        project folder (`FolderWatch`, at most once a second), and every 10 seconds all the
        same; where folders cannot be watched, every second."""
        from adapter.claude.folder_watch import FolderWatch

        watch = FolderWatch.open()
        watching = False
        async with anyio.create_task_group() as tg:
            if watch is not None:
                tg.start_soon(self._watched, watch)
            try:
                last_look = anyio.current_time()
                while not self._closed:
                    woke = False
                    with anyio.move_on_after(POLL_SECONDS):
                        await self._wake.wait()
                        woke = True
                    self._wake = anyio.Event()
                    if self._closed:
                        return
                    now = anyio.current_time()
                    due = not watching or woke or now - last_look >= RESCAN_SECONDS
                    if not due and not self._activity_moved():
                        continue  # nothing written, nothing of ours changed: no disk read
                    last_look = now
                    for subscription_id, cwd in self._subscriptions.scopes().items():
                        try:
                            await self._look(subscription_id, cwd)
                        except Exception:  # best effort: the next look tries again
                            log.warning(
                                "the session list subscription could not look", exc_info=True
                            )
                    if watch is not None:
                        watching = await self._watch_scopes(watch)
            finally:
                tg.cancel_scope.cancel()
                if watch is not None:
                    watch.close()

    def _activity_moved(self) -> bool:
        """A session run here changed state since a subscription last looked (in memory)."""
        activity = self._activities()
        return any(seen[1] != activity for seen in self._seen.values())

    async def _watched(self, watch: FolderWatch) -> None:
        while True:
            await watch.changed()
            self._wake.set()
            # A session goes to a subscription at most once a second
            # (docs/decisions.md#session-index).
            await anyio.sleep(POLL_SECONDS)

    async def _watch_scopes(self, watch: FolderWatch) -> bool:
        """Watch the project folders of every subscription's scope; False when one could not
        be watched (then the scopes are looked at every second)."""
        from adapter.claude import index_rows

        scopes = list(self._subscriptions.scopes().values())

        def folders() -> list[Path]:
            return [f for cwd in scopes for f in index_rows.scope_folders(cwd, True, self._env)]

        try:
            return watch.watch(await anyio.to_thread.run_sync(folders))
        except OSError:
            return False

    async def _look(self, subscription_id: str, cwd: str) -> None:
        from adapter.claude import index_rows

        before, activity_before = self._seen.get(subscription_id, ({}, {}))
        now, activity = await self._stamps(cwd), self._activities()
        self._seen[subscription_id] = (now, activity)
        in_scope = set(before) | set(now)
        changed = {i for i in in_scope if before.get(i) != now.get(i)}
        changed |= {i for i in in_scope if activity.get(i) != activity_before.get(i)}
        if not changed:
            return
        rows = await anyio.to_thread.run_sync(
            lambda: index_rows.rows_in(cwd, True, self._env, only=changed)
        )
        infos = {info["sessionId"]: info for info in await self._infos(list(rows.values()))}
        params = self._subscriptions.deliver(subscription_id, sorted(changed), infos, set(now))
        if params is not None:
            await self._link.notify(LIST_CHANGES_METHOD, params, session_id="")
