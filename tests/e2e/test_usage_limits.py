"""A subscription's usage limit end to end (docs/decisions.md#early-limit-warning,
#limit-that-resets and #acp-notices): the early warning, the rejection, the reset a few seconds
# later, and the session carrying on, through the real
stdio agent and the SDK spawning the scripted Claude (`usage_limit_resets`), for a capable, a
legacy, an ACP-notices and an `agent_error` client.

The scenario: turn 1 warns at 92% of the 5-hour window, turn 2 at 97%, turn 3 is rejected at
the limit, turn 4 (sent at once) is rejected again, and after the window's reset a turn 5 is
answered. The reset is the scripted Claude's own clock: the tests wait for it, bounded.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.limits import LIMIT_RESET_SECONDS
from tests.support.harness import TIMEOUT, Adapter, spawn_adapter
from tests.support.scripted_log import is_auth_probe

pytestmark = pytest.mark.asyncio

SCENARIO = "usage_limit_resets"
RESET_SENTENCE = " \u00b7 The limit has reset; you can retry now."
# The title's time: Claude Code's "10:08pm (UTC)" (the agent runs in UTC here).
CLOCK = r"(1[0-2]|[1-9])(:[0-5][0-9])?(am|pm) \(UTC\)"
WARNING = re.compile(rf"You've used (\d+)% of your 5-hour limit \u00b7 resets {CLOCK}")
LIMIT = re.compile(rf"You've hit your 5-hour limit \u00b7 resets {CLOCK}")
# A bound on waiting for the reset (it comes within seconds), never a speed assertion.
RESET_WAIT = LIMIT_RESET_SECONDS + TIMEOUT

AGENT_ERROR: dict[str, Any] = {"agentError": {"version": 1}}


def _env(tmp_path: Path) -> dict[str, str]:
    return {"TZ": "UTC", "CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl")}


def _claude_processes(tmp_path: Path) -> int:
    log = (tmp_path / "claude-log.jsonl").read_text(encoding="utf-8").splitlines()
    # Not the agent's sign-in reads (`claude auth status`, adapter.agent.auth_push).
    entries = [json.loads(line) for line in log]
    return sum(1 for e in entries if e["kind"] == "argv" and not is_auth_probe(e["argv"]))


def _rejected_reset(adapter: Adapter) -> int:
    """The reset time of the rejected window, from the `usage_update` that carried it."""
    for update in adapter.updates("usage_update"):
        info = update.get("_meta", {}).get("_claude/rateLimit")
        if isinstance(info, dict) and info.get("status") == "rejected":
            return int(info["resetsAt"])
    raise AssertionError("no usage_update carried the rejected window")


async def _until(condition: Any, bound: float) -> None:
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, "gave up waiting"
        await asyncio.sleep(0.1)


async def _limit_turns(adapter: Adapter) -> tuple[str, list[PromptResponse | acp.RequestError]]:
    """Turns 1-4: two warnings, the rejection and a prompt before the reset."""
    session = await adapter.new_session()
    answers = [await adapter.prompt(session, text) for text in ("one", "two", "three", "four")]
    return session, answers


async def _after_the_reset(adapter: Adapter, session: str) -> PromptResponse | acp.RequestError:
    reset = _rejected_reset(adapter)
    await _until(lambda: time.time() > reset + 0.2, RESET_WAIT)
    return await adapter.prompt(session, "five")


def _windows(adapter: Adapter) -> list[tuple[str, float]]:
    found = []
    for update in adapter.updates("usage_update"):
        info = update.get("_meta", {}).get("_claude/rateLimit")
        if isinstance(info, dict):
            window = info["unifiedWindows"]["five_hour"]
            found.append((window["status"], window["utilization"]))
    return found


async def test_a_capable_client_is_warned_failed_told_of_the_reset_and_carries_on(
    tmp_path: Path,
) -> None:
    async with spawn_adapter(tmp_path, SCENARIO, env=_env(tmp_path)) as adapter:
        session, answers = await _limit_turns(adapter)
        uuids = adapter.prompt_uuids(session)
        # The reset comes by itself, once, on the newest failure.
        await _until(lambda: any(r["revision"] == 2 for _, r in _errors(adapter)), RESET_WAIT)
        fifth = await adapter.prompt(session, "five")
    assert [type(a) for a in answers] == [PromptResponse] * 4
    assert isinstance(fifth, PromptResponse) and fifth.stop_reason == "end_turn"
    warnings = [r for c, r in adapter.records() if r["severity"] == "warning"]
    assert [(c, r["revision"]) for c, r in adapter.records() if r["severity"] == "warning"] == [
        ("session_info_update", 1),
        ("session_info_update", 2),
    ]
    first, second = warnings
    assert first["id"] == second["id"] and ":notice:" in first["id"]
    assert (first["category"], first["actions"]) == ("limit", [])
    assert [WARNING.fullmatch(w["title"]).group(1) for w in warnings] == ["92", "97"]  # type: ignore[union-attr]
    # Turns 3 and 4 fail on the limit, in Claude's words, each its own incident.
    third, fourth = (a.field_meta["jetbrains"]["air"]["sessionFailure"] for a in answers[2:])  # type: ignore[union-attr,index]
    assert (third["id"], fourth["id"]) == (f"{uuids[2]}:error", f"{uuids[3]}:error")
    for record in (third, fourth):
        assert LIMIT.fullmatch(record["title"])
        assert (record["category"], record["severity"], record["actions"]) == (
            "limit",
            "error",
            [],
        )
    # At the reset: revision 2 of turn 4's record (the newest), and nothing for turn 3.
    resets = [r for c, r in _errors(adapter) if c == "session_info_update"]
    assert resets == [
        {
            "id": fourth["id"],
            "revision": 2,
            "category": "limit",
            "severity": "error",
            "title": fourth["title"] + RESET_SENTENCE,
            "actions": ["retry"],
        }
    ]
    # The windows ride on the usage updates; one Claude process served every turn.
    assert _windows(adapter) == [
        ("allowed_warning", 0.92),
        ("allowed_warning", 0.97),
        ("rejected", 1.0),
        ("allowed", 0.01),
    ]
    assert _claude_processes(tmp_path) == 1
    assert adapter.prompt_uuids(session) == [*uuids, adapter.prompt_uuids(session)[-1]]


def _errors(adapter: Adapter) -> list[tuple[str, dict[str, Any]]]:
    return [(c, r) for c, r in adapter.records() if r["severity"] == "error"]


async def test_a_legacy_client_gets_errors_and_no_records(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, SCENARIO, capable=False, env=_env(tmp_path)) as adapter:
        session, answers = await _limit_turns(adapter)
        fifth = await _after_the_reset(adapter, session)
    assert [isinstance(a, PromptResponse) for a in answers] == [True, True, False, False]
    for rejected in answers[2:]:
        assert isinstance(rejected, acp.RequestError) and rejected.code == -32603
        assert rejected.data == {"errorKind": "rate_limit"}
    assert isinstance(fifth, PromptResponse) and fifth.stop_reason == "end_turn"
    assert adapter.records() == [] and adapter.updates("notice") == []
    # Claude's words stay in the transcript as text; the warnings are not text for it.
    texts = adapter.agent_texts()
    assert sum(1 for t in texts if LIMIT.fullmatch(t)) == 2
    assert not any("You've used" in t for t in texts)
    assert _claude_processes(tmp_path) == 1


async def test_an_acp_notices_client_gets_the_warnings_as_notices(tmp_path: Path) -> None:
    async with spawn_adapter(
        tmp_path, SCENARIO, env=_env(tmp_path), initialize=False, capable=False
    ) as adapter:
        caps = {"session": {"notices": {}}, "fs": {"readTextFile": False, "writeTextFile": False}}
        params = {"protocolVersion": acp.PROTOCOL_VERSION, "clientCapabilities": caps}
        await asyncio.wait_for(adapter.conn._conn.send_request("initialize", params), TIMEOUT)
        session, answers = await _limit_turns(adapter)
        fifth = await _after_the_reset(adapter, session)
    notices = adapter.updates("notice")
    assert [n["severity"] for n in notices] == ["warning", "warning"]
    assert [WARNING.fullmatch(n["title"]).group(1) for n in notices] == ["92", "97"]  # type: ignore[union-attr]
    assert all(set(n) == {"sessionUpdate", "severity", "title"} for n in notices)
    # Errors as for a legacy client; no record, nothing at the reset.
    assert [isinstance(a, acp.RequestError) for a in answers] == [False, False, True, True]
    assert isinstance(fifth, PromptResponse) and adapter.records() == []


async def test_an_agent_error_client_gets_the_reset_time_on_each_failure(tmp_path: Path) -> None:
    async with spawn_adapter(
        tmp_path, SCENARIO, client_meta=AGENT_ERROR, env=_env(tmp_path)
    ) as adapter:
        session, answers = await _limit_turns(adapter)
        reset = _rejected_reset(adapter)
        fifth = await _after_the_reset(adapter, session)
        await asyncio.sleep(0.5)  # room for a (wrong) update at the reset to arrive
    assert all(isinstance(a, PromptResponse) for a in [*answers, fifth])
    errors = [u["error"] for u in adapter.updates("agent_error")]
    assert len(errors) == 2  # turns 3 and 4; no warning, nothing at the reset
    for error in errors:
        assert (error["type"], error["retryable"]) == ("budget", False)
        assert LIMIT.fullmatch(error["message"])
        assert error["reset_at_epoch_ms"] == reset * 1000
    assert adapter.records() == [] and adapter.updates("notice") == []


async def test_a_loaded_session_restores_the_limits_and_publishes_no_past_reset(
    tmp_path: Path,
) -> None:
    async with spawn_adapter(tmp_path, SCENARIO, env=_env(tmp_path)) as live:
        session, answers = await _limit_turns(live)
        reset = _rejected_reset(live)
        await _until(lambda: any(r["revision"] == 2 for _, r in _errors(live)), RESET_WAIT)
    third, fourth = (a.field_meta["jetbrains"]["air"]["sessionFailure"] for a in answers[2:])  # type: ignore[union-attr,index]
    # A new adapter process loads it after the reset: the limits come back as they were
    # stored (docs/decisions.md#replay-ids and #replaying-stored-messages), and the reset that
    # already passed publishes nothing new.
    async with spawn_adapter(tmp_path, SCENARIO, env=_env(tmp_path)) as loaded:
        await loaded.conn.load_session(cwd=str(loaded.workdir), session_id=session, mcp_servers=[])
        assert time.time() > reset
        await asyncio.sleep(1.0)  # room for a (wrong) reset revision to arrive
        replayed = loaded.records()
        answer = await loaded.prompt(session, "five")
    assert replayed == [
        ("session_info_update", {**third, "revision": 1}),
        ("session_info_update", {**fourth, "revision": 1}),
    ]
    assert not any(r["actions"] for _, r in loaded.records())
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
