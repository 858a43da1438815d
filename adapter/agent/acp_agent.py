"""The ACP agent: requests in, sessions out. Thin on purpose; decisions live in `fsm/`.

What opens and runs sessions (`adapter.agent.opening`, the session store, `claude_agent_sdk` and
`adapter.session.session`, the core's events) is imported by the requests that use it, on the
first of them, not at start-up: `initialize` has to answer fast and needs none of it
(`tests/shell/test_startup_imports.py` holds that line).
"""

from __future__ import annotations

import gc
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import (
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TextContentBlock,
)

from adapter.agent import (
    aliases,
    async_task_stop,
    auth_push,
    deleting,
    goal_control,
    handshake,
    mcp_servers,
    raw_requests,
    signing_out,
    steering,
)
from adapter.agent.session_opener import SessionOpener, opens_a_session
from adapter.agent.work_ahead import WorkAhead
from adapter.claude import client_options, login
from adapter.controls.commands import rewrite_prompt
from adapter.wire.acp_compat import wrap_request_handler
from adapter.wire.client_link import BulkSender, ClientLink, Connection
from adapter.wire.response_watch import ResponseWatch
from fsm import Dialects

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from adapter.agent.provider_requests import ProviderRequests
    from adapter.agent.session_index import SessionIndexRequests
    from adapter.claude.runtime_settings import RuntimeSettings
    from adapter.session.session import Session

__all__ = ["AUTH_METHOD_ID", "ClaudeAcpAgent"]

log = logging.getLogger(__name__)

Handler = Callable[[str, Any, bool], Awaitable[Any]]
# What every method of the session index starts with (`fsm.INDEX_METHODS`; pinned by
# tests/shell/test_startup_imports.py).
INDEX_PREFIX = "_session/"
# What every method of the model provider starts with (adapter.agent.provider_requests).
PROVIDERS_PREFIX = "providers/"

AUTH_METHOD_ID = login.AUTH_METHOD_ID
# The first `initialize`'s read of the sign-in, a step of the work done ahead.
AUTH_PROBE_STEP = "auth status"
# At exit, how long Claude gets to stop after SIGTERM before it is killed.
STOP_GRACE_SECONDS = 2.0


class ClaudeAcpAgent:
    def __init__(
        self,
        *,
        task_group: TaskGroup,
        settings: RuntimeSettings,
    ) -> None:
        self._tg = task_group
        self._settings = settings
        self._link = ClientLink()
        self._raw = raw_requests.RawCapabilities()
        # Sessions whose transcript Claude Code has not written yet (never prompted): a title
        # kept for one meanwhile goes into it after a prompt (`_write_kept_title`).
        self._unwritten: set[str] = set()
        # What the client declared at `initialize` (nothing until then; JetBrains AIR and the
        # AIR capabilities negotiated are its `air`).
        self._client = handshake.ClientDeclared(
            dialects=Dialects(), terminal_output=False, ask_by_form=False
        )
        # The sessions open here, and how one is opened.
        self._opener = SessionOpener(task_group=task_group, settings=settings, link=self._link)
        self._sessions = self._opener.sessions
        # JetBrains AIR's session index (adapter.agent.session_index), made by the first
        # request that may be one of its own (`_index_guard`): its module and the core's are
        # about a tenth of what answering `initialize` costs, and most clients never ask.
        self._index: SessionIndexRequests | None = None
        # Which sign-in Claude Code pays with, pushed to the client (`_auth/status_update`).
        self._auth = auth_push.AuthPush(self._link, settings)
        # A read the core wants after a session's account (another folder or key helper), at
        # the next quiet moment as every read.
        self._auth.quietly = lambda read: self.work_ahead.when_client_quiet(AUTH_PROBE_STEP, read)
        # The model provider the client set (adapter.agent.provider_requests), made by the
        # first `providers/*` request or gateway sign-in: most clients never send one.
        self._providers: ProviderRequests | None = None

    def attach_bulk_sender(self, sender: BulkSender) -> None:
        """Where several updates go out in one write (the transport's), for a replay's bulk."""
        self._link.attach_bulk(sender)

    @property
    def work_ahead(self) -> WorkAhead:
        """What the agent does ahead of need (serving adds its own and runs the quiet moments)."""
        return self._opener.ahead

    def attach_responses(self, watch: ResponseWatch) -> None:
        """Where the wire tells that a response is written (the transport's), for what must
        follow a setup response (the session's command list)."""
        self._link.attach_responses(watch)

    def on_connect(self, conn: Connection) -> None:
        self._link.attach(conn)
        # The schema drops MCP server entries it cannot read; check them before it does.
        wrap_request_handler(conn, mcp_servers.guard)
        # Extra folders and a system prompt, which acp's schema checks badly or drops.
        wrap_request_handler(conn, raw_requests.surroundings_guard)
        # `session/set_model`, which acp's router no longer knows (adapter.agent.aliases).
        wrap_request_handler(conn, aliases.guard(self))
        # `session/delete`, which acp's router does not route (adapter.agent.deleting).
        wrap_request_handler(conn, deleting.guard(self))
        wrap_request_handler(conn, signing_out.guard(self))
        # `_session/steering` (adapter.agent.steering), an extension method.
        wrap_request_handler(conn, steering.guard(self))
        # JetBrains AIR's session index (adapter.agent.session_index).
        wrap_request_handler(conn, self._index_guard)
        # `_session/async_task/stop` (adapter.agent.async_task_stop), AIR's Stop on a task.
        wrap_request_handler(conn, async_task_stop.guard(self))
        # `_session/goal` (adapter.agent.goal_control), AIR's goal control.
        wrap_request_handler(conn, goal_control.guard(self))
        # `providers/list|set|disable` (adapter.agent.provider_requests), which acp's router
        # does not route.
        wrap_request_handler(conn, self._providers_guard)
        # What the client declared that acp's schema drops (adapter.agent.raw_requests).
        wrap_request_handler(conn, self._raw.wrap)

    def _session_index(self) -> SessionIndexRequests:
        if self._index is None:
            from adapter.agent.session_index import SessionIndexRequests

            self._index = SessionIndexRequests(
                host=self,
                sessions=self._sessions,
                link=self._link,
                env=self._settings.env,
                task_group=self._tg,
            )
            self._index.negotiate(self._client.air)
        return self._index

    def _index_guard(self, handler: Handler) -> Handler:
        """The session index's guard (`SessionIndexRequests.guard`), put in place by the first
        request it may answer: its methods are all `_session/...`, and it takes `session/list`
        only from a client that negotiated the index. Before that every request passes."""
        guarded: Handler | None = None

        async def routed(method: str, params: Any, is_notification: bool) -> Any:
            nonlocal guarded
            if guarded is None and (
                method.startswith(INDEX_PREFIX)
                or (method == "session/list" and self._client.air.session_index)
            ):
                guarded = self._session_index().guard(handler)
            if guarded is None:
                return await handler(method, params, is_notification)
            return await guarded(method, params, is_notification)

        return routed

    def _provider_requests(self) -> ProviderRequests:
        if self._providers is None:
            from adapter.agent.provider_requests import ProviderRequests

            self._providers = ProviderRequests(
                settings=self._settings,
                sessions=self._sessions,
                auth=self._auth,
            )
        return self._providers

    def _providers_guard(self, handler: Handler) -> Handler:
        """Answers the `providers/*` requests before the router (which does not know them)."""

        async def routed(method: str, params: Any, is_notification: bool) -> Any:
            if not method.startswith(PROVIDERS_PREFIX) or is_notification:
                return await handler(method, params, is_notification)
            from adapter.agent.provider_requests import METHODS

            if method not in METHODS:
                return await handler(method, params, is_notification)
            return await self._provider_requests().answer(method, params)

        return routed

    async def _provider_settled(self) -> None:
        """A session's opening or a prompt waits while a provider change is applied."""
        if self._providers is not None:
            await self._providers.settled()

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self._client = handshake.client_declared(client_capabilities, self._raw)
        self._link.client_name = client_info.name if client_info is not None else None
        self._link.filter_meta(self._client.air.filters_meta)
        if self._index is not None:
            self._index.negotiate(self._client.air)
        self._raw.session_capabilities = self._client.air.session_capabilities()
        log.info("initialize: %s", self._client.dialects)
        # What start-up made (acp, the SDK, these modules) lives as long as the process; frozen,
        # a full collection no longer scans it. One would otherwise land in the first session's
        # imports, which make many objects: ~25 ms of CPU before its answer, measured.
        gc.freeze()
        # Read in the background at the next quiet moment (docs/performance.md, "Work done
        # ahead"): never while a first session's Claude starts; its push follows this answer
        # (adapter.agent.auth_push).
        self.work_ahead.when_client_quiet(AUTH_PROBE_STEP, self._auth.probe)
        return handshake.initialize_response(client_capabilities, self._client.air)

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        if method_id in login.GATEWAY_METHOD_IDS:
            # A gateway the client runs (`_meta.gateway {baseUrl, headers}`): every Claude
            # started after it routes through it (adapter.agent.provider_requests).
            await self._provider_requests().sign_in(method_id, kwargs)
            return AuthenticateResponse()
        if method_id not in login.METHOD_IDS:
            raise RequestError.invalid_params({"methodId": "unknown authentication method"})
        # Sign-in happens outside the adapter (the client's terminal method, a key): ok only
        # once Claude Code itself says the user is signed in, else -32000 with what works from
        # an editor (docs/decisions.md#sign-in-that-leads-somewhere).
        from adapter.claude.auth_status import check_signed_in

        await self._auth.signed_in(await check_signed_in(self._settings))
        # The next prompt of every session starts a fresh Claude process so that it reads the
        # new credentials.
        for session in self._sessions.values():
            await session.restart_on_next_prompt()
        return AuthenticateResponse()

    async def logout(self) -> None:
        """`claude auth logout`; then, as after `authenticate`, every session's next prompt
        starts a fresh Claude, which finds no credentials and says so (the usual records)."""
        from adapter.claude.logout import logout

        if self._providers is not None:
            # The provider and gateway set here go first, as in the reference
            # (docs/reference-adapter.md#providers): a sign-out the CLI fails (-32603) or
            # times out on still ends the route, and moves every session off it.
            await self._providers.sign_out()
        await logout(self._settings)
        for session in self._sessions.values():
            await session.restart_on_next_prompt()
        await self._auth.signed_out()

    @opens_a_session
    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        from adapter.agent import opening

        opening.check_cwd(cwd)
        options = client_options.parse(kwargs.get(client_options.META_KEY))
        await self._provider_settled()
        signed = self._auth.epoch  # as its Claude begins starting
        session_id = str(uuid.uuid4())
        start = self._opener.prepare(self._client, session_id, cwd, mcp_servers, options=options)
        pickers = await self._opener.open(start, NewSessionResponse, self._client)
        from adapter.claude import session_store  # once Claude is spawned: it is not needed before

        session_store.remember(session_id, cwd, self._settings.env)
        self._unwritten.add(session_id)
        await self._opened(session_id, signed)
        return NewSessionResponse(session_id=session_id, **pickers)

    @opens_a_session
    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        await self._provider_settled()
        async with self._opener.one_at_a_time(session_id):
            return await self._load_session(cwd, session_id, mcp_servers, kwargs)

    async def _load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None, meta: dict[str, Any]
    ) -> LoadSessionResponse:
        from adapter.agent import opening
        from adapter.claude import session_store

        opening.check_cwd(cwd)
        options = client_options.parse(meta.get(client_options.META_KEY))
        signed = self._auth.epoch  # as its Claude begins starting
        path = session_store.locate(session_id, cwd, self._settings.env).transcript
        live = self._sessions.pop(session_id, None)
        if live is not None:
            # Reloading a live session: its prompt in flight is answered `cancelled` (the
            # client asked for this) and its Claude process is replaced by a resumed one.
            await live.shutdown(grace=None)
        # Read once that Claude is gone: it may have been writing the transcript's end.
        start = self._opener.prepare(self._client, session_id, cwd, mcp_servers, path, options)
        if path is None:
            # Created but never prompted: nothing to replay, a fresh Claude under this id.
            pickers = await self._opener.open(start, LoadSessionResponse, self._client)
            self._unwritten.add(session_id)
            await self._replayed(session_id)
            await self._opened(session_id, signed)
            return LoadSessionResponse(**pickers)
        runtime = await opening.spawn(start, self._settings, self._tg)
        session = self._opener.new(start, runtime, LoadSessionResponse, self._client)
        from adapter.session.load_replay import start_and_replay  # imports the SDK

        try:
            earlier = session_store.earlier_transcripts(session_id, cwd, path, self._settings.env)
            await start_and_replay(session, runtime, path, earlier)
            await self._replayed(session_id)
        except BaseException:
            # Cancelled at exit or failed (a failed replay closed them already).
            await self._opener.discard(session, runtime)
            raise
        self._opener.register(session)
        await self._opened(session_id, signed)
        return LoadSessionResponse(**opening.pickers(session))

    async def _opened(self, session_id: str, signed: int) -> None:
        """A session just opened, its Claude begun starting at sign-in epoch `signed`. The
        account its Claude Code named, for the connection's `authStatus`: the one it opened
        with, then the one each later Claude of the session names (a restart after
        `authenticate` or `logout` reads the new sign-in); each with the epoch its Claude
        began starting at, so that one begun before a sign-out is not told after it. And a
        Claude started before a provider change that came meanwhile is replaced at its next
        prompt."""
        session = self._sessions.get(session_id)
        if session is not None and self._providers is not None:
            await self._providers.opened(session)
        if session is not None:
            self._auth.opened(session.controls.account, session.cwd, signed)
            cwd, auth = session.cwd, self._auth
            session.controls.auth_epoch = lambda: auth.epoch
            session.controls.on_account = lambda account, at: auth.opened(account, cwd, at)

    async def _replayed(self, session_id: str) -> None:
        """A load's history is out, whole: what the client wants to hear then, before the
        load's answer (JetBrains AIR's `loadReplayEnd`)."""
        for update in self._client.air.after_replay():
            await self._link.send_raw_update(session_id, update)

    @opens_a_session
    async def resume_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> ResumeSessionResponse:
        await self._provider_settled()
        async with self._opener.one_at_a_time(session_id):
            return await self._resume_session(cwd, session_id, mcp_servers, kwargs)

    async def _resume_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None, meta: dict[str, Any]
    ) -> ResumeSessionResponse:
        from adapter.agent import opening
        from adapter.claude import session_store

        opening.check_cwd(cwd)
        options = client_options.parse(meta.get(client_options.META_KEY))
        signed = self._auth.epoch  # as its Claude begins starting
        path = session_store.locate(session_id, cwd, self._settings.env).transcript
        live = self._sessions.get(session_id)
        asked = raw_requests.requested_surroundings()
        same = live is not None and live.controls.surroundings == asked
        if live is not None and live.cwd == cwd and same:
            return ResumeSessionResponse(**opening.pickers(live))  # already running
        if live is not None:
            await self._sessions.pop(session_id).shutdown(grace=None)
        start = self._opener.prepare(self._client, session_id, cwd, mcp_servers, path, options)
        pickers = await self._opener.open(start, ResumeSessionResponse, self._client)
        if path is None:
            self._unwritten.add(session_id)  # never prompted: no transcript yet
        await self._opened(session_id, signed)
        return ResumeSessionResponse(**pickers)

    @opens_a_session
    async def fork_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> ForkSessionResponse:
        from adapter.agent import opening
        from adapter.claude import session_store
        from fsm import fork_point

        opening.check_cwd(cwd)
        options = client_options.parse(kwargs.get(client_options.META_KEY))
        # JetBrains AIR's fork at a message, read from any client (docs/client-authors.md).
        point = fork_point(kwargs)
        await self._provider_settled()
        signed = self._auth.epoch  # as its Claude begins starting
        env = self._settings.env
        new_id, copy = await session_store.fork(session_id, cwd, env, point)
        try:
            start = self._opener.prepare(self._client, new_id, cwd, mcp_servers, copy, options)
            pickers = await self._opener.open(start, ForkSessionResponse, self._client)
        except BaseException:
            # Its Claude did not start, or the request was cancelled: the client never gets
            # this fork, so its copy goes (docs/decisions.md#cancelled-fork).
            session_store.discard_fork(new_id, copy, env)
            raise
        await self._opened(new_id, signed)
        return ForkSessionResponse(session_id=new_id, **pickers)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        from adapter.claude import session_store

        session = self._sessions.pop(session_id, None)
        if session is not None:
            await session.cancel()
            await session.close()
            self._opener.closed.add(session_id)
            # A load opens it again and says again whether Claude Code has written it yet.
            self._unwritten.discard(session_id)
        elif session_id not in self._opener.closed and not session_store.known_on_disk(
            session_id, self._settings.env
        ):
            raise session_store.not_found(session_id)
        return CloseSessionResponse()

    async def delete_session(self, session_id: str) -> None:
        """Tear a session running here down, then remove it from disk, or, for a JetBrains AIR
        client that means "done" by it, archive it (adapter.agent.deleting); -32002 when
        neither this adapter nor the disk knows it."""
        import anyio

        from adapter.claude import session_archive, session_store

        async with self._opener.one_at_a_time(session_id):
            session = self._sessions.pop(session_id, None)
            if session is not None:
                await session.cancel()  # its prompt in flight is answered `cancelled`
                await session.close()
            self._opener.closed.discard(session_id)
            env = self._settings.env
            if self._client.air.delete_archives:
                # Claude is gone: nothing writes the transcript while the records go on.
                found = await anyio.to_thread.run_sync(session_archive.archive, session_id, env)
                known = found or session_store.known_on_disk(session_id, env)
            else:
                known = await session_store.delete(session_id, env)
            if not known and session is None:
                raise session_store.not_found(session_id)
        if self._index is not None:
            self._index.changed()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        from adapter.claude import session_store

        return await session_store.list_page(
            cwd, cursor, env=self._settings.env, hide_archived=self._client.air.list_hides_archived
        )

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        await self._session(session_id).controls.set_mode(mode_id)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        from fsm import ModelChosen

        session = self._session(session_id)
        await session.controls.set_option(config_id, value)
        if config_id == "model":  # the idle compaction's cache was the old model's
            await session.feed(ModelChosen())
        return SetSessionConfigOptionResponse(config_options=session.controls.config.options())

    async def set_session_model(self, model_id: str, session_id: str) -> None:
        """The earlier adapter's `session/set_model`: the model option, by value or full id."""
        from fsm import ModelChosen

        session = self._session(session_id)
        controls = session.controls
        await controls.set_option("model", controls.config.model_value(model_id))
        await session.feed(ModelChosen())

    def _session(self, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            # The id is the client's own; bounded, it helps to see which one was unknown.
            shown = session_id if len(session_id) <= 100 else f"{session_id[:100]}\u2026"
            raise RequestError.invalid_params({"sessionId": f"no session {shown!r} is open"})
        return session

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        from adapter.claude.claude_runtime import RuntimeStartError
        from adapter.claude.prompt_content import check_not_empty
        from fsm import PromptRequested

        await self._provider_settled()
        session = self._session(session_id)
        # A sign-in or sign-out done elsewhere shows up: read at the next quiet moment, never
        # waited for (the reference starts it here; its result counts at a turn's end either
        # way: docs/reference-adapter.md#auth-status), so that starting its process holds up no
        # prompt (docs/performance.md).
        cwd = session.cwd
        self.work_ahead.when_client_quiet(AUTH_PROBE_STEP, lambda: self._auth.probe(cwd))
        check_not_empty(prompt)  # -32602, and nothing reaches Claude
        # Before it is answered here or handed on: the core tells a start-up `auto` the model
        # lacks now (`fsm/notices.py`, docs/reference-adapter.md#auto-mode).
        await session.feed(PromptRequested())
        if await session.remote_control(prompt):  # `/remote-control`: no model turn either
            return PromptResponse(stop_reason="end_turn")
        # A `/remote-control` under way answers before this prompt's turn begins.
        await session.controls.remote_control.settled()
        if await session.controls.answer_locally(prompt):  # `/usage`, `/mcp`: no model turn
            return PromptResponse(stop_reason="end_turn")
        try:
            return await session.prompt(rewrite_prompt(prompt), kwargs)
        except RuntimeStartError as exc:
            raise exc.request_error() from exc
        finally:
            if session_id in self._unwritten:
                await self._write_kept_title(session_id)

    async def _write_kept_title(self, session_id: str) -> None:
        """A session titled (archived, renamed) before Claude Code wrote its transcript: once
        it has, the title kept meanwhile goes into it (docs/decisions.md#unwritten-titles)."""
        import anyio

        from adapter.claude import session_archive

        env = self._settings.env
        try:
            written = await anyio.to_thread.run_sync(
                session_archive.write_pending_title, session_id, env
            )
        except Exception:  # best effort: the next prompt tries again
            log.warning("session %s: its kept title could not be written", session_id)
            return
        if written:
            self._unwritten.discard(session_id)

    async def steer(
        self, session_id: str, prompt: list[Any], *, prompt_required: bool
    ) -> dict[str, Any]:
        session = self._session(session_id)
        return await session.steer(rewrite_prompt(prompt), prompt_required=prompt_required)

    async def goal(self, session_id: str, command: str) -> None:
        """JetBrains AIR's `_session/goal` as Claude Code's `/goal` command: steered into the
        running turn, else a prompt of its own, whose turn this waits for."""
        blocks: list[Any] = [TextContentBlock(type="text", text=command)]
        steered = await self.steer(session_id, blocks, prompt_required=True)
        if steered.get("outcome") == "promptRequired":
            await self.prompt(blocks, session_id)

    async def stop_async_task(self, session_id: str, task_id: str) -> bool:
        session = self._sessions.get(session_id)
        return False if session is None else await session.stop_async_task(task_id)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is None:
            log.warning("cancel for unknown session %s", session_id)
            return
        await session.cancel()

    async def shutdown(self) -> None:
        """The adapter is exiting (end of input, a signal): every prompt in flight is answered
        `cancelled` and every Claude process stopped, all sessions at once."""
        import anyio

        async with anyio.create_task_group() as tg:
            tg.start_soon(self._auth.close)
            for session in list(self._sessions.values()):
                tg.start_soon(session.shutdown, STOP_GRACE_SECONDS)

    def interrupted(self) -> None:
        """A signal: each session request still opening is answered -32800 now and its Claude
        stopped, and none opens after (docs/decisions.md#openings-at-exit). At the mere end of
        input they finish, and are answered, as every other request read."""
        self._opener.end_all()

    async def close(self) -> None:
        """End every session's Claude process (the client went away)."""
        self._opener.end_all()
        if self._index is not None:
            self._index.close()
        await self._auth.close()
        for session in list(self._sessions.values()):
            await session.close()
        self._sessions.clear()
