"""Client capabilities that `acp` 0.12.1 drops when it parses `initialize`, read from the raw
request: `clientCapabilities.session.notices` (ACP notices, docs/decisions.md#acp-notices) and
`session.compaction` (`compaction_update`s instead of the "Compact conversation" card)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["RawCapabilities"]

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


class RawCapabilities:
    """What the client's last raw `initialize` declared; `wrap` installs the reader."""

    def __init__(self) -> None:
        self.notices = False
        self.compaction = False

    def wrap(self, handler: _Handler) -> _Handler:
        async def read(method: str, params: Any, is_notification: bool) -> Any:
            if method == "initialize" and isinstance(params, dict):
                capabilities = params.get("clientCapabilities")
                self.notices = _declares(capabilities, "notices")
                self.compaction = _declares(capabilities, "compaction")
            return await handler(method, params, is_notification)

        return read


def _declares(capabilities: object, name: str) -> bool:
    # ACP v1: a client opts in with `session.<name>: {}` (an object; anything else is no).
    session = capabilities.get("session") if isinstance(capabilities, dict) else None
    return isinstance(session, dict) and isinstance(session.get(name), dict)
