"""`$/cancel_request` from the client: for a running `session/prompt` it cancels the
turn as `session/cancel` does (Claude interrupted, the prompt answered once `cancelled`), here
with a Claude that hangs. For an id the agent does not hold nothing happens: in process,
tests/shell/test_cancel_request.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.harness import Adapter, AdapterPool, until
from tests.support.scripted_log import control_requests


def _prompt_ids(adapter: Adapter) -> list[Any]:
    return [
        f.message["id"]
        for f in adapter.frames
        if f.direction == "outgoing" and f.message.get("method") == "session/prompt"
    ]


async def _cancel_request(adapter: Adapter, request_id: Any) -> None:
    await adapter.conn._conn.send_notification("$/cancel_request", {"requestId": request_id})


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_cancel_request_for_a_running_prompt_cancels_it(
    adapters: AdapterPool, tmp_path: Path, capable: bool
) -> None:
    async with adapters.session_adapter(tmp_path, "hang", capable=capable) as adapter:
        session = await adapter.new_session()
        pending = asyncio.create_task(adapter.prompt(session, "think hard"))
        await until(
            lambda: "Let me think about this for a while." in adapter.agent_texts(),
            "the hanging turn to start",
        )
        [prompt_id] = _prompt_ids(adapter)
        await _cancel_request(adapter, prompt_id)
        answer = await pending
        after = await adapter.prompt(session, "never mind")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    # Claude was interrupted, once, and the session goes on.
    assert len(control_requests(tmp_path, "interrupt")) == 1
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert list(adapter.answers().values()) == [1, 1]
    # The cancel notification itself is answered with nothing (it is a notification).
    assert not [m for m in adapter.incoming() if m.get("id") is None and "error" in m]
