"""Usage per turn, through the agent, the real SDK and the scripted Claude in process
(`agent_in_process`; the scripted Claude's `modelUsage` is a running total per process, as the
real CLI's is): each prompt response's `usage` is its own turn's tokens with `_meta.quota` split
by model; the tokens of work Claude did on its own (a result whose origin is a task
notification) are reported in a `usage_update` but never added to a turn; a turn that used
nothing sends no `usage_update`. Claude's own work that ends after the next prompt went out
(written before Claude read that prompt) is no part of that prompt's turn either: the idle it
ends with is the previous turn's, and the prompt waits for its own answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.background_scenarios import autonomous_result
from adapter.scripted_claude.steps import RawFrame, Result, Scenario, Sleep, Text
from tests.support.shell_harness import agent_in_process

# The scripted Claude's turns these tests play, besides the shipped scenarios.
autonomous = autonomous_result(500, input_tokens=1000, cost_usd=0.5)
_COST_TURN = (
    RawFrame(
        frame={
            "type": "system",
            "subtype": "local_command_output",
            "session_id": "x",
            "uuid": "l1",
            "content": "Total cost: $0",
        }
    ),
    Result(result="Total cost: $0"),
)
MINE = [
    Scenario(
        name="usage_turns",
        description="",
        turns=(
            (Text(text="one two three"), Result()),
            (Text(text="four"), Result(), autonomous),
            _COST_TURN,
        ),
    ),
    # The same, but Claude's own work ends only once the next prompt was sent: its result and
    # the idle after it reach the adapter while that prompt waits for Claude to take it up (the
    # order a loaded machine can give the scenario above). The pause ends when the prompt
    # arrives; its seconds only bound a prompt that never comes.
    Scenario(
        name="usage_turns_own_work_late",
        description="",
        turns=(
            (Text(text="one two three"), Result()),
            (Text(text="four"), Result(), Sleep(seconds=30, until_queued=True), autonomous),
            _COST_TURN,
        ),
    ),
]


def _count(usage: Any) -> dict[str, int]:
    return {
        "totalTokens": usage.total_tokens,
        "inputTokens": usage.input_tokens,
        "cachedInputTokens": usage.cached_read_tokens,
        "cachedWriteTokens": usage.cached_write_tokens,
        "outputTokens": usage.output_tokens,
        "reasoningOutputTokens": 0,
    }


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "scenario", ["usage_turns", "usage_turns_own_work_late"], ids=["in-order", "own-work-late"]
)
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_each_response_carries_its_own_turns_usage(
    tmp_path: Path, capable: bool, scenario: str
) -> None:
    async with agent_in_process(tmp_path, scenario, scenarios=MINE, capable=capable) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "count")
        second = await adapter.prompt(session, "more")
        third = await adapter.prompt(session, "/cost")
    answers = [first, second, third]
    assert all(isinstance(a, PromptResponse) and a.stop_reason == "end_turn" for a in answers)
    assert isinstance(first, PromptResponse) and isinstance(second, PromptResponse)
    assert isinstance(third, PromptResponse)
    assert first.usage is not None and second.usage is not None and third.usage is not None
    # Each turn its own: 24 input tokens each (the scripted request), never 48; the
    # autonomous result's 1,500 are in no turn's usage.
    assert (first.usage.input_tokens, second.usage.input_tokens) == (24, 24)
    assert second.usage.output_tokens < 1000 and third.usage.total_tokens == 0
    for answer in (first, second):
        assert answer.usage is not None
        quota = (answer.field_meta or {})["quota"]
        assert quota["token_count"] == _count(answer.usage)
        # `modelUsage` is a running total: the second turn's row is its own share only.
        assert quota["model_usage"] == [
            {"model": "claude-sonnet-4-5", "token_count": _count(answer.usage)}
        ]
    assert (third.field_meta or {})["quota"]["model_usage"] == []
    # A usage_update per result that used something: two turns and the autonomous work;
    # the local command used nothing and sends none.
    costs = [u for u in adapter.updates("usage_update") if "cost" in u]
    assert len(costs) == 3 and costs[-1]["cost"]["amount"] == 0.5
