"""Bounded memory end to end: the resident set of a real adapter process driven through many
failing turns of one session (the scripted Claude's `rate_limit_every_turn`) stays flat. The
core's own bound (10,000 failing turns hold what ten do) is measured with `tracemalloc` in
`tests/core/test_memory_bounds.py`.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.harness import spawn_adapter

MB = 1024 * 1024


# --- end to end: the adapter's resident set ---------------------------------------------------


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.mark.asyncio
async def test_adapter_rss_stays_flat_over_many_failing_turns(tmp_path: Path) -> None:
    async with spawn_adapter(
        tmp_path, "rate_limit_every_turn", env={"CLAUDE_ACP_LOG": "WARNING"}
    ) as adapter:
        session = await adapter.new_session()
        counter = itertools.count()

        async def fail(times: int) -> None:
            for _ in range(times):
                answer = await adapter.prompt(session, f"prompt {next(counter)}")
                assert isinstance(answer, PromptResponse), answer
                assert answer.field_meta is not None  # the rate-limit record rode on it

        await fail(50)  # warm up: imports, caches, the SDK's buffers
        baseline = _rss(adapter.process.pid)
        await fail(1_500)
        grown = _rss(adapter.process.pid) - baseline
    answers = adapter.answers()
    assert len(answers) == 1_550 and set(answers.values()) == {1}
    print(f"\nadapter RSS grew {grown / 1024:.0f} KiB over 1,500 failing turns")
    assert grown < 4 * MB, grown
