"""The harness's shared adapters (tests/support/harness.py `AdapterPool`): each test sees only its
own frames, and a test that fails hands the next one a fresh adapter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.harness import AdapterPool

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_each_view_holds_its_own_sessions_frames_only(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(tmp_path / "a", "success") as first:
        one = await first.new_session()
        await first.prompt(one, "hello")
    async with adapters.session_adapter(tmp_path / "b", "thinking_and_tools") as second:
        two = await second.new_session()
        answer = await second.prompt(two, "what is here?")
    assert second.process is first.process  # one adapter
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    for view, mine, theirs in ((first, one, two), (second, two, one)):
        methods = [f.message.get("method") for f in view.frames if f.direction == "outgoing"]
        assert methods == ["initialize", "session/new", "session/prompt"]
        assert all(count == 1 for count in view.answers("session/new").values())
        text = json.dumps([f.message for f in view.frames])
        assert mine in text and theirs not in text
    # The scenario followed each session's cwd: only the second thought.
    assert first.updates("agent_thought_chunk") == []
    assert second.updates("agent_thought_chunk") != []


async def test_a_failed_test_retires_its_adapter(adapters: AdapterPool, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        async with adapters.session_adapter(tmp_path / "a", "hang") as broken:
            await broken.new_session()
            raise RuntimeError("the test failed with a turn in flight")
    assert broken.process.returncode is not None
    async with adapters.session_adapter(tmp_path / "b") as fresh:
        answer = await fresh.prompt(await fresh.new_session(), "hello")
    assert fresh.process is not broken.process
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
