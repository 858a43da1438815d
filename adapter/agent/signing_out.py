"""`logout` → `{}`, which `acp` 0.12.1's router does not route: answered here,
before the router, as `adapter.agent.deleting` answers `session/delete`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

__all__ = ["LOGOUT", "SignsOut", "guard"]

LOGOUT = "logout"

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


class SignsOut(Protocol):
    async def logout(self) -> None: ...


def guard(agent: SignsOut) -> Callable[[_Handler], _Handler]:
    """A wrapper for the connection's request router that answers `logout` itself."""

    def wrap(handler: _Handler) -> _Handler:
        async def routed(method: str, params: Any, is_notification: bool) -> Any:
            if method != LOGOUT or is_notification:
                return await handler(method, params, is_notification)
            await agent.logout()
            return {}

        return routed

    return wrap
