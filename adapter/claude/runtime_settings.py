"""What every Claude runtime of one adapter process shares.

Its own module, free of `claude_agent_sdk`, so that the serving path can build it before the
first request without importing the SDK (and `mcp` with it) ahead of `initialize`.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsm import ProviderRoutes

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_MESSAGE_BYTES",
    "ProviderRoute",
    "RuntimeSettings",
    "env_bytes",
    "from_environment",
    "private_values",
]

# The longest JSON-RPC line accepted from the client (CLAUDE_ACP_MAX_LINE_BYTES).
MAX_LINE_BYTES = 50 * 1024 * 1024
# The largest single message accepted from Claude (CLAUDE_ACP_MAX_MESSAGE_BYTES); the SDK's own
# default of 1 MiB ends Claude's process on one large file read or screenshot.
MAX_MESSAGE_BYTES = 256 * 1024 * 1024

# Environment variables whose values are secrets by their names' own account.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE", re.I)


class ProviderRoute:
    """The model provider the client set (`providers/set`, a gateway sign-in), as every Claude
    started from now on takes it. It keeps nothing of its own: it reads the connection's
    `fsm.ProviderRoutes`, which `adapter.agent.provider_requests` (its one writer) attaches with
    the first such request and changes one request at a time; None until then."""

    __slots__ = ("routes",)

    def __init__(self) -> None:
        self.routes: ProviderRoutes | None = None

    def routing(self) -> dict[str, str]:
        """The environment a Claude started now routes with (adapter.claude.claude_runtime),
        empty while no provider routes."""
        return {} if self.routes is None else self.routes.routing

    def private(self) -> tuple[str, ...]:
        """The header values of every provider set so far: masked from then on, after their
        provider is gone too."""
        return () if self.routes is None else self.routes.private


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeSettings:
    """What every runtime of this adapter shares."""

    executable: str | None = None  # None: the CLI bundled with claude-agent-sdk
    env: dict[str, str] = field(default_factory=dict)
    # How long Claude may stay silent during a turn before the client is told so.
    stall_seconds: float = 120.0
    # The largest single message read from Claude; a larger one fails its turn.
    max_message_bytes: int = MAX_MESSAGE_BYTES
    # Values no text sent to a client may contain (see `private_values`).
    private: tuple[str, ...] = ()
    # The model provider the client set: the one part of these settings that changes while the
    # adapter serves (see `ProviderRoute`).
    route: ProviderRoute = field(default_factory=ProviderRoute)

    def masked(self) -> tuple[str, ...]:
        """`private`, and the header values of every provider set so far
        (docs/decisions.md#provider-requests): read where text is masked, never kept, so that a
        session open before a change masks what the change made private."""
        added = self.route.private()
        return (*self.private, *added) if added else self.private


def from_environment(executable: str | None, env: dict[str, str]) -> RuntimeSettings:
    """The settings this process serves with: Claude's executable and extra environment, and
    what the adapter's own environment variables say (bad values warned about and ignored)."""
    return RuntimeSettings(
        executable=executable,
        env=env,
        stall_seconds=_stall_seconds(),
        max_message_bytes=env_bytes("CLAUDE_ACP_MAX_MESSAGE_BYTES", MAX_MESSAGE_BYTES),
        private=private_values(os.environ),
    )


def _stall_seconds() -> float:
    raw = os.environ.get("CLAUDE_ACP_STALL_SECONDS", "120")
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0 or value != value or value == float("inf"):
        logging.getLogger(__name__).warning("ignoring CLAUDE_ACP_STALL_SECONDS=%r", raw)
        return 120.0
    return value


def private_values(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The user's home and every secret-named environment value worth masking."""
    values = {environ.get("HOME", ""), environ.get("USERPROFILE", "")}
    values.update(v for k, v in environ.items() if _SECRET_NAME.search(k) and len(v) >= 8)
    return tuple(sorted(v for v in values if len(v) >= 4 and v not in ("/", "/tmp")))


def env_bytes(name: str, default: int) -> int:
    """A positive byte count from the environment variable `name` (`default` when unset or
    not a positive integer, with a warning)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip().replace("_", ""))
    except ValueError:
        value = 0
    if value <= 0:
        logging.getLogger(__name__).warning("ignoring %s (not a positive integer)", name)
        return default
    return value
