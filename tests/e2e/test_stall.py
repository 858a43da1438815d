"""A silent Claude: connection warnings under the turn's id, revised as the wait grows, on the wall
clock of a Claude that hangs. A turn that goes idle without a result is played in process:
tests/shell/test_claude_faults.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, Adapter, spawn_adapter

TITLE_ONLY = {"sessionUpdate", "title", "updatedAt"}


async def _wait_for_records(adapter: Adapter, count: int) -> None:
    async with asyncio.timeout(TIMEOUT):
        while len(adapter.records()) < count:
            await asyncio.sleep(0.05)


async def _wait_for_log(adapter: Adapter, text: str, count: int) -> None:
    async with asyncio.timeout(TIMEOUT):
        while adapter.stderr_path.read_text(encoding="utf-8", errors="replace").count(text) < count:
            await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_silence_warns_and_revises_then_cancel_still_works(tmp_path: Path) -> None:
    env = {"CLAUDE_ACP_STALL_SECONDS": "1"}
    async with spawn_adapter(tmp_path, "hang", env=env) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.create_task(adapter.prompt(session, "take your time"))
        # Two silences in a row: one entry, revised in place.
        await _wait_for_records(adapter, 2)
        await adapter.conn.cancel(session_id=session)
        answer = await prompt
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    records = adapter.records()
    assert {carrier for carrier, _ in records} == {"session_info_update"}
    first, second = records[0][1], records[1][1]
    assert first["id"] == second["id"] and first["id"].endswith(":error")
    assert (first["revision"], second["revision"]) == (1, 2)
    for record in (first, second):
        assert record["category"] == "connection"
        assert record["severity"] == "warning"
        assert record["actions"] == []
        assert record["title"].startswith("Claude has not responded for ")
        assert "you can cancel" in record["title"]
    # Cancelling is never a failure (docs/decisions.md#refusal-and-cancellation): no error record
    # follows the warnings.
    assert all(r["severity"] == "warning" for _, r in records)


@pytest.mark.asyncio
async def test_legacy_client_sees_nothing_new_while_claude_is_silent(tmp_path: Path) -> None:
    env = {"CLAUDE_ACP_STALL_SECONDS": "1"}
    async with spawn_adapter(tmp_path, "hang", capable=False, env=env) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.create_task(adapter.prompt(session, "take your time"))
        # The watchdog woke twice (its log says so) and the client was shown nothing.
        await _wait_for_log(adapter, "Claude has been silent for", 2)
        assert adapter.records() == [] and adapter.updates("session_info_update") == []
        await adapter.conn.cancel(session_id=session)
        answer = await prompt
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert adapter.records() == []
    # Only the session's title, never a record.
    assert [u for u in adapter.updates("session_info_update") if set(u) != TITLE_ONLY] == []


@pytest.mark.asyncio
async def test_prompts_queue_in_order_and_cancel_reaches_the_queued_one(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "hang") as adapter:
        session = await adapter.new_session()
        first = asyncio.create_task(adapter.prompt(session, "one"))
        # "one" is Claude's turn (it hangs) once the scripted Claude has written it down.
        await _wait_until(lambda: adapter.prompt_texts(session) == ["one"])
        second = asyncio.create_task(adapter.prompt(session, "two"))
        await asyncio.sleep(0.5)  # lets "two" reach the adapter's queue; nothing is timed
        await adapter.conn.cancel(session_id=session)
        answers = await asyncio.gather(first, second)
        # The session still serves prompts afterwards.
        third = await adapter.prompt(session, "three")
    assert [a.stop_reason for a in answers if isinstance(a, PromptResponse)] == [
        "cancelled",
        "cancelled",
    ]
    assert isinstance(third, PromptResponse) and third.stop_reason == "end_turn"
    # The queued prompt is settled at once (`cancel_queued`), before the running turn, whose
    # end waits for Claude's interrupt; and it never reached Claude at all.
    assert _answered_texts(adapter)[:2] == ["two", "one"]
    assert adapter.prompt_texts(session) == ["one", "three"]


def _answered_texts(adapter: Adapter) -> list[str]:
    """The text of each answered `session/prompt`, in the order the answers arrived."""
    asked = {
        f.message["id"]: f.message["params"]["prompt"][0]["text"]
        for f in adapter.frames
        if f.direction == "outgoing" and f.message.get("method") == "session/prompt"
    }
    return [
        asked[f.message["id"]]
        for f in adapter.frames
        if f.direction == "incoming" and "method" not in f.message and f.message.get("id") in asked
    ]


async def _wait_until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await asyncio.sleep(0.05)
