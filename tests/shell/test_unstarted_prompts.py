"""A prompt Claude never took up is answered once, with nothing of another turn's
(docs/decisions.md#prompt-ended-unstarted), on the fakes of `tests/support/shell_harness.py`.

Claude Code's `command_lifecycle` word that it ended a prompt before starting it answers that
prompt: `cancelled` when Claude Code withdrew it, an error when it set it aside. A prompt that
never ran, whether Claude Code ended it or the client cancelled it while it waited, reports no
usage: before, a pushed prompt cancelled between turns carried the last turn's tokens as its
own.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from acp import RequestError
from acp.schema import PromptResponse
from claude_agent_sdk import AssistantMessage, TextBlock, ToolUseBlock

from adapter.claude.unparsed import UnparsedFrame
from tests.support.shell_harness import (
    EPOCH,
    answer_of,
    echo,
    prompt_in_background,
    result_message,
    session_with_fakes,
)

pytestmark = pytest.mark.anyio

TOKENS = {"input_tokens": 1000, "output_tokens": 500}


def _lifecycle(state: str, command_uuid: object) -> tuple[UnparsedFrame, dict[str, Any]]:
    frame = {"type": "command_lifecycle", "state": state, "command_uuid": command_uuid}
    return UnparsedFrame(frame), frame


def _stamp(runtime: Any, index: int = -1) -> str:
    stamp = runtime.prompts[index]["uuid"]
    assert isinstance(stamp, str)
    return stamp


async def test_a_prompt_claude_code_withdrew_before_its_start_is_answered_cancelled() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg, echoed=False)
        stamp = _stamp(runtime)
        await session.claude.on_message(*_lifecycle("queued", stamp), EPOCH)
        # Claude's own work runs meanwhile, with a card open.
        call = ToolUseBlock(id="toolu_own", name="Bash", input={"command": "make audit"})
        await session.claude.on_message(AssistantMessage(content=[call], model="m"), {}, EPOCH)
        sent_before = len(link.sent)
        await session.claude.on_message(*_lifecycle("cancelled", "someone-else"), EPOCH)
        assert not box
        await session.claude.on_message(*_lifecycle("cancelled", stamp), EPOCH)
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
        assert answer.usage is None
        # The own work's card is not the prompt's to end: it stays open.
        assert "toolu_own" not in str(link.sent[sent_before:])
        assert len(box) == 1


@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_prompt_claude_code_set_aside_unread_fails_once(capable: bool) -> None:
    # The bundled CLI answers a user frame it cannot read with `completed` alone (probed).
    async with (
        session_with_fakes(capable=capable) as (session, _, runtime, _),
        anyio.create_task_group() as tg,
    ):
        box = await prompt_in_background(session, runtime, tg, echoed=False)
        await session.claude.on_message(*_lifecycle("completed", _stamp(runtime)), EPOCH)
        answer = await answer_of(box)
        if capable:
            assert isinstance(answer, PromptResponse) and answer.field_meta is not None
            record = answer.field_meta["jetbrains"]["air"]["sessionFailure"]
            assert record["title"].startswith("Claude Code set it aside without running it")
            assert answer.usage is None
        else:
            assert isinstance(answer, RequestError)
            assert answer.data == {"errorKind": "not_run"}
        # The late echo of a prompt already answered is nothing.
        await echo(session, runtime, runtime.prompts[-1])
        assert session.core.turn_state.value == "idle"
        assert len(box) == 1


async def test_a_pushed_prompt_cancelled_between_turns_reports_no_tokens_of_the_last() -> None:
    async with session_with_fakes() as (session, _, runtime, _), anyio.create_task_group() as tg:
        first = await prompt_in_background(session, runtime, tg)
        # The second prompt goes to Claude Code while the first runs (prompt queueing).
        second = await prompt_in_background(session, runtime, tg, echoed=False)
        assert len(runtime.prompts) == 2
        await session.claude.on_message(
            AssistantMessage(content=[TextBlock(text="First answer.")], model="m"), {}, EPOCH
        )
        await session.claude.on_message(
            result_message(text="First answer.", usage=TOKENS), {}, EPOCH
        )
        answered = await answer_of(first)
        assert isinstance(answered, PromptResponse) and answered.usage is not None
        assert answered.usage.input_tokens == 1000
        # Between turns, the client cancels the prompt Claude never took up.
        await session.cancel()
        cancelled = await answer_of(second)
        assert isinstance(cancelled, PromptResponse) and cancelled.stop_reason == "cancelled"
        assert cancelled.usage is None
        assert cancelled.field_meta is None or "quota" not in cancelled.field_meta
