"""A client with ACP forms (`elicitation.form`), for the end-to-end tests of Claude's questions
and MCP servers' forms: `FormClient` answers each `elicitation/create` with an `Answer` (`accept`,
`action`, `never`), and `forms_sent` and `withdrawn` read what the agent sent it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import acp
from acp.schema import RequestPermissionResponse

from tests.support.harness import Adapter

FORMS: dict[str, Any] = {"elicitation": {"form": {}}}


Answer = Callable[[dict[str, Any]], Awaitable[Any]]


class FormClient:
    """A client with forms: `answer` gets each form's params and returns the client's answer
    (a dict, or raises `acp.RequestError` to answer with an error)."""

    def __init__(self, answer: Answer) -> None:
        self._answer = answer
        self.forms: list[dict[str, Any]] = []
        self.asked = asyncio.Event()
        self.permission_requests: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def request_permission(self, **kwargs: Any) -> RequestPermissionResponse:
        self.permission_requests.append(kwargs)
        raise acp.RequestError.invalid_request({"reason": "no permission expected"})

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        form = {"message": message, **mode.model_dump(mode="json", by_alias=True)}
        self.forms.append(form)
        self.asked.set()
        return await self._answer(form)


def accept(content: Any) -> Answer:
    async def answer(form: dict[str, Any]) -> Any:
        return {"action": "accept", "content": content}

    return answer


def action(name: str) -> Answer:
    async def answer(form: dict[str, Any]) -> Any:
        return {"action": name}

    return answer


async def never(form: dict[str, Any]) -> Any:
    await asyncio.Event().wait()


def forms_sent(adapter: Adapter) -> list[dict[str, Any]]:
    return [m for m in adapter.incoming() if m.get("method") == "elicitation/create"]


def withdrawn(adapter: Adapter) -> list[Any]:
    return [
        m["params"]["requestId"]
        for m in adapter.incoming()
        if m.get("method") == "$/cancel_request"
    ]
