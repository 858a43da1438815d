"""Leaving plan mode in a fresh context whose Claude cannot start, end to end.

Through the real stdio agent, the real SDK and the scripted Claude (`plan_clear_start_fails`,
`adapter/scripted_claude/plan_scenarios.py`), whose fresh process exits before its handshake:
the prompt is answered once, with a connection record, and the fresh Claude never got a
message. The rest of leaving plan mode in a fresh context is played in process:
tests/shell/test_plan_clear.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.choosing_client import ChoosingClient, option
from tests.support.harness import AdapterPool
from tests.support.scripted_log import by_process, users

CLEAR = "exit-plan-clear-accept-edits"


@pytest.mark.asyncio(loop_scope="module")
async def test_a_fresh_claude_that_cannot_start_fails_the_prompt_once(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    client = ChoosingClient(option(CLEAR))
    async with adapters.session_adapter(
        tmp_path, "plan_clear_start_fails", client=client
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "fix the bug")
        records = adapter.records()
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [(carrier, record)] = records
    assert carrier == "prompt_response" and record["severity"] == "error"
    assert record["category"] == "connection" and record["actions"] == ["new_session"]
    assert "Traceback" not in record["title"] and str(tmp_path) not in record["title"]
    assert list(adapter.answers().values()) == [1]
    _, fresh = by_process(tmp_path)
    assert users(fresh) == []  # it never got as far as a message
