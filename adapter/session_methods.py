"""The session-management requests, kept out of `agent.py` so the agent stays thin.

Theory of operation: every request that opens a session (new, load, resume, fork) builds the
session's `SessionControls` the same way (`controls_for`: initial mode from Claude Code's
settings, the client's MCP servers), and answers with the same pickers (`pickers`), then sends
the command list once the response is out. `resume` continues a session without replaying its
history; `fork` copies it under a new id first; `close` ends its Claude process and is
idempotent. Sessions that were created but never prompted have no transcript yet and open as a
fresh Claude process under the same id (`session_store`).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import RequestError

from adapter import mcp_servers, session_store
from adapter.claude_settings import config_home, default_mode
from adapter.client_link import ClientLink
from adapter.session_config import SessionConfig

if TYPE_CHECKING:
    from adapter.session import Session
    from adapter.session_controls import SessionControls
    from adapter.settings import RuntimeSettings

__all__ = ["check_cwd", "controls_for", "known_on_disk", "pickers"]


def check_cwd(cwd: str) -> None:
    if not Path(cwd).is_absolute() or not Path(cwd).is_dir():
        raise RequestError.invalid_params({"cwd": "must be an existing absolute directory"})


def _environ(settings: RuntimeSettings) -> dict[str, str]:
    return {**os.environ, **settings.env}


def controls_for(
    *,
    session_id: str,
    cwd: str,
    servers: list[Any] | None,
    link: ClientLink,
    settings: RuntimeSettings,
) -> SessionControls:
    from adapter.session_controls import SessionControls  # imports the SDK

    environ = _environ(settings)
    config = SessionConfig.initial(environ, default_mode(cwd, settings.env))
    return SessionControls(
        session_id=session_id,
        link=link,
        config=config,
        mcp_servers=mcp_servers.for_claude(servers),
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
