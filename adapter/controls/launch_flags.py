"""The flags a new Claude process starts with, from a session's current picker choices."""

from __future__ import annotations

from typing import Any

from adapter.claude.client_options import NONE, ClientOptions
from adapter.claude.launch import Launch
from adapter.claude.surroundings import Surroundings
from adapter.controls.pickers import DEFAULT_EFFORT, SessionConfig
from fsm import agent_flag

__all__ = ["launch_for"]


def launch_for(
    config: SessionConfig,
    servers: dict[str, Any],
    client_options: ClientOptions | None = None,
    disallowed_tools: tuple[str, ...] = (),
    surroundings: Surroundings | None = None,
    *,
    file_checkpoints: bool = False,
    prompt_suggestions: bool = False,
    subagent_hooks: bool = False,
) -> Launch:
    """The flags a new Claude process of a session gets from its current choices;
    `file_checkpoints`: the client negotiated JetBrains AIR's `agentFileChangeReport`;
    `prompt_suggestions`: the client shows Claude Code's predicted next prompt;
    `subagent_hooks`: the client takes AIR's native subagent sessions, told their
    configuration."""
    return Launch(
        client_options=client_options or NONE,
        permission_mode=config.mode,
        # "default" is the picker's name for Claude Code's own choice: no --model flag.
        model=None if config.model == "default" else config.model,
        effort=None if config.effort == DEFAULT_EFFORT else config.effort,
        mcp_servers=servers,
        disallowed_tools=disallowed_tools,
        surroundings=surroundings or Surroundings(),
        agent_picked=config.agent_picked,
        agent=agent_flag(config.agent),
        file_checkpoints=file_checkpoints,
        prompt_suggestions=prompt_suggestions,
        subagent_hooks=subagent_hooks,
    )
