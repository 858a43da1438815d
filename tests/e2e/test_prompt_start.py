"""Where a prompt's turn begins, end to end: the scripted Claude says what became of each user
message as the bundled CLI does (`command_lifecycle`: `queued`, `started`, then `completed`),
through the real SDK and real stdio (docs/decisions.md#turn-begins-at-echo).

`own_work_before_start` (tests/support/scripted/own_work.py): after the first prompt's answer,
Claude's own work goes on until the second prompt arrives, then says something and ends with a
result that has no autonomous origin and names no prompt. Claude Code said it queued the second
prompt and has not started it, so that result is not its answer: an adapter that ignored
`queued` and `started` would answer the second prompt with the own work's words and tokens.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.config_requests import raw_request
from tests.support.harness import AdapterPool, until
from tests.support.said import until_said
from tests.support.scripted.own_work import OWN_WORDS

RAW_LIFECYCLE = {"claudeCode": {"emitRawSDKMessages": [{"type": "command_lifecycle"}]}}
# The bundled CLI 2.1.332's frame (probed): these keys, and no others.
LIFECYCLE_KEYS = {"type", "command_uuid", "state", "uuid", "session_id"}


@pytest.mark.asyncio(loop_scope="module")
async def test_own_work_before_a_queued_prompts_start_is_not_its_answer(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(tmp_path, "own_work_before_start") as adapter:
        opened = await raw_request(
            adapter, "session/new", cwd=str(adapter.workdir), mcpServers=[], _meta=RAW_LIFECYCLE
        )
        session = opened["sessionId"]
        first = await adapter.prompt(session, "first")
        second = await adapter.prompt(session, "second")
        # The second prompt's `completed` follows its result, so it may follow the answer.
        await until(lambda: len(_lifecycle(adapter.incoming())) == 6, "both prompts' ends")
        frames = adapter.incoming()
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse) and second.stop_reason == "end_turn"
    # The own work's words were shown, before the second prompt's turn; its answer is its own.
    assert adapter.agent_texts() == ["First answer.", OWN_WORDS, "Second answer."]
    said_second = next(
        i
        for i, m in enumerate(frames)
        if m.get("method") == "session/update" and "Second answer." in str(m["params"])
    )
    answered_second = _answer_index(frames, 1)
    assert said_second < answered_second
    # None of the own work's 1,000 and 500 tokens are the second prompt's.
    assert second.usage is not None
    assert second.usage.input_tokens < 1000 and second.usage.output_tokens < 500
    # What Claude Code said of each prompt, raw, as the bundled CLI says it.
    lifecycle = _lifecycle(frames)
    assert lifecycle and all(set(f) == LIFECYCLE_KEYS for f in lifecycle)
    by_prompt: dict[str, list[str]] = {}
    for frame in lifecycle:
        by_prompt.setdefault(frame["command_uuid"], []).append(frame["state"])
    assert list(by_prompt.values()) == [["queued", "started", "completed"]] * 2


@pytest.mark.asyncio(loop_scope="module")
async def test_a_prompt_cancelled_while_queued_behind_own_work_never_runs(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    # docs/decisions.md#prompt-ended-unstarted: an interrupt leaves a queued message in Claude
    # Code's queue, to run next; the cancel also takes the prompt back out, and Claude Code's
    # `cancelled` for it answers it.
    async with adapters.session_adapter(tmp_path, "own_work_until_interrupted") as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "first")
        second = asyncio.ensure_future(adapter.prompt(session, "second"))
        await until_said(adapter, OWN_WORDS)
        await adapter.conn.cancel(session_id=session)
        cancelled = await second
        # The next prompt is the one Claude takes up, with the second turn's script.
        third = await adapter.prompt(session, "third")
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(cancelled, PromptResponse) and cancelled.stop_reason == "cancelled"
    assert cancelled.usage is None
    assert isinstance(third, PromptResponse) and third.stop_reason == "end_turn"
    assert adapter.agent_texts() == ["First answer.", OWN_WORDS, "Second answer."]
    assert set(adapter.answers().values()) == {1}


def _lifecycle(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Claude Code's `command_lifecycle` frames, as the client got them raw."""
    return [
        m["params"]["message"]
        for m in frames
        if m.get("method") == "_claude/sdkMessage"
        and m["params"]["message"].get("type") == "command_lifecycle"
    ]


def _answer_index(frames: list[dict[str, Any]], n: int) -> int:
    """Where the `n`th prompt response (from 0) is among `frames`."""
    answers = [
        i
        for i, m in enumerate(frames)
        if isinstance(m.get("result"), dict) and "stopReason" in m["result"]
    ]
    return answers[n]
