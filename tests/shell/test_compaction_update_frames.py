"""Compaction for a client that declares `clientCapabilities.session.compaction`, in process:
`compaction_update`s and the streamed summary as `compaction_summary_chunk`s, not the "Compact
conversation" card (which every other client keeps: `test_session_state.py`), and the same
`usage_update` with the context retained.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.view.compaction_ids import compaction_id
from tests.support.harness import OPT_IN, TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process


def _update(compaction_id: str, status: str, **fields: Any) -> dict[str, Any]:
    return {
        "sessionUpdate": "compaction_update",
        "compactionId": compaction_id,
        "status": status,
        **fields,
    }


def _chunk(compaction: str, text: str) -> dict[str, Any]:
    return {
        "sessionUpdate": "compaction_summary_chunk",
        "compactionId": compaction,
        "content": {"type": "text", "text": text},
    }


def _retained(used: int) -> dict[str, Any]:
    return {
        "sessionUpdate": "usage_update",
        "used": used,
        "size": 200000,
        "_meta": {"_claude/model": "claude-sonnet-4-5"},
    }


def _facts(**known: Any) -> dict[str, Any]:
    """A JetBrains AIR client's `_meta` on a compaction report: the compaction's facts."""
    return {"jetbrains": {"air": {"version": 1, "contextCompaction": {"version": 1, **known}}}}


def _changed_facts(**known: Any) -> dict[str, Any]:
    """`_facts` on a card's update: what did not change since the card opened is not sent
    again to an AIR client (`fsm.ChangedMetaFilter`)."""
    return {"jetbrains": {"air": {"contextCompaction": {"version": 1, **known}}}}


async def _initialize_raw(adapter: Adapter, caps: dict[str, Any]) -> None:
    """`initialize` with the client capabilities `caps` (wire names), sent raw: acp 0.12.1's
    models drop `session.compaction`."""
    params = {"protocolVersion": acp.PROTOCOL_VERSION, "clientCapabilities": caps}
    await asyncio.wait_for(adapter.conn._conn.send_request("initialize", params), TIMEOUT)


@pytest.mark.asyncio
async def test_a_compaction_client_gets_compaction_updates_and_no_card(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "compaction", initialize=False, capable=False) as adapter:
        caps = {
            "session": {"compaction": {}},
            "fs": {"readTextFile": False, "writeTextFile": False},
        }
        await _initialize_raw(adapter, caps)
        session = await adapter.new_session()
        answers = [
            await adapter.prompt(session, text) for text in ("Go on", "/compact", "/compact")
        ]
    assert all(isinstance(a, PromptResponse) and a.stop_reason == "end_turn" for a in answers)
    shown = [
        u
        for u in adapter.updates()
        if u["sessionUpdate"].startswith(("compaction", "tool_call"))
        or (u["sessionUpdate"] == "usage_update" and "cost" not in u and u["used"] > 100)
    ]
    auto, manual, failed = (compaction_id(session, n) for n in range(3))
    assert shown == [
        _update(auto, "in_progress"),
        _chunk(auto, "The user asked for "),
        _chunk(auto, "a greeting function."),
        # The PostCompact hook's summary is not sent again where it streamed ...
        _update(auto, "completed"),
        _retained(12000),
        _update(manual, "in_progress"),
        # ... and is the terminal update's summary where none streamed: scratch dropped,
        # tags off, as the reference sends it.
        _update(
            manual, "completed", summary=[{"type": "text", "text": "Summary of compact-manual."}]
        ),
        _retained(3000),
        _update(failed, "in_progress"),
        _update(failed, "failed", error="Conversation too short to compact"),
    ]


@pytest.mark.asyncio
async def test_an_air_compaction_client_gets_the_facts_on_its_updates(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "compaction", initialize=False, capable=False) as adapter:
        caps = {
            "session": {"compaction": {}},
            "fs": {"readTextFile": False, "writeTextFile": False},
            "_meta": OPT_IN,
        }
        await _initialize_raw(adapter, caps)
        session = await adapter.new_session()
        for text in ("Go on", "/compact", "/compact"):
            await adapter.prompt(session, text)
    shown = adapter.updates("compaction_update")
    auto, manual, failed = (compaction_id(session, n) for n in range(3))
    summary = [{"type": "text", "text": "Summary of compact-manual."}]
    counts = {"postTokens": 3000, "durationMs": 4100}
    # As the reference sends them: `{version: 1}` at the start, at the `success` status's
    # completion and on the failure (its error has its own field); the boundary that follows a
    # completion brings its trigger and counts in one more `completed`.
    assert shown == [
        _update(auto, "in_progress", _meta=_facts()),
        _update(auto, "completed", _meta=_facts()),
        _update(
            auto,
            "completed",
            _meta=_facts(trigger="automatic", preTokens=180000, postTokens=12000, durationMs=4100),
        ),
        _update(manual, "in_progress", _meta=_facts()),
        _update(manual, "completed", _meta=_facts(), summary=summary),
        _update(manual, "completed", _meta=_facts(trigger="manual", preTokens=40000, **counts)),
        _update(failed, "in_progress", _meta=_facts()),
        _update(failed, "failed", _meta=_facts(), error="Conversation too short to compact"),
    ]


def _summary(ident: str) -> str:
    return f"This session is being continued from a previous conversation ({ident})."


async def _compacted_session(tmp_path: Path) -> tuple[str, Adapter]:
    async with agent_in_process(tmp_path, "compaction") as adapter:
        session = await adapter.new_session()
        for text in ("Go on", "/compact", "/compact"):
            await adapter.prompt(session, text)
    return session, adapter


async def _loaded(
    tmp_path: Path, caps: dict[str, Any], *, cards_capable: bool
) -> tuple[str, Adapter, Adapter, Adapter]:
    """A compacted session (its id and the live adapter), then loaded by a client with
    compaction updates that initializes with `caps`, and by one that shows cards."""
    session, live = await _compacted_session(tmp_path)
    shared = {"CLAUDE_CONFIG_DIR": str(live.config_dir)}
    load = {"cwd": str(live.workdir), "session_id": session, "mcp_servers": []}
    async with agent_in_process(
        tmp_path / "updates", "compaction", env=shared, initialize=False
    ) as updates:
        await _initialize_raw(updates, caps)
        await asyncio.wait_for(updates.conn.load_session(**load), TIMEOUT)
    async with agent_in_process(
        tmp_path / "cards", "compaction", env=shared, capable=cards_capable
    ) as cards:
        await asyncio.wait_for(cards.conn.load_session(**load), TIMEOUT)
    return session, live, updates, cards


def _compaction_shown(adapter: Adapter) -> list[dict[str, Any]]:
    kinds = ("compaction_update", "compaction_summary_chunk", "tool_call", "tool_call_update")
    return [u for u in adapter.updates() if u["sessionUpdate"] in kinds]


@pytest.mark.asyncio
async def test_session_load_shows_past_compactions_to_each_kind_of_client(tmp_path: Path) -> None:
    caps = {"session": {"compaction": {}}, "fs": {"readTextFile": False, "writeTextFile": False}}
    session, live, a, cards = await _loaded(tmp_path, caps, cards_capable=False)
    # The transcript keeps each compaction's boundary (named by its place) and its summary; a
    # failed one leaves nothing there.
    assert _compaction_shown(a) == [
        part
        for n, ident in enumerate(("compact-auto", "compact-manual"))
        for part in (
            _update(compaction_id(session, n), "in_progress"),
            _chunk(compaction_id(session, n), _summary(ident)),
            _update(compaction_id(session, n), "completed"),
        )
    ]
    meta = {"claudeCode": {"toolName": "compact"}}
    assert _compaction_shown(cards) == [
        part
        for ident, trigger, pre in (
            (compaction_id(session, 0), "automatic", 180000),
            (compaction_id(session, 1), "manual", 40000),
        )
        for part in (
            {
                "sessionUpdate": "tool_call",
                "toolCallId": ident,
                "name": "compact",
                "title": "Compact conversation",
                "kind": "think",
                "status": "in_progress",
                "_meta": meta,
            },
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": ident,
                "status": "completed",
                "_meta": meta,
                "rawOutput": {"trigger": trigger, "preTokens": pre},
            },
        )
    ]
    # The summary is compaction's, never shown as if the user had written it.
    for adapter in (a, cards):
        chunks = adapter.updates("user_message_chunk") + adapter.updates("agent_message_chunk")
        assert not any("continued from" in str(c["content"]) for c in chunks)
    # One name per compaction: what the live session called each is what its load calls it.
    live_ids = [u["toolCallId"] for u in live.updates("tool_call") if u.get("name") == "compact"]
    loaded = [
        u["compactionId"] for u in a.updates("compaction_update") if u["status"] == "completed"
    ]
    assert live_ids[:2] == loaded == [u["toolCallId"] for u in cards.updates("tool_call")]
    assert len(set(live_ids)) == 3  # the failed third kept a name of its own


@pytest.mark.asyncio
async def test_session_load_tells_an_air_client_the_facts(tmp_path: Path) -> None:
    caps = {"session": {"compaction": {}}, "_meta": OPT_IN}
    _, _, a, cards = await _loaded(tmp_path, caps, cards_capable=True)
    stored = [("automatic", 180000), ("manual", 40000)]  # the transcript keeps no more counts
    assert [u["_meta"] for u in a.updates("compaction_update")] == [
        meta
        for trigger, pre in stored
        for meta in (_facts(), _facts(trigger=trigger, preTokens=pre))
    ]
    # The cards carry them in `_meta`, and no `rawOutput` repeats them. A replay goes through
    # the changed-meta filter as live updates do, as the reference's does: a card's update
    # carries only what changed since it opened (`fsm.ChangedMetaFilter`).
    card_meta = {"claudeCode": {"toolName": "compact"}}
    assert [
        (u["_meta"], "rawOutput" in u)
        for u in cards.updates()
        if u["sessionUpdate"] in ("tool_call", "tool_call_update")
    ] == [
        shown
        for trigger, pre in stored
        for shown in (
            ({**card_meta, **_facts()}, False),
            (_changed_facts(trigger=trigger, preTokens=pre), False),
        )
    ]
