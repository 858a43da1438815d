"""`$/cancel_request` from the client: for a running `session/prompt` it cancels the
turn as `session/cancel` does (Claude interrupted, the prompt answered once `cancelled`); for
an id the agent does not hold, nothing happens."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.harness import Adapter, AdapterPool, until


def _claude_controls(tmp_path: Path, subtype: str) -> list[dict[str, Any]]:
    """The control requests of `subtype` the scripted Claude received (its own log)."""
    path = tmp_path / "claude-log.jsonl"
    if not path.exists():
        return []
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [
        e["request"]
        for e in entries
        if e["kind"] == "control" and e["request"].get("subtype") == subtype
    ]


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
    assert len(_claude_controls(tmp_path, "interrupt")) == 1
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert list(adapter.answers().values()) == [1, 1]
    # The cancel notification itself is answered with nothing (it is a notification).
    assert not [m for m in adapter.incoming() if m.get("id") is None and "error" in m]


@pytest.mark.asyncio(loop_scope="module")
async def test_cancel_request_for_an_id_the_agent_does_not_hold_changes_nothing(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(tmp_path, "success") as adapter:
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
    assert _claude_controls(tmp_path, "interrupt") == []
    assert list(adapter.answers().values()) == [1, 1]
    # Nothing answered the notifications: every frame from the agent with an id answers a request.
    sent = {f.message.get("id") for f in adapter.frames if f.direction == "outgoing"}
    assert all(m["id"] in sent for m in adapter.incoming() if "method" not in m)
