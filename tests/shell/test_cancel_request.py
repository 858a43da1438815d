"""`$/cancel_request` from the client for an id the agent does not hold, in process
(`agent_in_process`): nothing happens, and nothing answers the notification. A running prompt
cancelled this way, with a Claude that hangs, is end to end: tests/e2e/test_cancel_request.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.harness import Adapter
from tests.support.scripted_log import control_requests
from tests.support.shell_harness import agent_in_process


def _prompt_ids(adapter: Adapter) -> list[Any]:
    return [
        f.message["id"]
        for f in adapter.frames
        if f.direction == "outgoing" and f.message.get("method") == "session/prompt"
    ]


async def _cancel_request(adapter: Adapter, request_id: Any) -> None:
    await adapter.conn._conn.send_notification("$/cancel_request", {"requestId": request_id})


@pytest.mark.asyncio
async def test_cancel_request_for_an_id_the_agent_does_not_hold_changes_nothing(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "hello")
        [answered] = _prompt_ids(adapter)
        # An answered prompt, ids that were never sent, one of the wrong type, no id at all.
        for request_id in (answered, 987654, "987654", True, None, {"x": 1}):
            await _cancel_request(adapter, request_id)
        await adapter.conn._conn.send_notification("$/cancel_request", {})
        second = await adapter.prompt(session, "hello again")
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert control_requests(tmp_path, "interrupt") == []
    assert list(adapter.answers().values()) == [1, 1]
    # Nothing answered the notifications: every frame from the agent with an id answers a request.
    sent = {f.message.get("id") for f in adapter.frames if f.direction == "outgoing"}
    assert all(m["id"] in sent for m in adapter.incoming() if "method" not in m)
