"""Client capabilities that `acp` 0.12.1 drops when it parses `initialize`, read from the raw
request: `clientCapabilities.session.notices` (ACP notices, DECISIONS row 34)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["RawCapabilities"]

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


class RawCapabilities:
    """What the client's last raw `initialize` declared; `wrap` installs the reader."""

    def __init__(self) -> None:
        self.notices = False

    def wrap(self, handler: _Handler) -> _Handler:
        async def read(method: str, params: Any, is_notification: bool) -> Any:
            if method == "initialize" and isinstance(params, dict):
                self.notices = _declares_notices(params.get("clientCapabilities"))
            return await handler(method, params, is_notification)

        return read


def _declares_notices(capabilities: object) -> bool:
    # ACP v1: a client opts in with `session.notices: {}` (an object; anything else is no).
    session = capabilities.get("session") if isinstance(capabilities, dict) else None
    return isinstance(session, dict) and isinstance(session.get("notices"), dict)
