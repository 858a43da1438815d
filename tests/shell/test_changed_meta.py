"""What a JetBrains AIR client is not sent again, in process (`agent_in_process`): each
`tool_call_update` leaves without the `_meta` keys an earlier report of its call sent with the
same value (`fsm.ChangedMetaFilter`, applied where updates leave, after the native subagent
routing), live and on `session/load`, as the reference's changed-meta filter does. Changed keys
and output stay; a plain ACP client gets every key on every update. An AIR client is also told
which calls are an MCP server's tool (`is_mcp_tool_call`, on the opening only).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.air_scenarios import ISSUE_CALL, TESTS_CALL
from tests.support.air_merge import merged_meta
from tests.support.harness import OPT_IN, TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process

Wire = dict[str, Any]
TERMINAL = {"terminal_output_delta": True}
AIR = {**OPT_IN, **TERMINAL}


def _reports(updates: list[Wire], tool_id: str) -> list[Wire]:
    kinds = ("tool_call", "tool_call_update")
    return [u for u in updates if u["sessionUpdate"] in kinds and u["toolCallId"] == tool_id]


def _carrying(reports: list[Wire], *path: str) -> list[Any]:
    """The values of `_meta` at `path` on each report that carries it, in order."""
    found = []
    for report in reports:
        value: Any = report.get("_meta")
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            found.append(value)
    return found


def _fields(reports: list[Wire]) -> list[Wire]:
    return [{k: v for k, v in r.items() if k != "_meta"} for r in reports]


def _merged(reports: list[Wire]) -> Any:
    held: Any = None
    for report in reports:
        held = merged_meta(held, report.get("_meta"))
    return held


async def _played(
    tmp_path: Path,
    client_meta: Wire,
    scenario: str = "air_repeated_meta",
    prompt: str = "Run the tests and file the flaky one",
) -> tuple[Adapter, str]:
    async with agent_in_process(tmp_path, scenario, client_meta=client_meta) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, prompt)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    return adapter, session


async def _loaded(tmp_path: Path, played: Adapter, session: str, client_meta: Wire) -> Adapter:
    shared = {"CLAUDE_CONFIG_DIR": str(played.config_dir)}
    load = {"cwd": str(played.workdir), "session_id": session, "mcp_servers": []}
    async with agent_in_process(tmp_path, env=shared, client_meta=client_meta) as adapter:
        await asyncio.wait_for(adapter.conn.load_session(**load), TIMEOUT)
    return adapter


@pytest.mark.asyncio
async def test_an_air_client_is_not_sent_a_key_again_and_a_plain_one_gets_every_key(
    tmp_path: Path,
) -> None:
    air, _ = await _played(tmp_path / "air", AIR)
    plain, _ = await _played(tmp_path / "plain", TERMINAL)
    tests, plain_tests = _reports(air.updates(), TESTS_CALL), _reports(plain.updates(), TESTS_CALL)
    # The same reports, with the same fields: only `_meta` differs (nothing here was left
    # with nothing to say, so no report was dropped), and the streamed input: a plain client
    # gets it as it stands on the opening and the refinement, an AIR client once it is whole.
    plain_fields = _fields(plain_tests)
    streamed = [plain_fields[0].pop("rawInput"), plain_fields[1].pop("rawInput")]
    assert streamed == [{}, {"command": "npm  test\t--watch=false"}]
    assert _fields(tests) == plain_fields and len(tests) == 7
    # A plain client gets the tool's name on every report the card's view makes with it: the
    # opening, both refinements and both beats.
    assert _carrying(plain_tests, "claudeCode", "toolName") == ["Bash"] * 5
    # An AIR client gets it on the opening alone; the title of the command and the terminal
    # once each, when they first came; each beat's changed time; the output and the exit.
    assert _carrying(tests, "claudeCode", "toolName") == ["Bash"]
    assert _carrying(tests, "jetbrains", "air", "commandTitle") == ["Run the tests"]
    assert _carrying(tests, "terminal_info", "terminal_id") == [TESTS_CALL]
    assert _carrying(plain_tests, "terminal_info", "terminal_id") == [TESTS_CALL]
    # The terminal is announced on the opening `tool_call` of the streamed command, to both
    # (as the reference does), with the terminal as its content; no later report repeats it.
    terminal = [{"type": "terminal", "terminalId": TESTS_CALL}]
    for opening in (tests[0], plain_tests[0]):
        assert opening["sessionUpdate"] == "tool_call" and opening["content"] == terminal
        assert opening["_meta"]["terminal_info"]["terminal_id"] == TESTS_CALL
    times = _carrying(tests, "claudeCode", "toolResponse", "elapsedTimeSeconds")
    assert times == [1, 2.5]
    output = {"terminal_id": TESTS_CALL, "data": "2 passed"}
    assert _carrying(tests, "terminal_output_delta") == [output]
    assert _carrying(tests, "terminal_exit", "exit_code") == [0]
    # Merged as AIR merges them, the reports hold what a plain client's last ones say.
    assert _merged(tests)["claudeCode"] == _merged(plain_tests)["claudeCode"]

    issue, plain_issue = _reports(air.updates(), ISSUE_CALL), _reports(plain.updates(), ISSUE_CALL)
    plain_issue_fields = _fields(plain_issue)
    assert plain_issue_fields[0].pop("rawInput") == {}  # the streamed opening's, plain only
    assert _fields(issue) == plain_issue_fields
    # The MCP tool's call: flagged to an AIR client on its opening, last in `_meta`, with its
    # server and tool; no update repeats any of it. A plain client gets no flag, and the tool's
    # name again on the refinement.
    opening = issue[0]["_meta"]
    assert opening == {
        "claudeCode": {"toolName": "mcp__github__create_issue"},
        "jetbrains": {"air": {"version": 1, "mcp": {"server": "github", "tool": "create_issue"}}},
        "is_mcp_tool_call": True,
    }
    assert list(opening)[-1] == "is_mcp_tool_call"
    assert [u for u in issue[1:] if "_meta" in u] == []
    assert plain_issue[0]["_meta"] == {"claudeCode": {"toolName": "mcp__github__create_issue"}}
    assert _carrying(plain_issue, "claudeCode", "toolName") == ["mcp__github__create_issue"] * 2
    assert not [u for u in plain.updates() if "is_mcp_tool_call" in str(u)]


@pytest.mark.asyncio
async def test_a_load_replays_through_the_filter_for_an_air_client_only(tmp_path: Path) -> None:
    # A compaction mid-turn: its card opens and ends, both reports naming the tool.
    played, session = await _played(tmp_path / "live", AIR, "compaction", "Go on")
    air = await _loaded(tmp_path / "air", played, session, AIR)
    plain = await _loaded(tmp_path / "plain", played, session, TERMINAL)
    [card] = {u["toolCallId"] for u in air.updates("tool_call")}
    cards, plain_cards = _reports(air.updates(), card), _reports(plain.updates(), card)
    assert [u["sessionUpdate"] for u in cards] == ["tool_call", "tool_call_update"]
    # Replayed, the card's end does not tell an AIR client the tool's name again, as the
    # reference's replay, which goes through its filter, does not; a plain client is told.
    assert _carrying(cards, "claudeCode", "toolName") == ["compact"]
    assert _carrying(plain_cards, "claudeCode", "toolName") == ["compact", "compact"]
    # What changed (the compaction's facts) is still told.
    facts = _carrying(cards, "jetbrains", "air", "contextCompaction")
    assert [fact.get("trigger") for fact in facts] == [None, "automatic"]
    assert _fields(cards)[1]["status"] == "completed"


@pytest.mark.asyncio
async def test_a_replayed_mcp_call_is_flagged_for_an_air_client_only(tmp_path: Path) -> None:
    # Replayed, the call opens with its whole input (no stream): the flag is on that opening.
    played, session = await _played(tmp_path / "live", AIR)
    air = await _loaded(tmp_path / "air", played, session, AIR)
    plain = await _loaded(tmp_path / "plain", played, session, TERMINAL)
    [opening] = [u for u in air.updates("tool_call") if u["toolCallId"] == ISSUE_CALL]
    assert opening["rawInput"] == {"title": "Flaky test"}
    assert opening["_meta"]["is_mcp_tool_call"] is True
    assert list(opening["_meta"])[-1] == "is_mcp_tool_call"
    [plain_opening] = [u for u in plain.updates("tool_call") if u["toolCallId"] == ISSUE_CALL]
    assert "is_mcp_tool_call" not in plain_opening["_meta"]
