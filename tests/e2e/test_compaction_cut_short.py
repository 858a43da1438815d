"""A compaction that never finishes: Claude Code starts compacting, the
turn hangs in it, and the client cancels. The prompt is answered once (`cancelled`); the
compaction ends in the client's form (a `compaction_update` `cancelled`, or the card `failed`
with "Compaction did not finish"); its half-streamed summary stops there; the next `/compact`
works and, at the same place in the session, gets a name of its own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.view.compaction_ids import compaction_id
from tests.support.harness import TIMEOUT, Adapter, spawn_adapter


async def _cut_short_then_compact(adapter: Adapter, started: str) -> tuple[str, list[Any]]:
    """One turn cancelled once the compaction shows (`started`: its first update's kind), then
    `/compact`; the session and both answers."""
    session = await adapter.new_session()
    cut = asyncio.create_task(adapter.prompt(session, "Keep going"))
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not adapter.updates(started):
        assert asyncio.get_running_loop().time() < deadline, "the compaction never showed"
        await asyncio.sleep(0.05)
    await adapter.conn.cancel(session_id=session)
    first = await asyncio.wait_for(cut, TIMEOUT)
    second = await adapter.prompt(session, "/compact")
    assert adapter.answers() == {k: 1 for k in adapter.answers()}  # each prompt answered once
    return session, [first, second]


def _stop_reasons(answers: list[Any]) -> list[str]:
    return [a.stop_reason for a in answers if isinstance(a, PromptResponse)]


@pytest.mark.asyncio
async def test_a_compaction_client_sees_it_cancelled_and_the_retry_named_anew(
    tmp_path: Path,
) -> None:
    async with spawn_adapter(
        tmp_path, "compaction_cut_short", initialize=False, capable=False
    ) as adapter:
        caps = {
            "session": {"compaction": {}},
            "fs": {"readTextFile": False, "writeTextFile": False},
        }
        params = {"protocolVersion": acp.PROTOCOL_VERSION, "clientCapabilities": caps}
        await asyncio.wait_for(adapter.conn._conn.send_request("initialize", params), TIMEOUT)
        session, answers = await _cut_short_then_compact(adapter, "compaction_update")
    assert _stop_reasons(answers) == ["cancelled", "end_turn"]
    cut, retry = compaction_id(session, 0), compaction_id(session, 0, retry=1)
    shown = [
        (u["sessionUpdate"], u["compactionId"], u.get("status") or u["content"]["text"])
        for u in adapter.updates()
        if u["sessionUpdate"].startswith("compaction")
    ]
    assert shown == [
        ("compaction_update", cut, "in_progress"),
        ("compaction_summary_chunk", cut, "Half a summ"),
        ("compaction_update", cut, "cancelled"),
        ("compaction_update", retry, "in_progress"),
        ("compaction_update", retry, "completed"),
    ]
    # The PostCompact hook's summary rides on the terminal update, as the reference sends it.
    [completed] = [u for u in adapter.updates() if u.get("status") == "completed"]
    assert completed["summary"] == [{"type": "text", "text": "Summary of compact-after."}]
    # The meter drops only for the compaction that retained something.
    retained = [u["used"] for u in adapter.updates("usage_update") if "cost" not in u]
    assert retained.count(3000) == 1


@pytest.mark.asyncio
async def test_a_card_client_sees_the_card_fail_and_the_next_one_complete(
    tmp_path: Path,
) -> None:
    async with spawn_adapter(tmp_path, "compaction_cut_short", capable=False) as adapter:
        session, answers = await _cut_short_then_compact(adapter, "tool_call")
    assert _stop_reasons(answers) == ["cancelled", "end_turn"]
    cut, retry = compaction_id(session, 0), compaction_id(session, 0, retry=1)
    cards = [
        (u["toolCallId"], u.get("status"), u.get("content"))
        for u in adapter.updates()
        if u["sessionUpdate"].startswith("tool_call")
    ]
    did_not_finish = [
        {"type": "content", "content": {"type": "text", "text": "Compaction did not finish"}}
    ]
    assert cards == [
        (cut, "in_progress", None),
        (cut, "failed", did_not_finish),
        (retry, "in_progress", None),
        (retry, "completed", None),
    ]
    # No summary text reaches a card client; the agent's text before the cut is kept.
    assert "Half a summ" not in str(adapter.updates())
    assert adapter.agent_texts()[0] == "Working."
