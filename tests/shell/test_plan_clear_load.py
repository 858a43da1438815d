"""Loading a session whose plan exit cleared its context, in process.

Through the agent (`agent_in_process`), the real SDK and the scripted Claude (`plan_clear`
scenario): a turn plans and leaves plan mode with "clear context", a second turn runs in the
continuation (a new Claude session linked to the ACP id), then a fresh agent loads the ACP id. The
client sees the turns before the clear, then the continuation's, in order; a predecessor transcript
that is gone still lets the continuation load, with one log line.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.plan_scenarios import IMPLEMENTING
from adapter.scripted_claude.session_scenarios import PLAN
from tests.support.choosing_client import ChoosingClient, option
from tests.support.harness import TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process

CLEAR = "exit-plan-clear-accept-edits"
MISSING = "transcript(s) from before its context was cleared are missing"


async def _cleared_session(tmp_path: Path) -> str:
    """An ACP session prompted twice: the first turn clears its context, the second runs in
    the continuation."""
    async with agent_in_process(
        tmp_path, "plan_clear", client=ChoosingClient(option(CLEAR))
    ) as first:
        session = await first.new_session()
        answers = [
            await first.prompt(session, "fix the bug"),
            await first.prompt(session, "and the docs?"),
        ]
    assert all(isinstance(a, PromptResponse) and a.stop_reason == "end_turn" for a in answers)
    return session


def _message_texts(updates: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [
        (u["sessionUpdate"], u["content"]["text"])
        for u in updates
        if u["sessionUpdate"] in ("user_message_chunk", "agent_message_chunk")
    ]


async def _load(adapter: Adapter, session: str) -> list[tuple[str, str]]:
    await asyncio.wait_for(
        adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
        TIMEOUT,
    )
    return _message_texts(adapter.updates())


BEFORE_THE_CLEAR = [
    ("user_message_chunk", "fix the bug"),
    ("agent_message_chunk", "Here is my plan."),
    # The plan exit's denial with `interrupt` ended the first context's turn; Claude Code 2.1
    # writes no interrupt note for it (only its internal diagnostic as the result's error).
]
IN_THE_CONTINUATION = [
    ("user_message_chunk", f"Implement the following plan:\n\n{PLAN}"),
    ("agent_message_chunk", IMPLEMENTING),
    ("user_message_chunk", "and the docs?"),
    ("agent_message_chunk", "Scripted reply to: and the docs?"),
]


@pytest.mark.asyncio
async def test_a_load_replays_the_turns_before_the_clear_then_the_continuation(
    tmp_path: Path,
) -> None:
    session = await _cleared_session(tmp_path)
    async with agent_in_process(tmp_path, "plan_clear") as second:
        texts = await _load(second, session)
        again = await second.prompt(session, "next step")
        log = second.stderr()
    assert isinstance(again, PromptResponse) and again.stop_reason == "end_turn"
    # Everything the live session showed, in order: the first context's turn, then the
    # continuation's two.
    assert texts == BEFORE_THE_CLEAR + IN_THE_CONTINUATION
    assert MISSING not in log
    # The session's name is its very first prompt's, as it was live.
    titles = [u["title"] for u in second.updates("session_info_update") if "title" in u]
    assert titles[:1] == ["fix the bug"]


@pytest.mark.asyncio
async def test_a_missing_predecessor_transcript_still_loads_the_continuation(
    tmp_path: Path,
) -> None:
    session = await _cleared_session(tmp_path)
    [predecessor] = (tmp_path / "claude-config").glob(f"projects/*/{session}.jsonl")
    predecessor.unlink()
    async with agent_in_process(tmp_path, "plan_clear") as second:
        texts = await _load(second, session)
        log = second.stderr()
    assert texts == IN_THE_CONTINUATION
    assert log.count(MISSING) == 1
    assert "Traceback" not in log
