"""Concurrency: one Claude process per session id whatever the request order;
`authenticate` lets running turns finish and restarts Claude after them; a reload of a session
with a prompt in flight answers that prompt `cancelled`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from acp.schema import AllowedOutcome, PromptResponse, RequestPermissionResponse

from adapter.agent.acp_agent import AUTH_METHOD_ID
from tests.support.harness import (
    TIMEOUT,
    Adapter,
    AdapterPool,
    RecordingClient,
    spawn_adapter,
    until,
)
from tests.support.raw_agent import processes_mentioning


async def _load(adapter: Adapter, session: str) -> Any:
    return await asyncio.wait_for(
        adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
        TIMEOUT,
    )


@pytest.mark.asyncio
async def test_two_concurrent_loads_of_one_id_leave_one_claude(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        assert isinstance(await adapter.prompt(session, "hello"), PromptResponse)
        await asyncio.gather(_load(adapter, session), _load(adapter, session))
        # The replaced processes go away; exactly one Claude serves the session.
        await until(lambda: len(processes_mentioning(session)) == 1, "one Claude process")
        answer = await adapter.prompt(session, "still there?")
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
        assert len(processes_mentioning(session)) == 1
    await until(lambda: not processes_mentioning(session), "no orphan after exit")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_reload_answers_the_prompt_in_flight_cancelled(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(tmp_path, "hang") as adapter:
        session = await adapter.new_session()
        prompt = asyncio.create_task(adapter.prompt(session, "take your time"))
        await until(lambda: adapter.agent_texts(), "Claude's first text")
        await _load(adapter, session)
        answer = await asyncio.wait_for(prompt, TIMEOUT)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
        assert set(answer.field_meta or {}) <= {"quota"}  # not a failure: no record
        assert adapter.answers() == {k: 1 for k in adapter.answers()}
        await until(lambda: len(processes_mentioning(session)) == 1, "one Claude process")


@dataclass(slots=True)
class HoldingClient(RecordingClient):
    """Answers a permission request only once `release` is set."""

    asked: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.set()
        await self.release.wait()
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id="allow")
        )


@pytest.mark.asyncio
async def test_authenticate_lets_a_running_turn_finish_then_restarts_claude(
    tmp_path: Path,
) -> None:
    client = HoldingClient()
    async with spawn_adapter(tmp_path, "permission", client=client) as adapter:
        busy = await adapter.new_session()
        idle = await adapter.new_session()
        prompt = asyncio.create_task(adapter.prompt(busy, "run ls"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        before = set(processes_mentioning(busy))
        idle_before = set(processes_mentioning(idle))
        await asyncio.wait_for(adapter.conn.authenticate(method_id=AUTH_METHOD_ID), TIMEOUT)
        # The busy session's turn goes on, on the same Claude (the core replaces a session's
        # process before its next prompt, never under a running turn).
        assert set(processes_mentioning(busy)) == before
        client.release.set()
        answer = await asyncio.wait_for(prompt, TIMEOUT)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
        # No failure record: the turn's own usage split (`quota`) is all its `_meta` holds.
        assert set(answer.field_meta or {}) <= {"quota"}, answer.field_meta
        # The next prompt of each session runs on a fresh Claude, signed in anew.
        client.release.set()
        for session, old in ((busy, before), (idle, idle_before)):
            again = await adapter.prompt(session, "again")
            assert isinstance(again, PromptResponse) and again.stop_reason == "end_turn"
            await until(lambda s=session, o=old: not set(processes_mentioning(s)) & o, "restart")
            assert len(processes_mentioning(session)) == 1
        assert not adapter.records()
