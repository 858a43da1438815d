"""Idle compaction, in process (`agent_in_process`): a session left idle with at least 200,000
tokens of context gets the adapter's own `/compact` (trigger `idle` on its card or its updates),
once, and then serves the next prompt; a small context, a rate-limit status other than `allowed`, or
a settings file that turns it off, and nothing is sent. The delay is the reference's variable, set
short (`CLAUDE_AGENT_ACP_IDLE_COMPACT_DELAY_MS`); every wait is on a frame or a log line, with the
suite's generous timeout, never on the clock.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.view.compaction_ids import compaction_id
from tests.support.harness import TIMEOUT, Adapter, until
from tests.support.shell_harness import agent_in_process

SHORT = {"CLAUDE_AGENT_ACP_IDLE_COMPACT_DELAY_MS": "200"}
META = {"claudeCode": {"toolName": "compact"}}
IDLE = {"claudeCode": {"trigger": "idle"}}


def _air(**known: Any) -> dict[str, Any]:
    """The card's `_meta` for a JetBrains AIR client (the harness's opt-in is one): the
    compaction's facts in `jetbrains.air.contextCompaction`."""
    facts = {"version": 1, **known}
    return {**META, "jetbrains": {"air": {"version": 1, "contextCompaction": facts}}}


def _changed(**known: Any) -> dict[str, Any]:
    """An update's `_meta` for an AIR client: only what changed since the card opened (the
    compaction's facts); the unchanged keys are not sent again (`fsm.ChangedMetaFilter`)."""
    return {"jetbrains": {"air": {"contextCompaction": {"version": 1, **known}}}}


def _card_done(adapter: Adapter) -> bool:
    cards = {
        u["toolCallId"]
        for u in adapter.updates("tool_call")
        if (u.get("_meta") or {}).get("claudeCode") == META["claudeCode"]
    }
    return any(
        u.get("status") in ("completed", "failed") and u["toolCallId"] in cards
        for u in adapter.updates("tool_call_update")
    )


def _compaction_frames(adapter: Adapter) -> list[dict[str, Any]]:
    kinds = ("compaction_update", "compaction_summary_chunk", "tool_call", "tool_call_update")
    return [u for u in adapter.updates() if u["sessionUpdate"] in kinds]


def _retained(adapter: Adapter) -> list[int]:
    return [
        u["used"]
        for u in adapter.updates("usage_update")
        if "cost" not in u and "_claude/rateLimit" not in u.get("_meta", {})
    ]


async def _initialize_for_compaction(adapter: Adapter) -> None:
    # acp 0.12.1's models drop `session.compaction`: the raw request carries it.
    caps = {"session": {"compaction": {}}, "fs": {"readTextFile": False, "writeTextFile": False}}
    params = {"protocolVersion": acp.PROTOCOL_VERSION, "clientCapabilities": caps}
    await asyncio.wait_for(adapter.conn._conn.send_request("initialize", params), TIMEOUT)


def _ended(adapter: Adapter) -> bool:
    return "idle compaction ended" in adapter.stderr()


def _error_records(adapter: Adapter) -> list[dict[str, Any]]:
    return [record for _, record in adapter.records() if record.get("severity") == "error"]


@pytest.mark.asyncio
async def test_an_idle_session_with_a_full_context_compacts_once_then_serves(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "idle_compaction", env=SHORT) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "Read the codebase")
        await until(lambda: _card_done(adapter) and _ended(adapter), "the idle compaction")
        second = await adapter.prompt(session, "Now fix the bug")
        texts = adapter.prompt_texts(session)
        stderr = adapter.stderr()
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    # Claude got the adapter's `/compact` between the two prompts, and only one.
    assert texts == ["Read the codebase", "/compact", "Now fix the bug"]
    ident = compaction_id(session, 0)
    assert _compaction_frames(adapter) == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": ident,
            "name": "compact",
            "title": "Compact conversation",
            "kind": "think",
            "status": "in_progress",
            "_meta": _air(),
        },
        {
            # The facts are AIR's, in `_meta`; no `rawOutput` repeats them.
            "sessionUpdate": "tool_call_update",
            "toolCallId": ident,
            "status": "completed",
            "_meta": _changed(trigger="idle", preTokens=210000, postTokens=9000, durationMs=4100),
        },
    ]
    # The meter: full after the first turn, what the compaction kept after it.
    meter = _retained(adapter)
    assert meter[meter.index(210000) + 1] == 9000
    assert "Back to work." in adapter.agent_texts()
    # Every prompt of the client's got exactly one answer; the adapter's own got none out.
    assert list(adapter.answers().values()) == [1, 1]
    assert stderr.count("sending /compact") == 1
    assert not adapter.records()


@pytest.mark.asyncio
async def test_a_compaction_client_sees_the_idle_trigger_on_its_updates(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path, "idle_compaction", env=SHORT, initialize=False, capable=False
    ) as adapter:
        await _initialize_for_compaction(adapter)
        session = await adapter.new_session()
        await adapter.prompt(session, "Read the codebase")
        await until(
            lambda: (
                any(u["status"] == "completed" for u in adapter.updates("compaction_update"))
                and _ended(adapter)
            ),
            "the idle compaction",
        )
        second = await adapter.prompt(session, "Now fix the bug")
        texts = adapter.prompt_texts(session)
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert texts == ["Read the codebase", "/compact", "Now fix the bug"]
    ident = compaction_id(session, 0)
    base = {"sessionUpdate": "compaction_update", "compactionId": ident, "_meta": IDLE}
    summary = [{"type": "text", "text": "Summary of compact-idle."}]
    assert _compaction_frames(adapter) == [
        {**base, "status": "in_progress"},
        {**base, "status": "completed", "summary": summary},
    ]
    meter = _retained(adapter)
    assert meter[meter.index(210000) + 1] == 9000


@pytest.mark.asyncio
async def test_a_failed_idle_compaction_shows_failed_and_raises_no_error_record(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "idle_compaction_fails", env=SHORT) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "Read the codebase")
        await until(lambda: _card_done(adapter) and _ended(adapter), "the idle compaction")
        second = await adapter.prompt(session, "Now fix the bug")
        texts = adapter.prompt_texts(session)
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert texts == ["Read the codebase", "/compact", "Now fix the bug"]
    failed = [u for u in adapter.updates("tool_call_update") if u.get("status") == "failed"]
    text = "Compaction failed: Not enough messages to compact"
    assert failed == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": compaction_id(session, 0),
            "status": "failed",
            "_meta": _changed(error="Not enough messages to compact"),
            "content": [{"type": "content", "content": {"type": "text", "text": text}}],
        }
    ]
    # Claude Code's compaction failing is no failure of the session: no record of it.
    assert not adapter.records()


@pytest.mark.asyncio
async def test_a_prompt_during_the_idle_compaction_waits_for_it(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "idle_compaction_slow", env=SHORT) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "Read the codebase")
        await until(lambda: bool(adapter.updates("tool_call")), "the idle compaction's card")
        # Sent while Claude is compacting: it waits behind the adapter's own turn.
        second = await adapter.prompt(session, "Now fix the bug")
        texts = adapter.prompt_texts(session)
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert texts == ["Read the codebase", "/compact", "Now fix the bug"]
    kinds = [(u["sessionUpdate"], u.get("status")) for u in adapter.updates()]
    done = kinds.index(("tool_call_update", "completed"))
    back = adapter.agent_texts().index("Back to work.")
    assert back == len(adapter.agent_texts()) - 1 and done < len(kinds) - 1
    assert list(adapter.answers().values()) == [1, 1]


async def _left_idle(adapter: Adapter, scenario_words: str) -> tuple[str, list[str]]:
    session = await adapter.new_session()
    first = await adapter.prompt(session, "Read the codebase")
    assert isinstance(first, PromptResponse)
    # The adapter logs why it will not compact when the session goes idle.
    await until(lambda: "idle compaction skipped" in adapter.stderr(), "the skip")
    second = await adapter.prompt(session, "Now fix the bug")
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert scenario_words in adapter.stderr()
    return session, adapter.prompt_texts(session)


@pytest.mark.asyncio
async def test_a_small_context_is_not_compacted(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "idle_compaction_small", env=SHORT) as adapter:
        _, texts = await _left_idle(adapter, "context 150000 tokens is below the 200000 minimum")
    assert texts == ["Read the codebase", "Now fix the bug"]
    assert not _compaction_frames(adapter)


@pytest.mark.asyncio
async def test_a_five_minute_cache_is_not_worth_compacting_for(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "idle_compaction_short_cache", env=SHORT) as adapter:
        _, texts = await _left_idle(adapter, "cache TTL is 5m, not 1h")
    assert texts == ["Read the codebase", "Now fix the bug"]
    assert not _compaction_frames(adapter)


@pytest.mark.asyncio
async def test_a_rate_limit_warning_suppresses_idle_compaction(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path, "idle_compaction_limited", env=SHORT, capable=False
    ) as adapter:
        _, texts = await _left_idle(adapter, "rate limit status is allowed_warning")
    assert texts == ["Read the codebase", "Now fix the bug"]
    assert not _compaction_frames(adapter)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("settings", "why"),
    [
        ({"idleCompaction": False}, "disabled by the idleCompaction setting"),
        ({"autoCompactEnabled": False}, "disabled by the autoCompactEnabled setting"),
        ({"env": {"DISABLE_COMPACT": "1"}}, "disabled by DISABLE_COMPACT"),
    ],
)
async def test_settings_turn_idle_compaction_off(
    tmp_path: Path, settings: dict[str, Any], why: str
) -> None:
    async with agent_in_process(tmp_path, "idle_compaction_unwanted", env=SHORT) as adapter:
        # The project's settings file, as Claude Code and the reference adapter read it.
        folder = adapter.workdir / ".claude"
        folder.mkdir(exist_ok=True)
        (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        _, texts = await _left_idle(adapter, why)
    assert texts == ["Read the codebase", "Now fix the bug"]
    assert not _compaction_frames(adapter)


@pytest.mark.asyncio
async def test_a_usage_limit_during_the_idle_compaction_is_a_record(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "idle_compaction_rate_limited", env=SHORT) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "Read the codebase")
        await until(lambda: _ended(adapter), "the idle compaction")
        # The record went out on stdout before the log line on stderr; the client may read the
        # two pipes in either order, so its arrival is awaited, not assumed.
        await until(lambda: _error_records(adapter), "the limit's record")
        records = adapter.records()
        second = await adapter.prompt(session, "Now fix the bug")
        texts = adapter.prompt_texts(session)
    assert texts == ["Read the codebase", "/compact", "Now fix the bug"]
    # The limit is a failure of the session's own: its record goes out as an update (no
    # prompt response exists to carry it), titled as any usage limit is.
    errors = [(carrier, r) for carrier, r in records if r.get("severity") == "error"]
    assert len(errors) == 1, records
    carrier, record = errors[0]
    assert carrier == "session_info_update"
    assert record["category"] == "limit" and record["id"].endswith(":error")
    assert "spend limit" in record["title"]
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    assert list(adapter.answers().values()) == [1, 1]


@pytest.mark.asyncio
async def test_a_closed_session_never_compacts(tmp_path: Path) -> None:
    # The first session is closed before its deadline; the second, prompted after the close,
    # has a later one. Once the second compacted, the first's deadline has passed too.
    slower = {"CLAUDE_AGENT_ACP_IDLE_COMPACT_DELAY_MS": "1500"}
    async with agent_in_process(tmp_path, "idle_compaction", env=slower) as adapter:
        closed = await adapter.new_session()
        await adapter.prompt(closed, "Read the codebase")
        await asyncio.wait_for(adapter.conn.close_session(session_id=closed), TIMEOUT)
        kept = await adapter.new_session()
        await adapter.prompt(kept, "Read the codebase")
        await until(lambda: _card_done(adapter) and _ended(adapter), "the idle compaction")
        texts = {session: adapter.prompt_texts(session) for session in (closed, kept)}
        stderr = adapter.stderr()
    assert texts == {closed: ["Read the codebase"], kept: ["Read the codebase", "/compact"]}
    assert stderr.count("sending /compact") == 1


@pytest.mark.asyncio
async def test_settings_written_after_the_session_opened_count(tmp_path: Path) -> None:
    # docs/decisions.md#settings-read-again: the file appears after session/new; the prompt
    # reads the settings again, as the reference adapter's watcher would have seen them.
    async with agent_in_process(tmp_path, "idle_compaction_unwanted", env=SHORT) as adapter:
        session = await adapter.new_session()
        folder = adapter.workdir / ".claude"
        folder.mkdir(exist_ok=True)
        (folder / "settings.json").write_text('{"idleCompaction": false}', encoding="utf-8")
        first = await adapter.prompt(session, "Read the codebase")
        assert isinstance(first, PromptResponse)
        await until(lambda: "idle compaction skipped" in adapter.stderr(), "the skip")
        second = await adapter.prompt(session, "Now fix the bug")
        assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
        stderr = adapter.stderr()
    assert "disabled by the idleCompaction setting" in stderr
    assert adapter.prompt_texts(session) == ["Read the codebase", "Now fix the bug"]
    assert not _compaction_frames(adapter)
