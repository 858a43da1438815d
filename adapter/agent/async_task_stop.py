"""`_session/async_task/stop`, JetBrains AIR's Stop on a task of the Async Tasks panel, as the
reference adapter answers it (routed for every client, as there:
docs/reference-adapter.md#async-tasks).

`{sessionId, asyncTaskId}` (each trimmed, non-empty, else -32602) answers `{"stopped": true}`
once Claude Code stopped the task (its end and one line saying so go to the client first), or
`{"stopped": false}` for an unknown session or a task that cannot be stopped: unknown, ended,
a monitor, or already being stopped (`fsm.air.async_tasks.AsyncTasks.claim_stop`). Claude Code's
own refusal is a JSON-RPC error, and the task may be stopped again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from acp import RequestError

__all__ = ["STOP", "TaskStopper", "guard"]

STOP = "_session/async_task/stop"

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


class TaskStopper(Protocol):
    async def stop_async_task(self, session_id: str, task_id: str) -> bool: ...


def _read(params: Any) -> tuple[str, str]:
    if not isinstance(params, dict):
        raise RequestError.invalid_params({"params": "must be an object"})
    found = []
    for key in ("sessionId", "asyncTaskId"):
        value = params.get(key)
        if not isinstance(value, str) or not value.strip():
            raise RequestError.invalid_params({key: "must be a non-empty string"})
        found.append(value.strip())
    return found[0], found[1]


def guard(agent: TaskStopper) -> Callable[[_Handler], _Handler]:
    """A wrapper for the connection's request router that answers `_session/async_task/stop`."""

    def wrap(handler: _Handler) -> _Handler:
        async def routed(method: str, params: Any, is_notification: bool) -> Any:
            if method != STOP or is_notification:
                return await handler(method, params, is_notification)
            session_id, task_id = _read(params)
            return {"stopped": await agent.stop_async_task(session_id, task_id)}

        return routed

    return wrap
