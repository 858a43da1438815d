"""Claude's process misbehaving: every prompt still gets exactly one answer, promptly."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.harness import spawn_adapter


@pytest.mark.asyncio
async def test_output_closed_but_process_alive_is_stopped_and_reported(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "close_stdout_and_linger") as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
        # A replacement process resumes the session and answers the next prompt.
        again = await adapter.prompt(session, "again")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [(carrier, record)] = adapter.records()
    assert carrier == "prompt_response"
    assert record["category"] == "connection" and record["actions"] == ["new_session"]
    assert record["title"] == "The connection to Claude was lost."
    assert isinstance(again, PromptResponse) and again.stop_reason == "end_turn"
    assert "did not exit; stopping it" in adapter.stderr()
