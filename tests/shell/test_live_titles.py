"""A live session is named by Claude Code, through the agent in process, as the reference
adapter names it: once a turn whose prompt said enough is over, the adapter asks Claude Code
for its title (`generate_session_title`, `persist: true`: the name `session/list` shows) and
shows it in place of the first line of the first prompt. No title from Claude Code (the
scripted Claude's default), and the first line stays; a title that is empty or 10 KB is never
shown as it came."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.harness import Adapter
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio


def _env(tmp_path: Path, title: str | None) -> dict[str, str]:
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl")}
    if title is not None:
        env["CLAUDE_ACP_SCRIPTED_TITLE"] = title
    return env


def _asked(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [
        e["request"]
        for e in map(json.loads, lines)
        if e["kind"] == "control" and e["request"].get("subtype") == "generate_session_title"
    ]


def _titles(adapter: Adapter) -> list[str]:
    return [u["title"] for u in adapter.updates("session_info_update") if "title" in u]


async def _titled(adapter: Adapter, want: str) -> None:
    # The name comes beside the turn: wait for it (bounded).
    for _ in range(200):
        if want in _titles(adapter):
            return
        await asyncio.sleep(0.05)


async def test_claude_codes_title_names_the_session(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path, "success", env=_env(tmp_path, "Fix flaky test")
    ) as adapter:
        session = await adapter.new_session()
        for text in ("hi", "please fix the flaky login test", "and the docs"):
            answer = await adapter.prompt(session, text)
            assert isinstance(answer, PromptResponse), answer
        await _titled(adapter, "Fix flaky test")
        listed = await adapter.listed_sessions()
    titles = _titles(adapter)
    assert titles[-1] == "Fix flaky test", titles
    assert set(titles) <= {"hi", "Fix flaky test"}, titles
    assert listed[session] == "Fix flaky test"  # the name session/list shows, as Claude Code
    # Asked once, from the first prompt that said enough ("hi" is too little), to keep it.
    assert [(r["description"], r["persist"]) for r in _asked(tmp_path)] == [
        ("please fix the flaky login test", True)
    ]


async def test_without_a_title_from_claude_code_the_first_line_stays(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", env=_env(tmp_path, None)) as adapter:
        session = await adapter.new_session()
        for text in ("please fix the flaky login test", "and then the docs please"):
            answer = await adapter.prompt(session, text)
            assert isinstance(answer, PromptResponse), answer
    assert _titles(adapter) == ["please fix the flaky login test"]
    # Asked (after the first turn), and given nothing: the first line stays.
    assert _asked(tmp_path), _asked(tmp_path)


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("   ", None),
        ("line one\nline two\x07", "line one line two\u2407"),
        ("word " * 2048, "word " * 51 + "\u2026"),
    ],
)
async def test_an_odd_title_is_shown_safely(tmp_path: Path, given: str, shown: str | None) -> None:
    async with agent_in_process(tmp_path, "success", env=_env(tmp_path, given)) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "please fix the flaky login test")
        assert isinstance(answer, PromptResponse), answer
        if shown is not None:
            await _titled(adapter, shown.strip())
    titles = _titles(adapter)
    assert titles[0] == "please fix the flaky login test", titles
    if shown is None:
        assert titles == ["please fix the flaky login test"], titles
    else:
        assert titles[-1] == shown.strip(), titles
        assert all(len(t) <= 256 for t in titles)


async def test_a_rename_typed_in_the_chat_names_the_live_session(tmp_path: Path) -> None:
    # docs/decisions.md#live-session-names: `/rename` stores Claude Code's custom title; once
    # its turn is over the live name is the one `session/list` shows, and stays.
    env = _env(tmp_path, "Fix flaky test")
    async with agent_in_process(tmp_path, "rename_typed", env=env) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "please fix the flaky login test")
        assert isinstance(first, PromptResponse), first
        await _titled(adapter, "Fix flaky test")
        renamed = await adapter.prompt(session, "/rename Login\x1b[31m work")
        assert isinstance(renamed, PromptResponse), renamed
        await _titled(adapter, "Login\u241b[31m work")
        later = await adapter.prompt(session, "and now update the docs as well")
        assert isinstance(later, PromptResponse), later
        listed = await asyncio.wait_for(
            adapter.conn._conn.send_request("session/list", {"cwd": str(adapter.workdir)}), 30
        )
    titles = _titles(adapter)
    assert titles[-1] == "Login\u241b[31m work", titles
    # The rename was never shown as a first line, nor replaced by a generated title later.
    assert "/rename Login\x1b[31m work" not in titles and titles.count("Fix flaky test") == 1
    row = next(s for s in listed["sessions"] if s["sessionId"] == session)
    assert row["title"] == titles[-1], (row, titles)  # the name session/list shows
    assert len(_asked(tmp_path)) == 1  # asked for the first prompt only


async def test_a_loaded_session_keeps_the_name_claude_code_gave_it(tmp_path: Path) -> None:
    """A load names the session as it was named live and as `session/list` names it: Claude
    Code's generated title (then a `/rename`), not the first line of its first prompt."""
    env = _env(tmp_path, "Fix flaky test")
    async with agent_in_process(tmp_path, "rename_typed", env=env) as live:
        session = await live.new_session()
        answer = await live.prompt(session, "please fix the flaky login test")
        assert isinstance(answer, PromptResponse), answer
        await _titled(live, "Fix flaky test")
    async with agent_in_process(tmp_path, "rename_typed") as loaded:
        await asyncio.wait_for(
            loaded.conn.load_session(cwd=str(loaded.workdir), session_id=session, mcp_servers=[]),
            30,
        )
        generated = _titles(loaded)
        renamed = await loaded.prompt(session, "/rename Login work")
        assert isinstance(renamed, PromptResponse), renamed
        await _titled(loaded, "Login work")
    async with agent_in_process(tmp_path, "rename_typed") as again:
        await asyncio.wait_for(
            again.conn.load_session(cwd=str(again.workdir), session_id=session, mcp_servers=[]),
            30,
        )
        listed = await again.listed_sessions()
    assert generated == ["Fix flaky test"], generated
    assert _titles(again) == ["Login work"] and listed[session] == "Login work", _titles(again)
