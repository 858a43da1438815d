"""Whose a result is is the core's answer, through the agent, the real SDK and the scripted
Claude in process (docs/decisions.md#turn-begins-at-echo, docs/decisions.md#result-owner).

The scripted Claude plays a late result of a cancelled prompt's cycle (no autonomous origin; it
names that prompt's message, not the next one) after the next prompt was written but before
Claude takes that prompt up. The core says it is no prompt's (`ShowResult` with no turn): its
tokens go out in a `usage_update` but never count toward the waiting prompt, whose response
carries only its own turn's tokens, and its text, even when nothing streamed it (no output
tokens), is never shown as that prompt's answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.background_scenarios import autonomous_result
from adapter.scripted_claude.steps import RawFrame, Result, Scenario, Sleep, Text
from tests.support.shell_harness import prompted_twice


def _late_result(output_tokens: int, result: str = "") -> RawFrame:
    """The cancelled prompt's late result: no origin, its own message named, 1,000 input tokens
    and `output_tokens` of its own (`result`: its text)."""
    own = autonomous_result(output_tokens, input_tokens=1000, cost_usd=0.5, result=result).frame
    return RawFrame(
        frame={
            **{k: v for k, v in own.items() if k != "origin"},
            "user_message_uuid": "a-cancelled-prompt",
        }
    )


def _before_echo(name: str, late: RawFrame) -> Scenario:
    """The pause ends when the next prompt arrives (its seconds only bound a prompt that never
    comes): `late` is written after that prompt, before Claude takes it up."""
    return Scenario(
        name=name,
        description="",
        turns=(
            (Text(text="First answer."), Result(), Sleep(seconds=30, until_queued=True), late),
            (Text(text="Second answer."), Result()),
        ),
    )


# The late result with tokens, and the same with words nothing streamed (no output tokens): a
# result's text the view would show as a turn's answer that showed nothing else.
LATE_WORDS = "Late words of the cancelled prompt."
SCENARIOS = [
    _before_echo("late_result_before_echo", _late_result(500)),
    _before_echo("late_words_before_echo", _late_result(0, result=LATE_WORDS)),
]


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_late_result_of_another_prompt_counts_toward_no_waiting_prompt(
    tmp_path: Path, capable: bool
) -> None:
    adapter, first, second = await prompted_twice(
        tmp_path, "late_result_before_echo", SCENARIOS, capable=capable
    )
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    assert isinstance(second, PromptResponse), second
    assert second.stop_reason == "end_turn"
    # Only its own turn's tokens: 24 input tokens (the scripted request's), none of the late
    # result's 1,000 and 500.
    assert second.usage is not None
    assert second.usage.input_tokens == 24 and second.usage.output_tokens < 500
    assert second.usage.total_tokens < 1000
    assert adapter.agent_texts() == ["First answer.", "Second answer."]
    assert list(adapter.answers().values()) == [1, 1]


@pytest.mark.asyncio
async def test_a_late_result_of_another_prompt_is_not_the_waiting_prompts_answer(
    tmp_path: Path,
) -> None:
    adapter, first, second = await prompted_twice(
        tmp_path, "late_words_before_echo", SCENARIOS, capable=True
    )
    assert isinstance(first, PromptResponse) and isinstance(second, PromptResponse)
    assert second.stop_reason == "end_turn"
    # Its words are no prompt's answer: the second prompt's is its own turn's alone.
    assert adapter.agent_texts() == ["First answer.", "Second answer."]
    assert second.usage is not None and second.usage.input_tokens == 24
    assert list(adapter.answers().values()) == [1, 1]
