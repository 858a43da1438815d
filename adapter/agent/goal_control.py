"""`_session/goal`, JetBrains AIR's goal control, as the reference adapter answers it (routed
for every client, as there; `fsm.air.goals`, docs/reference-adapter.md#goals).

`{sessionId, action: "set"|"clear", objective?}` becomes Claude Code's `/goal <objective>` or
`/goal clear`: steered into the running turn, or, on an idle session, sent as a prompt whose
whole turn the answer waits for. The answer is `{}`. Bad params are -32602 in the reference's
words; an unknown session is the same error a prompt to it gets.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from acp import RequestError

from fsm import GOAL_METHOD, BadGoalRequest, goal_request

__all__ = ["GoalSetter", "guard"]

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


class GoalSetter(Protocol):
    async def goal(self, session_id: str, command: str) -> None: ...


def guard(agent: GoalSetter) -> Callable[[_Handler], _Handler]:
    """A wrapper for the connection's request router that answers `_session/goal`."""

    def wrap(handler: _Handler) -> _Handler:
        async def routed(method: str, params: Any, is_notification: bool) -> Any:
            if method != GOAL_METHOD or is_notification:
                return await handler(method, params, is_notification)
            request = goal_request(params)
            if isinstance(request, BadGoalRequest):
                raise RequestError(-32602, request.message)
            await agent.goal(request.session_id, request.command)
            return {}

        return routed

    return wrap
