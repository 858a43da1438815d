"""The ACP agent: requests in, sessions out. Thin on purpose; decisions live in `fsm/`.

`claude_agent_sdk` (and so `adapter.session`) is imported on the first `session/new`, not at
start-up: `initialize` has to answer fast and needs none of it.
"""

from __future__ import annotations

import logging
import uuid
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AuthMethodAgent,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
)
from anyio.abc import TaskGroup

from adapter.client_link import ClientLink, Connection
from fsm.negotiation import Dialects, advertisement, negotiate

if TYPE_CHECKING:
    from adapter.session import Session
    from adapter.settings import RuntimeSettings

__all__ = ["AUTH_METHOD_ID", "ClaudeAcpAgent"]

log = logging.getLogger(__name__)

AUTH_METHOD_ID = "claude-login"


def _version() -> str:
    try:
        return version("claude-acp")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0"


def _check_cwd(cwd: str) -> None:
    if not Path(cwd).is_absolute() or not Path(cwd).is_dir():
        raise RequestError.invalid_params({"cwd": "must be an existing absolute directory"})


class ClaudeAcpAgent:
    def __init__(self, *, task_group: TaskGroup, settings: RuntimeSettings) -> None:
        self._tg = task_group
        self._settings = settings
        self._link = ClientLink()
        self._dialects = Dialects()
        self._sessions: dict[str, Session] = {}

    def on_connect(self, conn: Connection) -> None:
        self._link.attach(conn)

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        meta = client_capabilities.field_meta if client_capabilities is not None else None
        self._dialects = negotiate(meta)
        log.info("initialize: %s", self._dialects)
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
            ),
            auth_methods=[
                AuthMethodAgent(
                    id=AUTH_METHOD_ID,
                    name="Sign in to Claude",
                    description=(
                        "Run `claude /login` in a terminal (or set ANTHROPIC_API_KEY for the "
                        "editor), then choose this to continue."
                    ),
                )
            ],
            agent_info=Implementation(name="claude-acp", title="Claude", version=_version()),
            field_meta=advertisement(),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        if method_id != AUTH_METHOD_ID:
            raise RequestError.invalid_params({"methodId": "unknown authentication method"})
        # Sign-in happens outside the adapter; the next prompt of every session starts a
        # fresh Claude process so that it reads the new credentials.
        for session in self._sessions.values():
            await session.restart_on_next_prompt()
        return AuthenticateResponse()

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        from adapter.runtime import RuntimeStartError

        session_id = str(uuid.uuid4())
        session = self._new_session_object(cwd, session_id, resume=False)
        try:
            await session.start()
        except RuntimeStartError as exc:
            raise RequestError.internal_error({"reason": str(exc)}) from exc
        self._sessions[session_id] = session
        return NewSessionResponse(session_id=session_id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        from adapter.history import find_transcript, replay_transcript
        from adapter.runtime import RuntimeStartError

        _check_cwd(cwd)
        path = find_transcript(session_id=session_id, cwd=cwd, env=self._settings.env)
        if path is None:
            raise RequestError(
                -32002,
                "Resource not found: no Claude transcript for this session in this folder",
                {"sessionId": session_id},
            )
        live = self._sessions.pop(session_id, None)
        if live is not None:
            # Reloading a live session: its Claude process is replaced by a resumed one.
            await live.close()
        session = self._new_session_object(cwd, session_id, resume=True)
        # Claude resumes the session while the history streams to the client (both read the
        # same transcript; on a long one, each takes a while).
        failed_start: list[RuntimeStartError] = []

        async def start() -> None:
            try:
                await session.start()
            except RuntimeStartError as exc:
                failed_start.append(exc)

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(start)
                await replay_transcript(session, path)
        except Exception as exc:
            # Declared boundary: a bug in replay must not show the client our internals.
            log.exception("session %s: replay failed", session_id)
            await session.close()
            raise RequestError.internal_error(
                {"reason": "the session's history could not be replayed"}
            ) from exc
        if failed_start:
            raise RequestError.internal_error({"reason": str(failed_start[0])}) from failed_start[0]
        self._sessions[session_id] = session
        return LoadSessionResponse()

    def _new_session_object(self, cwd: str, session_id: str, *, resume: bool) -> Session:
        """A session for `cwd` (checked) with this agent's dialects, link and settings; its
        Claude process is started by the caller."""
        from adapter.session import Session

        _check_cwd(cwd)
        return Session(
            session_id=session_id,
            cwd=cwd,
            dialects=self._dialects,
            link=self._link,
            settings=self._settings,
            task_group=self._tg,
            resume=resume,
        )

    def _session(self, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": "no such session"})
        return session

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        # Every outcome, a Claude that cannot start included, is the core's answer.
        return await self._session(session_id).prompt(prompt)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is None:
            log.warning("cancel for unknown session %s", session_id)
            return
        await session.cancel()

    async def close(self) -> None:
        """End every session's Claude process (the client went away)."""
        for session in list(self._sessions.values()):
            await session.close()
        self._sessions.clear()
