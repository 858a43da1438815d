"""The client of the real Claude Code tier's asking tests: it answers forms (`answer_form`,
`decline` unless a test says otherwise) and picks one permission option (`option`; None
refuses); `PLAN` is the plan those tests have Claude Code write."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

PLAN = "# Plan\n\n1. Read notes.txt\n2. Fix the typo\n"


FormAnswer = Callable[[dict[str, Any]], Awaitable[Any]]


class AskedClient:
    """A client with forms: `answer_form` answers each `elicitation/create`, `option` is the
    permission option it picks (None refuses)."""

    def __init__(self) -> None:
        self.answer_form: FormAnswer = decline
        self.forms: list[dict[str, Any]] = []
        self.option: str | None = "allow"
        self.permission_requests: list[Any] = []
        self.offered: list[list[Any]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(tool_call)
        self.offered.append(list(options))
        if self.option is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.option)
        )

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        form = {"message": message, **mode.model_dump(mode="json", by_alias=True)}
        self.forms.append(form)
        return await self.answer_form(form)


async def decline(form: dict[str, Any]) -> Any:
    return {"action": "decline"}
