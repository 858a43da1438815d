"""The real Claude Code CLI names the session, and the live session shows that name.

Once a turn whose prompt said enough is over, the adapter asks the bundled CLI (2.1.332) for
the session's title (`generate_session_title`, `persist: true`); the CLI asks its small model
(here the Messages API double, which answers `{"title": ...}`), stores the title and answers
with it, and the adapter shows it in place of the first prompt's line. When the model gives no
title, the first line stays.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble
from tests.real_claude.support import load, real_adapter, run_turn
from tests.support.harness import TIMEOUT, Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio]

PROMPT = "please fix the flaky login test"


def _titles(adapter: Adapter) -> list[str]:
    return [u["title"] for u in adapter.updates("session_info_update") if "title" in u]


async def _listed_title(adapter: Adapter, cwd: Path | None, session_id: str) -> str | None:
    """The title `session/list` shows for the session (read from what Claude Code stored)."""
    answer = await asyncio.wait_for(adapter.conn.list_sessions(cwd=str(cwd)), TIMEOUT)
    title: str | None = next(s.title for s in answer.sessions if s.session_id == session_id)
    return title


async def test_claude_codes_generated_title_names_the_live_session(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    double.title = "Flaky login test"
    double.script(Answer("I will look at the login test."))
    async with real_adapter(tmp_path, double, capable=True) as adapter:
        turn = await run_turn(adapter, PROMPT)
        assert turn.response.stop_reason == "end_turn"
        for _ in range(400):  # the name comes beside the turn: a bound, not a speed check
            if "Flaky login test" in _titles(adapter):
                break
            await asyncio.sleep(0.05)
        listed = await _listed_title(adapter, turn.cwd, turn.session_id)

    assert _titles(adapter)[-1] == "Flaky login test", _titles(adapter)
    assert listed == "Flaky login test"  # the live name is the one session/list shows
    # Loaded again, the session keeps that name (what the CLI stored), not the first line.
    assert turn.cwd is not None
    async with real_adapter(tmp_path, double, capable=True) as fresh:
        replay = await load(fresh, turn.session_id, turn.cwd)
    shown = [u["title"] for u in replay.updates("session_info_update") if "title" in u]
    assert shown == ["Flaky login test"], shown
    asked = [r for r in double.requests if r.is_title]
    assert len(asked) == 1 and PROMPT in str(asked[0].body.get("messages")), asked


async def test_without_a_generated_title_the_first_line_stays(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    double.script(Answer("I will look at the login test."))
    async with real_adapter(tmp_path, double, capable=False) as adapter:
        turn = await run_turn(adapter, PROMPT)
        assert turn.response.stop_reason == "end_turn"
        for _ in range(100):
            if any(r.is_title for r in double.requests):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(1)
    assert _titles(adapter) == [PROMPT], _titles(adapter)


async def test_a_rename_typed_in_the_chat_names_the_live_session(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    # docs/decisions.md#live-session-names: the real CLI runs `/rename` itself (no model turn)
    # and stores the name; once the turn is over the live name is the one it stored.
    double.title = "Flaky login test"
    double.script(Answer("I will look at the login test."))
    async with real_adapter(tmp_path, double, capable=True) as adapter:
        turn = await run_turn(adapter, PROMPT)
        assert turn.response.stop_reason == "end_turn"
        for _ in range(400):
            if "Flaky login test" in _titles(adapter):
                break
            await asyncio.sleep(0.05)
        renamed = await run_turn(adapter, "/rename Login work", turn.session_id)
        assert renamed.response.stop_reason == "end_turn"
        for _ in range(400):  # read beside the turn's end: a bound, not a speed check
            if "Login work" in _titles(adapter):
                break
            await asyncio.sleep(0.05)
        listed = await _listed_title(adapter, turn.cwd, turn.session_id)
    assert _titles(adapter)[-1] == "Login work", _titles(adapter)
    assert listed == "Login work"
    assert "/rename Login work" not in _titles(adapter)
