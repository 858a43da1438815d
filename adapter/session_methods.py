"""The session-management requests, kept out of `agent.py` so the agent stays thin.

Theory of operation: every request that opens a session (new, load, resume, fork) decides what
its Claude starts with the same way (`opening`: the mode from the transcript or Claude Code's
settings, the transcript's model, the client's MCP servers), spawns Claude at once and sends
its start-up handshake (`spawn`), and only then builds the session (`controls_for`,
`adapter.session`, `build_wire_models`): importing and building those takes a while the first
time in a process, and Claude's own start-up runs meanwhile instead of after it. Every one
answers with the same pickers (`pickers`), then sends the command list once the response is
out. `resume` continues a session without replaying its history; `fork` copies it under a new
id first; `close` ends its Claude process and is idempotent. Sessions that were created but
never prompted have no transcript yet and open as a fresh Claude process under the same id
(`session_store`).
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from acp import RequestError

from adapter import mcp_servers, session_store
from adapter.claude_settings import config_home, default_mode
from adapter.client_link import ClientLink
from adapter.session_config import DEFAULT_EFFORT, SessionConfig
from adapter.transcript_tail import read_tail

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from adapter.runtime import ClaudeRuntime, Launch
    from adapter.session import Session
    from adapter.session_controls import SessionControls
    from adapter.settings import RuntimeSettings

__all__ = [
    "Opening",
    "build_wire_models",
    "check_cwd",
    "controls_for",
    "known_on_disk",
    "launch_for",
    "opening",
    "pickers",
    "spawn",
    "start_and_replay",
]

log = logging.getLogger(__name__)


def check_cwd(cwd: str) -> None:
    """-32602 unless `cwd` is an existing absolute directory (a path too long or with a NUL
    for the system is not one either, never an internal error)."""
    try:
        usable = Path(cwd).is_absolute() and Path(cwd).is_dir()
    except (OSError, ValueError):
        usable = False
    if not usable:
        raise RequestError.invalid_params({"cwd": "must be an existing absolute directory"})


def _environ(settings: RuntimeSettings) -> dict[str, str]:
    return {**os.environ, **settings.env}


@dataclass(frozen=True, slots=True, kw_only=True)
class Opening:
    """What a session's first Claude process starts with, decided before it is spawned."""

    session_id: str
    cwd: str
    resume: bool  # whether Claude resumes the session's transcript
    config: SessionConfig
    mcp_servers: dict[str, Any]


def opening(
    *,
    session_id: str,
    cwd: str,
    servers: list[Any] | None,
    settings: RuntimeSettings,
    transcript: Path | None = None,
) -> Opening:
    """The opening of a session; with a `transcript`, one that resumes it with the mode and
    model the transcript says it last ran with (`SessionConfig.initial` says when not)."""
    tail = read_tail(transcript) if transcript is not None else None
    config = SessionConfig.initial(
        _environ(settings),
        default_mode(cwd, settings.env),
        resumed=tail,
        label=f"session {session_id}",
    )
    return Opening(
        session_id=session_id,
        cwd=cwd,
        resume=transcript is not None,
        config=config,
        mcp_servers=mcp_servers.for_claude(servers),
    )


def launch_for(config: SessionConfig, servers: dict[str, Any]) -> Launch:
    """The flags a new Claude process of a session gets from its current choices."""
    from adapter.runtime import Launch

    return Launch(
        permission_mode=config.mode,
        # "default" is the picker's name for Claude Code's own choice: no --model flag.
        model=None if config.model == "default" else config.model,
        effort=None if config.effort == DEFAULT_EFFORT else config.effort,
        mcp_servers=servers,
    )


async def spawn(start: Opening, settings: RuntimeSettings, task_group: TaskGroup) -> ClaudeRuntime:
    """Start the session's Claude process and its start-up handshake (in `task_group`; the
    session awaits the end of it); -32603 when Claude cannot be started."""
    from adapter.runtime import ClaudeRuntime, RuntimeStartError

    runtime = ClaudeRuntime(
        settings=settings,
        cwd=start.cwd,
        session_id=start.session_id,
        resume=start.resume,
        launch=launch_for(start.config, start.mcp_servers),
    )
    try:
        await runtime.spawn(task_group)
    except BaseException as exc:
        await runtime.close()  # shielded: nobody else would stop a process begun here
        if isinstance(exc, RuntimeStartError):
            raise RequestError.internal_error({"reason": str(exc)}) from exc
        raise
    return runtime


async def start_and_replay(session: Session, runtime: ClaudeRuntime, path: Path) -> None:
    """session/load: `session` takes over `runtime` (resuming Claude) while the transcript at
    `path` streams to the client (both read it; on a long one, each takes a while)."""
    from adapter.history import replay_transcript
    from adapter.runtime import RuntimeStartError

    failed_start: list[RuntimeStartError] = []

    async def start() -> None:
        try:
            await session.start(runtime)
        except RuntimeStartError as exc:
            failed_start.append(exc)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(start)
            await replay_transcript(session, path)
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
        raise RequestError.internal_error({"reason": str(failed_start[0])}) from failed_start[0]


def build_wire_models(response: type[Any]) -> None:
    """Build the `acp` schema models that answer a setup request and follow it (`lean_imports`
    builds each on first use; the notification union takes ~10 ms): meant for while Claude
    starts, so that the answer does not wait for them after Claude's handshake."""
    from acp import schema

    for model in (
        response,
        schema.SessionModeState,
        schema.SessionConfigOptionSelect,
        schema.SessionNotification,
        schema.AvailableCommandsUpdate,
    ):
        model.model_rebuild()  # nothing to do once built


def controls_for(start: Opening, link: ClientLink) -> SessionControls:
    from adapter.session_controls import SessionControls

    return SessionControls(
        session_id=start.session_id,
        link=link,
        config=start.config,
        mcp_servers=start.mcp_servers,
    )


def pickers(session: Session) -> dict[str, Any]:
    """The `modes` and `configOptions` of a setup response."""
    config = session.controls.config
    return {"modes": config.mode_state(), "config_options": config.options()}


def known_on_disk(session_id: str, env: Mapping[str, str]) -> bool:
    """Whether Claude (or a never-prompted marker) knows the session in any folder."""
    home = config_home(env)
    try:
        uuid.UUID(session_id)  # Claude's ids are UUIDs; anything else could be a glob
    except ValueError:
        return False
    if (home / "claude-acp" / "sessions" / f"{session_id}.json").is_file():
        return True
    return any((home / "projects").glob(f"*/{session_id}.jsonl"))


def locate(session_id: str, cwd: str, settings: RuntimeSettings) -> session_store.Located:
    return session_store.locate(session_id, cwd, settings.env)
