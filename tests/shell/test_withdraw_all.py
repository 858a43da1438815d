"""The core's `WithdrawQuestions`, as the shell performs it: `SessionControls.withdraw_all` takes
back every kind of question a session can have open for the user at once (a permission request,
an AskUserQuestion form, an MCP server's form), each with `$/cancel_request` for its own request,
and Claude hears each as withdrawn."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp.schema import PermissionOption, ToolCallUpdate
from claude_agent_sdk.types import PermissionResultDeny, ToolPermissionContext

from adapter.controls.pickers import SessionConfig
from adapter.controls.questions import ToolUseAborted
from adapter.controls.session_controls import SessionControls
from adapter.wire.client_link import ClientLink


class _UnansweredLink(ClientLink):
    """A client that shows every question and answers none; it records what is withdrawn."""

    def __init__(self) -> None:
        super().__init__()
        self.ids = iter(range(1, 100))
        self.shown = 0
        self.withdrawn: list[int] = []
        self.all_shown = asyncio.Event()

    def next_request_id(self) -> int | None:
        return next(self.ids)

    async def _wait(self) -> None:
        self.shown += 1
        if self.shown == 3:
            self.all_shown.set()
        await asyncio.Event().wait()

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        name: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        await self._wait()

    async def create_elicitation(self, params: dict[str, Any]) -> dict[str, Any] | None:
        await self._wait()
        return None

    async def cancel_request(self, request_id: int) -> None:
        self.withdrawn.append(request_id)


@pytest.mark.asyncio
async def test_withdraw_all_takes_back_every_kind_of_open_question() -> None:
    link = _UnansweredLink()
    controls = SessionControls(
        session_id="s", link=link, config=SessionConfig.initial({}, None), ask_by_form=True
    )
    question = {"questions": [{"question": "Which?", "header": "Pick", "options": [
        {"label": "A", "description": "a"}, {"label": "B", "description": "b"}],
        "multiSelect": False}]}  # fmt: skip
    form = {
        "mcp_server_name": "srv",
        "message": "Your name?",
        "requested_schema": {"type": "object", "properties": {"name": {"type": "string"}}},
    }
    permission = asyncio.create_task(
        controls.permissions.decide("Bash", {"command": "ls"}, ToolPermissionContext())
    )
    asked = asyncio.create_task(
        controls.questions.ask(question, ToolPermissionContext(tool_use_id="toolu_q"))
    )
    elicited = asyncio.create_task(controls.elicitations.answer(form))
    await asyncio.wait_for(link.all_shown.wait(), 10)
    assert controls.asking_user()

    controls.withdraw_all()

    denied = await asyncio.wait_for(permission, 10)
    assert isinstance(denied, PermissionResultDeny)
    with pytest.raises(ToolUseAborted):
        await asyncio.wait_for(asked, 10)
    assert await asyncio.wait_for(elicited, 10) == {"action": "cancel"}
    assert not controls.asking_user()
    assert sorted(link.withdrawn) == [1, 2, 3]  # each request the client was shown
