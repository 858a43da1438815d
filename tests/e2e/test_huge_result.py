"""A 100 MiB tool result (the scripted Claude's `huge_tool_result`) costs the adapter a bounded
multiple of its size at peak (within 6x), and its card shows the output's head with a
note of what was left out (`adapter.view.long_output`); the turn ends normally."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.heavy_scenarios import HUGE_RESULT_BYTES, HUGE_RESULT_LINE
from adapter.view.long_output import SHOWN_CHARACTERS
from tests.support.harness import spawn_adapter

MIB = 1024 * 1024
# The bound allows 6x the result's size over the process's baseline; the SDK's own line framing
# holds about 3x (its chunks, their join, the split line), so 4x is met with margin and still
# fails if the card (200 MiB encoded) or another copy came back.
BOUND = 4 * HUGE_RESULT_BYTES


def _peak(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


@pytest.mark.asyncio
async def test_a_100_mib_tool_result_stays_within_a_bounded_peak(tmp_path: Path) -> None:
    env = {"CLAUDE_ACP_LOG": "WARNING"}
    async with spawn_adapter(tmp_path, "huge_tool_result", env=env) as adapter:
        session = await adapter.new_session()
        baseline = _peak(adapter.process.pid)
        answer = await adapter.prompt(session, "build everything")
        grown = _peak(adapter.process.pid) - baseline
    print(f"\nadapter peak RSS grew {grown / MIB:.0f} MiB for {HUGE_RESULT_BYTES // MIB} MiB")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert "The build printed a lot." in adapter.agent_texts()
    [done] = [u for u in adapter.updates("tool_call_update") if u.get("status") == "completed"]
    shown = done["content"][0]["content"]["text"]
    assert shown.startswith("```console\n" + HUGE_RESULT_LINE)
    lines = HUGE_RESULT_BYTES // len(HUGE_RESULT_LINE)
    assert shown.endswith(f"of {lines:,} lines]\n```")
    assert len(shown) < SHOWN_CHARACTERS + 200
    assert done["rawOutput"].endswith(f"of {lines:,} lines]")
    assert grown < BOUND, f"{grown / MIB:.0f} MiB"
