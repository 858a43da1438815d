"""A prompt that Claude has not taken up yet still gets exactly one answer
(docs/decisions.md#turn-begins-at-echo), on the fakes of `tests/support/shell_harness.py`:
cancelled while Claude's own work runs, or when Claude's process ends, before its echo."""

from __future__ import annotations

import anyio
import pytest
from acp.schema import PromptResponse
from claude_agent_sdk import AssistantMessage, SystemMessage, TextBlock

from fsm import TransportLost
from tests.support.shell_harness import (
    EPOCH,
    WAIT,
    answer_of,
    prompt_in_background,
    result_message,
    session_with_fakes,
)

pytestmark = pytest.mark.anyio

OWN_WORDS = AssistantMessage(content=[TextBlock(text="The audit is done.")], model="claude-x")
OWN_RESULT = result_message(text="The audit is done.", own_work=True)


def _state(state: str) -> tuple[SystemMessage, dict[str, object]]:
    raw: dict[str, object] = {"type": "system", "subtype": "session_state_changed", "state": state}
    return SystemMessage(subtype="session_state_changed", data=raw), raw


async def test_a_prompt_cancelled_before_its_echo_is_answered_cancelled_once() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg, echoed=False)
        await session.claude.on_message(OWN_WORDS, {}, EPOCH)
        assert session.core.turn_state.value == "prompt-sent"
        await session.cancel()
        with anyio.fail_after(WAIT):
            while runtime.interrupts < 1:
                await anyio.sleep(0)
        # The interrupted own work ends: its result is its own, its idle ends the prompt.
        await session.claude.on_message(OWN_RESULT, {}, EPOCH)
        assert not box
        await session.claude.on_message(*_state("idle"), EPOCH)
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
        # The own work's words were shown.
        assert sum("The audit is done." in str(update) for update in link.sent) >= 1
        assert len(box) == 1


async def test_a_prompt_whose_claude_ends_before_its_echo_is_answered_once() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg, echoed=False)
        await session.claude.on_message(OWN_WORDS, {}, EPOCH)
        await session.claude.on_message(OWN_RESULT, {}, EPOCH)
        await session.claude.on_message(*_state("idle"), EPOCH)
        assert not box  # the idle is the own work's, not this prompt's end
        await session.feed(TransportLost(epoch=EPOCH))  # its reader lost Claude
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.field_meta is not None
        record = answer.field_meta["jetbrains"]["air"]["sessionFailure"]
        assert record["category"] == "connection"
        assert len(box) == 1
        assert sum("The audit is done." in str(update) for update in link.sent) >= 1
