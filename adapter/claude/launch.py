"""What a session chose that a new Claude process has to start with (adapter.claude.claude_runtime).

Apart from the process so that the controls can build one without importing the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adapter.claude.client_options import NONE as NO_CLIENT_OPTIONS
from adapter.claude.client_options import ClientOptions
from adapter.claude.surroundings import Surroundings

__all__ = ["Launch"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Launch:
    """What a session chose that a new Claude process has to start with."""

    permission_mode: str | None = None
    model: str | None = None
    effort: str | None = None
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    # Tools Claude Code starts without (AskUserQuestion for a client without forms).
    disallowed_tools: tuple[str, ...] = ()
    # The client's `_meta.claudeCode.options` (adapter.claude.client_options).
    client_options: ClientOptions = NO_CLIENT_OPTIONS
    # The client's extra folders and system prompt (`adapter.claude.surroundings`).
    surroundings: Surroundings = field(default_factory=Surroundings)
    # The agent the user picked (fsm.pickers.agents): `--agent` for it, or none for Claude
    # Code's own (`agent_picked` with `agent` None), whatever the client's options asked for.
    agent_picked: bool = False
    agent: str | None = None
    # Claude Code keeps file checkpoints (JetBrains AIR's `agentFileChangeReport`).
    file_checkpoints: bool = False
    # Claude Code predicts the next prompt after each turn (JetBrains AIR's ghost text).
    prompt_suggestions: bool = False
    # The subagent hooks report each subagent's configuration (JetBrains AIR's native subagent
    # sessions, `adapter.claude.hooks`).
    subagent_hooks: bool = False
