"""Claude's own work between a prompt being written and its echo, through the agent, the real
SDK and the scripted Claude in process (docs/decisions.md#turn-begins-at-echo).

The scripted Claude plays a background task's follow-up (its words, then a result whose origin
is a task notification, then its idle) after the next prompt was written but before it takes
that prompt up and echoes it. The follow-up's words are shown, once; the prompt is answered by
its own turn: its own stop reason and its own tokens, never "ended without a result" at the
follow-up's idle.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.background_scenarios import autonomous_result
from adapter.scripted_claude.steps import Result, Scenario, Sleep, Text
from tests.support.shell_harness import prompted_twice

FOLLOW_UP = "The background audit found nothing."
# The follow-up's result: Claude's own work, with tokens of its own.
OWN_RESULT = autonomous_result(500, input_tokens=1000, result=FOLLOW_UP, cost_usd=0.5)
# The pause ends when the next prompt arrives (its seconds only bound a prompt that never
# comes): the follow-up is written after that prompt, before Claude takes it up.
SCENARIOS = [
    Scenario(
        name="own_work_before_echo",
        description="",
        turns=(
            (
                Text(text="First answer."),
                Result(),
                Sleep(seconds=30, until_queued=True),
                Text(text=FOLLOW_UP),
                OWN_RESULT,
            ),
            (Text(text="Second answer, cut short."), Result(stop_reason="max_tokens")),
        ),
    )
]


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_own_work_before_the_echo_is_shown_and_not_the_prompts_answer(
    tmp_path: Path, capable: bool
) -> None:
    adapter, first, second = await prompted_twice(
        tmp_path, "own_work_before_echo", SCENARIOS, capable=capable
    )
    assert isinstance(first, PromptResponse) and first.stop_reason == "end_turn"
    # The second prompt is answered by its own turn: its stop reason, its tokens (24 input
    # tokens, the scripted request's; none of the follow-up's 1,000 and 500).
    assert isinstance(second, PromptResponse), second
    assert second.stop_reason == "max_tokens"
    assert second.usage is not None
    assert second.usage.input_tokens == 24 and second.usage.output_tokens < 500
    # Every word shown, once, in the order Claude said them: the follow-up is not lost, and the
    # prompt's reply is its own words.
    assert adapter.agent_texts() == ["First answer.", FOLLOW_UP, "Second answer, cut short."]
    assert adapter.records() == []
    assert list(adapter.answers().values()) == [1, 1]
