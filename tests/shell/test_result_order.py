"""Where a result's text and its `usage_update` go out among the other updates, and whose turn
they count toward, on the fakes of `tests/support/shell_harness.py`
(docs/decisions.md#turn-begins-at-echo, docs/decisions.md#own-work-ends-its-cards).

The core says whose each result is (`ShowResult`, docs/decisions.md#result-owner); the view
shows its text as the turn's answer (when the turn showed nothing else) and counts its tokens
only where the core says it is the turn's. The order of what one result frame sends is pinned
(as it was when the view judged it itself): its text, then its `usage_update`, then what ends
the turn or the work (cards closed, the session's title), then the prompt's answer. A result
the core says is no prompt's (between turns, a cancelled prompt's late one) shows no text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from acp.schema import PromptResponse
from claude_agent_sdk import AssistantMessage, ResultMessage, SystemMessage, ToolUseBlock

from adapter.scripted_claude.background_scenarios import autonomous_result
from adapter.scripted_claude.steps import RawFrame, Scenario
from tests.support.shell_harness import (
    EPOCH,
    WAIT,
    FakeLink,
    agent_in_process,
    answer_of,
    echo,
    prompt_in_background,
    result_message,
    session_with_fakes,
)

pytestmark = pytest.mark.anyio

RESULT_TEXT = "Only the result says this."
OPEN_CARD = AssistantMessage(
    content=[ToolUseBlock(id="toolu_open", name="Read", input={"file_path": "/notes.txt"})],
    model="claude-x",
)


def _result(
    text: str | None = RESULT_TEXT,
    *,
    output_tokens: int = 0,
    input_tokens: int = 10,
    own_work: bool = False,
    prompts: tuple[str, ...] = (),
    is_error: bool = False,
) -> ResultMessage:
    """A result whose `text` nothing streamed (no output tokens by default)."""
    return result_message(
        is_error=is_error,
        text=text,
        subtype="error_during_execution" if is_error else "success",
        own_work=own_work,
        usage={"input_tokens": input_tokens, "output_tokens": output_tokens},
        total_cost_usd=0.01,
        prompts=prompts,
    )


def _idle() -> tuple[SystemMessage, dict[str, object]]:
    raw: dict[str, object] = {"type": "system", "subtype": "session_state_changed", "state": "idle"}
    return SystemMessage(subtype="session_state_changed", data=raw), raw


def _kind(update: Any) -> str:
    if isinstance(update, dict):
        kind = str(update.get("sessionUpdate"))
        content = update.get("content")
        if kind == "agent_message_chunk" and isinstance(content, dict):
            return f"text:{content.get('text')}"
        if kind == "tool_call_update":
            return f"tool_call_update:{update.get('status')}"
        return kind
    return str(getattr(update, "session_update", type(update).__name__))


async def _sent_by(link: FakeLink, play: Any) -> list[str]:
    """What `play()` made the session send, in order, by kind."""
    before = len(link.sent)
    await play()
    return [_kind(update) for update in link.sent[before:]]


async def test_a_turns_result_text_goes_out_before_its_usage_the_cards_end_and_the_title() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        await session.claude.on_message(OPEN_CARD, {}, EPOCH)
        sent = await _sent_by(link, lambda: session.claude.on_message(_result(), {}, EPOCH))
        assert sent == [
            f"text:{RESULT_TEXT}",
            "usage_update",
            "tool_call_update:failed",
            "session_info_update",
        ]
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
        assert answer.usage is not None and answer.usage.input_tokens == 10


async def test_a_turns_failed_result_sends_its_usage_before_the_cards_end() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        await session.claude.on_message(OPEN_CARD, {}, EPOCH)
        failed = _result("API Error: 500", is_error=True)
        sent = await _sent_by(link, lambda: session.claude.on_message(failed, {}, EPOCH))
        # An error's text is the record's, never shown as the answer's.
        assert sent == ["usage_update", "tool_call_update:failed", "session_info_update"]
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.field_meta is not None
        assert answer.usage is not None and answer.usage.input_tokens == 10


async def test_own_work_in_a_running_turn_sends_its_usage_then_ends_its_cards_and_no_text() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        await session.claude.on_message(OPEN_CARD, {}, EPOCH)
        own = _result("The audit is done.", input_tokens=1000, own_work=True)
        sent = await _sent_by(link, lambda: session.claude.on_message(own, {}, EPOCH))
        assert sent == ["usage_update", "tool_call_update:failed"]
        assert not box
        # The turn's own result answers it, with its own tokens only.
        sent = await _sent_by(link, lambda: session.claude.on_message(_result(), {}, EPOCH))
        assert sent == [f"text:{RESULT_TEXT}", "usage_update", "session_info_update"]
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.usage is not None
        assert answer.usage.input_tokens == 10


async def test_a_result_between_turns_is_no_turns_answer() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        await session.claude.on_message(_result("Error", is_error=True), {}, EPOCH)
        assert isinstance(await answer_of(box), PromptResponse)
        # A failed turn showed no text: a result after its answer still is no turn's.
        late = _result("Words of a cycle no prompt asked for.")
        sent = await _sent_by(link, lambda: session.claude.on_message(late, {}, EPOCH))
        assert sent == ["usage_update"]


async def test_a_cancelled_prompts_late_result_is_not_the_next_prompts_answer() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        first = await prompt_in_background(session, runtime, tg)
        cancelled = runtime.prompts[-1]["uuid"]
        await session.cancel()
        with anyio.fail_after(WAIT):
            while runtime.interrupts < 1:
                await anyio.sleep(0)
        await session.claude.on_message(*_idle(), EPOCH)
        answer = await answer_of(first)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
        # The next prompt is written; before Claude takes it up, the cancelled prompt's late
        # result comes: words nothing streamed (no output tokens), and tokens of its own.
        second = await prompt_in_background(session, runtime, tg, echoed=False)
        late = _result(
            "Late words of the cancelled prompt.", input_tokens=1000, prompts=(cancelled,)
        )
        sent = await _sent_by(link, lambda: session.claude.on_message(late, {}, EPOCH))
        assert sent == ["usage_update"]
        await echo(session, runtime, runtime.prompts[-1])
        sent = await _sent_by(link, lambda: session.claude.on_message(_result(), {}, EPOCH))
        assert sent == [f"text:{RESULT_TEXT}", "usage_update"]
        answer = await answer_of(second)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
        assert answer.usage is not None and answer.usage.input_tokens == 10


# Through the agent, the real SDK and the scripted Claude: a turn whose only words are its
# result's (nothing streamed them: no output tokens), as a local command's or a cache-replayed
# answer's are.
_ONLY = autonomous_result(0, input_tokens=24, result=RESULT_TEXT).frame
SCENARIOS = [
    Scenario(
        name="answer_in_the_result_alone",
        description="",
        turns=((RawFrame(frame={k: v for k, v in _ONLY.items() if k != "origin"}),),),
    )
]


async def test_through_the_agent_the_results_text_comes_before_its_usage_title_and_answer(
    tmp_path: Path,
) -> None:
    async with agent_in_process(
        tmp_path, "answer_in_the_result_alone", scenarios=SCENARIOS
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "What does the result say?")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    order: list[str] = []
    for message in adapter.incoming():
        if message.get("method") == "session/update":
            update = message["params"]["update"]
            kind = update.get("sessionUpdate")
            if kind == "agent_message_chunk":
                order.append(f"text:{update['content'].get('text')}")
            elif kind in ("usage_update", "session_info_update"):
                order.append(kind)
        elif isinstance(message.get("result"), dict) and "stopReason" in message["result"]:
            order.append("answer")
    assert order[order.index(f"text:{RESULT_TEXT}") :] == [
        f"text:{RESULT_TEXT}",
        "usage_update",
        "session_info_update",
        "answer",
    ]
    assert answer.usage is not None and answer.usage.input_tokens == 24
