"""A turn whose background subagent hangs, end to end through real stdio with a real ACP client
and the scripted Claude (`background_hang`, `background_asks`, tests/support/scripted/): cancelled
while the subagent runs, the prompt is answered `cancelled`, once; closed, it is answered once,
no question stays open, and the session's Claude process ends. The rest of background work and
steering is played in process: tests/shell/test_background_and_steering.py.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse, RequestPermissionResponse

from tests.support.harness import (
    TIMEOUT,
    AdapterPool,
    RecordingClient,
    until,
)
from tests.support.raw_agent import processes_mentioning
from tests.support.said import until_said

PERMISSION = "session/request_permission"


@pytest.mark.asyncio(loop_scope="module")
async def test_cancelled_while_the_subagent_runs(adapters: AdapterPool, tmp_path: Path) -> None:
    async with adapters.session_adapter(tmp_path, "background_hang") as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "audit"))
        await until_said(adapter, "The audit runs in the background.")
        await asyncio.sleep(0.3)
        assert not prompt.done()  # held open for the subagent
        await adapter.conn.cancel(session_id=session)
        answer = await prompt
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert set(adapter.answers().values()) == {1} and adapter.records() == []


@pytest.mark.asyncio(loop_scope="module")
async def test_closed_while_the_subagent_runs(adapters: AdapterPool, tmp_path: Path) -> None:
    async with adapters.session_adapter(tmp_path, "background_hang") as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "audit"))
        await until_said(adapter, "The audit runs in the background.")
        await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        answer = await prompt
    # Answered once, however the close and the subagent's end meet: cancelled or an error.
    closed = isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert closed or isinstance(answer, acp.RequestError)
    assert set(adapter.answers().values()) == {1}
    assert not [m for m in adapter.incoming() if m.get("method") == "session/request_permission"]
    # No Claude process of the session is left.
    await until(lambda: not processes_mentioning(session), "the closed session's Claude to end")


@dataclass(slots=True)
class _NeverAnswers(RecordingClient):
    """A user who leaves the permission question open."""

    asked: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(tool_call)
        self.asked.set()
        await asyncio.Event().wait()  # until the agent withdraws it and the SDK cancels this
        raise AssertionError("unreachable")


@pytest.mark.asyncio(loop_scope="module")
async def test_closed_while_the_held_turns_subagent_asks(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # The question the subagent asks inside the held turn is withdrawn when the session
    # closes: no question is left open, the prompt is answered once, no Claude is left.
    client = _NeverAnswers()
    async with adapters.session_adapter(tmp_path, "background_asks", client=client) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.ensure_future(adapter.prompt(session, "audit"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        answer = await prompt
        await until(lambda: not processes_mentioning(session), "the closed session's Claude to end")
    closed = isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert closed or isinstance(answer, acp.RequestError)
    assert set(adapter.answers().values()) == {1}
    [asked] = [m for m in adapter.incoming() if m.get("method") == PERMISSION]
    withdrawn = [m for m in adapter.incoming() if m.get("method") == "$/cancel_request"]
    assert [m["params"]["requestId"] for m in withdrawn] == [asked["id"]]
