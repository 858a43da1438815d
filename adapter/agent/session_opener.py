"""How the agent opens a session: spawn its Claude, build the shell meanwhile, register it.

`ClaudeAcpAgent` (adapter.agent.acp_agent) holds one `SessionOpener`, which holds the sessions
open here and the ids closed here; what the client declared at `initialize` is passed to each
opening, so the agent's module stays its list of requests. `opening` (and
what it imports: settings files, transcripts, the SDK's types) is imported by the first session
to open, not with this module, which the agent needs at start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from adapter import lean_imports
from adapter.agent import raw_requests
from adapter.agent.work_ahead import WorkAhead
from adapter.claude import client_options
from adapter.claude.client_options import ClientOptions
from adapter.wire.client_link import ClientLink

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from adapter.agent.handshake import ClientDeclared
    from adapter.agent.opening import Opening
    from adapter.claude.claude_runtime import ClaudeRuntime
    from adapter.claude.runtime_settings import RuntimeSettings
    from adapter.session.session import Session

__all__ = [
    "ClosedIds",
    "SessionOpener",
    "opens_a_session",
    "session_side_imported",
]

P = ParamSpec("P")
R = TypeVar("R")

# How many closed session ids are remembered (so closing one again is not -32002 even when it
# left no transcript): a bound, so that closing sessions for days grows nothing; an id that
# fell out is still found on disk when Claude wrote its transcript.
CLOSED_IDS_KEPT = 1_000


def opens_a_session(
    handler: Callable[P, Coroutine[Any, Any, R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """For each request handler that opens a session (new, load, resume, fork). The first one
    imports the session side (most of the first session's own work: `opening`, the SDK, the
    session, the core's events and effects): the dataclass code cache is put in place first
    (`lean_imports.cache_dataclass_code`), and the cyclic garbage collector waits until the
    imports are over (`session_side_imported`, called once the session is built, or at the
    handler's end when it failed before). Then what they made is frozen, as `initialize` froze
    what start-up made: objects that live as long as the process, which every full collection
    would walk again (measured: a full collection in the middle of the imports was ~60 million
    instructions of a first `session/load`)."""

    @functools.wraps(handler)
    async def opens(*args: P.args, **kwargs: P.kwargs) -> R:
        opener = getattr(args[0], "_opener", None) if args else None
        ending = opener.opening() if isinstance(opener, SessionOpener) else contextlib.nullcontext()
        if not _side.imported:
            lean_imports.cache_dataclass_code()
            lean_imports.pause_collection()
        try:
            with ending:
                return await handler(*args, **kwargs)
        finally:
            lean_imports.resume_collection()

    return opens


class _SessionSide:
    imported = False  # the session side is imported: the first session was built


_side = _SessionSide()


def session_side_imported() -> None:
    """The session side is imported (see `opens_a_session`): the collector goes on."""
    _side.imported = True
    lean_imports.resume_collection()


def _ending_error() -> Exception:
    from acp import RequestError

    return RequestError(-32800, "Request cancelled: the agent is shutting down")


class _OneAtATime:
    """The lock one session id's loads and resumes take in turn, and how many hold or wait."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class ClosedIds:
    """The ids of the sessions closed here, the newest `CLOSED_IDS_KEPT` of them."""

    def __init__(self, kept: int = CLOSED_IDS_KEPT) -> None:
        self._kept = kept
        self._ids: dict[str, None] = {}  # insertion order: the oldest first

    def add(self, session_id: str) -> None:
        self._ids.pop(session_id, None)
        self._ids[session_id] = None
        while len(self._ids) > self._kept:
            del self._ids[next(iter(self._ids))]

    def discard(self, session_id: str) -> None:
        self._ids.pop(session_id, None)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._ids

    def __len__(self) -> int:
        return len(self._ids)


class SessionOpener:
    """Opens sessions and keeps the ones open here (`sessions`) and the ids closed here."""

    def __init__(
        self,
        *,
        task_group: TaskGroup,
        settings: RuntimeSettings,
        link: ClientLink,
        ahead: WorkAhead | None = None,
    ) -> None:
        self._tg = task_group
        self._settings = settings
        self._link = link
        # What each opening does ahead while its Claude starts, and leaves for quiet moments.
        self.ahead = ahead or WorkAhead()
        self._meanwhile: set[asyncio.Future[None]] = set()
        self.sessions: dict[str, Session] = {}
        self.closed = ClosedIds()
        # One load or resume of a session id at a time: two at once would each start a Claude
        # process, and one of them would be left running untracked.
        self._opening: dict[str, _OneAtATime] = {}
        # The requests opening a session now, and whether the adapter is ending (`end_all`).
        self._under_way: set[asyncio.Task[Any]] = set()
        self._ended: set[asyncio.Task[Any]] = set()
        self._ending = False

    @contextlib.contextmanager
    def opening(self) -> Iterator[None]:
        """Around a request that opens a session: refused once the adapter is ending, and one
        under way then is cancelled (`end_all`) and answered -32800."""
        if self._ending:
            raise _ending_error()
        task = asyncio.current_task()
        if task is None:
            yield
            return
        self._under_way.add(task)
        try:
            yield
        except asyncio.CancelledError:
            if task not in self._ended:
                raise
            task.uncancel()
            raise _ending_error() from None
        finally:
            self._under_way.discard(task)
            self._ended.discard(task)

    def end_all(self) -> None:
        """The adapter is ending (the end of input, a signal): each opening under way is
        cancelled, so that its Claude is stopped now (a Claude that has not finished its
        start-up would otherwise hold the request, and the adapter's exit, until the request
        drain gives up), and no further one starts (docs/decisions.md#openings-at-exit)."""
        self._ending = True
        for task in self._under_way - self._ended:
            self._ended.add(task)
            task.cancel()

    def new(
        self, start: Opening, runtime: ClaudeRuntime, answer: type[Any], client: ClientDeclared
    ) -> Session:
        """The session `runtime` (spawned for it) is to serve. The first time, importing
        `adapter.session.session` and building the `answer` model take a while: Claude's own
        start-up runs meanwhile."""
        from adapter.agent import opening

        try:
            from adapter.session.session import Session

            opening.while_claude_starts(answer)
            session_side_imported()
            self._ahead_while_starting(runtime)
            return Session(
                session_id=start.session_id,
                cwd=start.cwd,
                dialects=client.dialects,
                terminal_output=client.terminal_output,
                terminal_output_delta=client.terminal_output_delta,
                link=self._link,
                settings=self._settings,
                task_group=self._tg,
                resume=start.resume,
                claude_session_id=start.claude_session_id,
                controls=opening.controls_for(start, self._link),
            )
        except BaseException:
            self._tg.start_soon(runtime.close)  # nobody else would stop the process
            raise

    async def open(
        self, start: Opening, answer: type[Any], client: ClientDeclared
    ) -> dict[str, Any]:
        """Spawn the session's Claude, build the session (and the `answer` model) while it
        starts up, finish starting it and register it; the setup response's pickers."""
        from adapter.agent import opening
        from adapter.claude.claude_runtime import RuntimeStartError

        runtime = await opening.spawn(start, self._settings, self._tg)
        session = self.new(start, runtime, answer, client)
        try:
            await session.start(runtime)
        except RuntimeStartError as exc:
            await session.close()  # its timer, and nothing else, was started
            raise exc.request_error() from exc
        except BaseException:
            await self.discard(session, runtime)  # cancelled while Claude starts
            raise
        self.register(session)
        return opening.pickers(session)

    @staticmethod
    async def discard(session: Session, runtime: ClaudeRuntime) -> None:
        """Close a session that was never registered, and its Claude: nobody else would stop
        either (docs/decisions.md#openings-at-exit). The session owns its runtime only once
        Claude's handshake is over, so the runtime is closed too (both closes are idempotent);
        shielded, as it runs on a cancellation's way out."""
        import anyio

        with anyio.CancelScope(shield=True):
            await session.close()
            await runtime.close()

    def _ahead_while_starting(self, runtime: ClaudeRuntime) -> None:
        """Work no answer needs, done while the session's Claude has not spoken
        (docs/performance.md), before what was queued (a first session's spawn path, done by
        then); it stops by itself once Claude writes (or its handshake is over), and what is
        left waits for a quiet moment (`WorkAhead.when_quiet`, run by serving)."""
        from adapter.agent import opening

        self.ahead.add(opening.AFTER_SPAWN, first=True)
        if not self.ahead.pending():
            return
        meanwhile = asyncio.ensure_future(self.ahead.while_claude_starts(runtime.silent))
        self._meanwhile.add(meanwhile)  # a task nothing holds may be collected mid-step
        meanwhile.add_done_callback(self._meanwhile.discard)

    def register(self, session: Session) -> None:
        self.sessions[session.session_id] = session
        self.closed.discard(session.session_id)
        session.controls.announce_later(self._tg)
        if lean_imports.dataclass_code_unsaved():
            import anyio

            # Off the request's way: the next process finds the code this one compiled.
            self._tg.start_soon(anyio.to_thread.run_sync, lean_imports.save_dataclass_code)

    def prepare(
        self,
        client: ClientDeclared,
        session_id: str,
        cwd: str,
        servers: Any,
        transcript: Path | None = None,
        options: ClientOptions = client_options.NONE,
    ) -> Opening:
        from adapter.agent import opening

        return opening.opening_for(
            session_id=session_id,
            cwd=cwd,
            servers=servers,
            settings=self._settings,
            transcript=transcript,
            ask_by_form=client.ask_by_form,
            client_options=options,
            surroundings=raw_requests.requested_surroundings(),
            boolean_options=client.boolean_options,
            ask_by_url=client.ask_by_url,
            plan_updates=client.plan_updates,
            air=client.air,
        )

    @contextlib.asynccontextmanager
    async def one_at_a_time(self, session_id: str) -> AsyncIterator[None]:
        # asyncio's lock, not anyio's: making anyio's imports its asyncio backend (about 9 ms),
        # which the first session's spawn does not wait for (`serving.LateTaskGroup`).
        turns = self._opening.setdefault(session_id, _OneAtATime())
        turns.users += 1
        try:
            async with turns.lock:
                yield
        finally:
            turns.users -= 1
            if turns.users == 0:
                self._opening.pop(session_id, None)
