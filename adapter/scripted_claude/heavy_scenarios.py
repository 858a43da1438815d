"""Scenarios that weigh on the adapter's memory: one tool result of 100 MiB.

The result is built when the turn plays (`ToolUse.repeat`), never held by a process that does
not play it. What the adapter does with it is measured by `tests/e2e/test_huge_result.py` and
the benchmark's `huge_result` phase.
"""

from __future__ import annotations

from adapter.scripted_claude.steps import Result, Scenario, Text, ToolUse

__all__ = ["HEAVY_SCENARIOS", "HUGE_RESULT_BYTES", "HUGE_RESULT_LINE"]

# The 64-byte line a build would print, and how many bytes of it the one result holds.
HUGE_RESULT_LINE = "build step 0000: compiled module ok; warnings none; cached no..\n"
HUGE_RESULT_BYTES = 100 * 1024 * 1024

HEAVY_SCENARIOS = (
    Scenario(
        name="huge_tool_result",
        description="One Bash call whose output is 100 MiB (the memory benchmark).",
        turns=(
            (
                ToolUse(
                    name="Bash",
                    input={"command": "make all", "description": "Build everything"},
                    result=HUGE_RESULT_LINE,
                    repeat=HUGE_RESULT_BYTES // len(HUGE_RESULT_LINE),
                ),
                Text(text="The build printed a lot."),
                Result(),
            ),
        ),
    ),
)
