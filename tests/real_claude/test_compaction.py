"""`/compact` with the real Claude Code CLI: the CLI sends its summarization
request to the Messages API double, and the client sees the compaction in its form (the
"Compact conversation" card, or `compaction_update`s with the summary the CLI's PostCompact
hook reports), then the meter drop to the context the CLI says it retained; `session/load` of
the CLI's own transcript names the compaction as the live session did. An idle session whose
last request wrote a one-hour cache gets the adapter's own `/compact` (trigger `idle`).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble, Recorded
from tests.real_claude.support import cli_env, load, run_turn
from tests.support.harness import TIMEOUT, Adapter, spawn_adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

# A long conversation, as the API reports its size: what compaction shrinks.
LONG = 150_000
SUMMARY = "The user greeted Claude; nothing else is pending."
# What the model answers the CLI's summarization request with: scratch, then the summary.
SUMMARIZED = f"<analysis>Only a greeting so far.</analysis>\n<summary>{SUMMARY}</summary>"


def _asks_for_a_summary(request: Recorded) -> bool:
    last = request.body["messages"][-1]
    return "Please provide your summary" in json.dumps(last) and "hi" in json.dumps(request.body)


def _facts(update: dict[str, Any]) -> dict[str, Any] | None:
    """A compaction card report's facts: in `rawOutput`, or for a JetBrains AIR client (the
    capable mode's client is one) in `_meta.jetbrains.air.contextCompaction`."""
    air = update.get("_meta", {}).get("jetbrains", {}).get("air", {})
    return air["contextCompaction"] if "contextCompaction" in air else update.get("rawOutput")


def _used(updates: list[dict[str, Any]]) -> list[int]:
    return [u["used"] for u in updates if u.get("sessionUpdate") == "usage_update"]


async def test_compact_is_a_card_then_the_meter_drops_and_load_names_it_alike(
    adapter: Adapter, double: MessagesApiDouble
) -> None:
    double.script(Answer("Hello.", input_tokens=LONG), Answer(SUMMARIZED))
    first = await run_turn(adapter, "hi")
    assert max(_used(first.updates())) > LONG
    compact = await run_turn(adapter, "/compact", first.session_id)
    assert compact.response.stop_reason == "end_turn"
    assert _asks_for_a_summary(double.messages()[-1])
    [(card_id, card)] = compact.tool_calls().items()
    opened, done = card
    meta: dict[str, Any] = {"claudeCode": {"toolName": "compact"}}
    air = "jetbrains" in opened["_meta"]
    if air:  # an AIR client knows the card by the compaction's facts
        started = {"version": 1, "contextCompaction": {"version": 1}}
        meta = {**meta, "jetbrains": {"air": started}}
    assert opened == {
        "sessionUpdate": "tool_call",
        "toolCallId": card_id,
        "name": "compact",
        "title": "Compact conversation",
        "kind": "think",
        "status": "in_progress",
        "_meta": meta,
    }
    facts = _facts(done)
    assert facts is not None and (done["status"], facts["trigger"]) == ("completed", "manual")
    assert ("rawOutput" in done) is not air  # AIR reads the facts from `_meta` alone
    retained = facts["postTokens"]
    assert facts["preTokens"] > LONG and 0 < retained < LONG
    # Right after the card, the meter shows what the CLI retained (then the turn's end).
    after = compact.updates()[compact.updates().index(done) + 1 :]
    assert _used(after)[0] == retained < LONG
    # A card client is shown no summary text.
    assert SUMMARY not in json.dumps(compact.frames)
    assert first.cwd is not None
    replay = await load(adapter, first.session_id, first.cwd)
    [(replayed_id, replayed)] = replay.tool_calls().items()
    assert replayed_id == card_id
    assert (_facts(replayed[-1]) or {})["trigger"] == "manual"


async def test_a_compaction_client_gets_updates_and_the_hooks_summary(
    double: MessagesApiDouble, tmp_path: Path
) -> None:
    double.script(Answer("Hello.", input_tokens=LONG), Answer(SUMMARIZED))
    env = cli_env(double, tmp_path)
    async with spawn_adapter(
        tmp_path, initialize=False, capable=False, scripted=False, env=env
    ) as client:
        # acp 0.12.1 drops `session.compaction`: the raw request carries it.
        caps = {
            "session": {"compaction": {}},
            "fs": {"readTextFile": False, "writeTextFile": False},
        }
        params = {"protocolVersion": acp.PROTOCOL_VERSION, "clientCapabilities": caps}
        await asyncio.wait_for(client.conn._conn.send_request("initialize", params), TIMEOUT)
        first = await run_turn(client, "hi")
        compact = await run_turn(client, "/compact", first.session_id)
        assert first.cwd is not None
        replay = await load(client, first.session_id, first.cwd)
    assert compact.response.stop_reason == "end_turn"
    assert _asks_for_a_summary(double.messages()[-1])
    shown = [u for u in compact.updates() if u["sessionUpdate"] != "usage_update"]
    [compaction_id] = {u["compactionId"] for u in shown}
    # The summary is the PostCompact hook's, cleaned as the reference adapter cleans it.
    # It rides on the terminal update, as the reference sends it.
    update = {"sessionUpdate": "compaction_update", "compactionId": compaction_id}
    assert shown == [
        {**update, "status": "in_progress"},
        {**update, "status": "completed", "summary": [{"type": "text", "text": SUMMARY}]},
    ]
    assert compact.tool_calls() == {}
    assert 0 < _used(compact.updates())[0] < LONG
    # The load names it as the live session did.
    loaded = replay.updates("compaction_update")
    assert [(u["compactionId"], u["status"]) for u in loaded] == [
        (compaction_id, "in_progress"),
        (compaction_id, "completed"),
    ]
    # The transcript's summary entry is the replay's summary.
    chunks = replay.updates("compaction_summary_chunk")
    assert SUMMARY in "".join(c["content"]["text"] for c in chunks)


async def test_an_idle_session_compacts_itself_through_the_real_cli(
    double: MessagesApiDouble, tmp_path: Path
) -> None:
    # The reference's idle compaction, its delay cut short and its minimum at the floor (the
    # CLI would compact a context over its 200k window on its own first).
    double.script(
        Answer("Hello.", input_tokens=LONG, cache_ttl="1h"),
        Answer(SUMMARIZED),
        Answer("Back."),
    )
    idle = {
        "CLAUDE_AGENT_ACP_IDLE_COMPACT_DELAY_MS": "300",
        "CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS": "100000",
    }
    env = cli_env(double, tmp_path, **idle)
    async with spawn_adapter(tmp_path, scripted=False, env=env) as client:
        first = await run_turn(client, "hi")

        def compacted() -> bool:
            return any(
                u.get("status") == "completed" and _facts(u)
                for u in client.updates("tool_call_update")
            )

        async def wait() -> None:
            while not (compacted() and "idle compaction ended" in client.stderr()):
                await asyncio.sleep(0.1)

        await asyncio.wait_for(wait(), TIMEOUT)
        again = await run_turn(client, "go on", first.session_id)
    assert _asks_for_a_summary(double.messages()[1])
    [done] = [u for u in client.updates("tool_call_update") if (_facts(u) or {}).get("trigger")]
    facts = _facts(done) or {}
    assert facts["trigger"] == "idle" and facts["preTokens"] > LONG
    assert again.response.stop_reason == "end_turn"
    said = [u for u in again.updates() if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(u["content"]["text"] for u in said) == "Back."
