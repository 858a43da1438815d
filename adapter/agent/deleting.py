"""`session/delete {sessionId}` → `{}`, which `acp` 0.12.1's router does not
route: answered here, before the router, as `adapter.agent.aliases` answers `session/set_model`.

As the reference adapter does (docs/reference-adapter.md#session-delete), a session running
here is torn down first (its prompt in flight answered `cancelled`, its Claude closed), then
its transcript and its subagent transcripts are removed through the SDK's `delete_session`,
and our never-prompted marker too; it is gone from `session/list`. Unlike the reference, which
answers `{}` whatever the id, an id nobody knows gets -32002, as `session/close` does.

A JetBrains AIR client that has not negotiated the session index sends it to mark a session
done: its session is torn down the same way and then archived, never removed
(`adapter.claude.session_archive`, docs/decisions.md#session-delete-from-air).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from acp import RequestError

__all__ = ["DELETE", "SessionDeleter", "guard"]

DELETE = "session/delete"

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


class SessionDeleter(Protocol):
    async def delete_session(self, session_id: str) -> None: ...


def guard(agent: SessionDeleter) -> Callable[[_Handler], _Handler]:
    """A wrapper for the connection's request router that answers `session/delete` itself."""

    def wrap(handler: _Handler) -> _Handler:
        async def routed(method: str, params: Any, is_notification: bool) -> Any:
            if method != DELETE or is_notification:
                return await handler(method, params, is_notification)
            session_id = params.get("sessionId") if isinstance(params, dict) else None
            if not isinstance(session_id, str) or not session_id:
                raise RequestError.invalid_params({"sessionId": "must be a non-empty string"})
            await agent.delete_session(session_id)
            return {}

        return routed

    return wrap
