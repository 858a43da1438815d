"""Claude's own work while a prompt waits in Claude Code's queue, as the scripted Claude plays
it: for tests/e2e/test_prompt_start.py. In `own_work_until_interrupted` that work runs until the
client's cancel interrupts it, and the prompt is still in the queue then.

The first turn answers, then its cycle goes on on its own (a follow-up Claude runs by itself)
until the second prompt arrives: Claude Code says it queued that prompt (`command_lifecycle`),
and the own work says something and ends with a result that names no prompt and has no
autonomous origin. Only Claude Code's `queued` and `started` tell that result apart from the
waiting prompt's answer (docs/decisions.md#turn-begins-at-echo).
"""

from __future__ import annotations

from adapter.scripted_claude.background_scenarios import autonomous_result
from adapter.scripted_claude.steps import Hang, RawFrame, Result, Scenario, Sleep, Text

__all__ = ["OWN_WORDS", "SCENARIOS"]

OWN_WORDS = "The follow-up Claude ran on its own is done."
# Its result: no origin and no prompt named, tokens of its own.
_OWN = autonomous_result(500, input_tokens=1000, result=OWN_WORDS).frame
OWN_RESULT = RawFrame(frame={k: v for k, v in _OWN.items() if k != "origin"})
# The first turn's answer, then its own work: it waits for the second prompt to arrive, and its
# words come after it.
_ANSWER_THEN_OWN_WORDS = (
    Text(text="First answer."),
    Result(),
    Sleep(seconds=30, until_queued=True),
    Text(text=OWN_WORDS),
)

SCENARIOS = [
    Scenario(
        name="own_work_before_start",
        description="",
        turns=(
            (*_ANSWER_THEN_OWN_WORDS, OWN_RESULT),
            (Text(text="Second answer."), Result()),
        ),
    ),
    Scenario(
        name="own_work_until_interrupted",
        description="",
        turns=(
            (*_ANSWER_THEN_OWN_WORDS, Hang()),
            (Text(text="Second answer."), Result()),
        ),
    ),
]
