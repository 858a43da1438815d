"""What every Claude runtime of one adapter process shares.

Its own module, free of `claude_agent_sdk`, so that the serving path can build it before the
first request without importing the SDK (and `mcp` with it) ahead of `initialize`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["RuntimeSettings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeSettings:
    """What every runtime of this adapter shares."""

    executable: str | None = None  # None: the CLI bundled with claude-agent-sdk
    env: dict[str, str] = field(default_factory=dict)
    # How long Claude may stay silent during a turn before the client is told so.
    stall_seconds: float = 120.0
