"""What each round of opening and closing leaves in a real agent (nothing per
closed session or load/fork round), bounded in exact counts rather than the resident set: the
interpreter's allocated blocks and the objects its collector tracks, read by the agent itself
(`tests.bench.traced_agent`, tracing off) after a warm-up and after the rounds, each the least
of a few readings. The resident set moves in pages and arenas and needs hundreds of rounds to
show a slope: `python -m tests.bench.slopes` measures it (BENCHMARKS.md).

Measured over 24-40 rounds: a released session leaves no object and 12-22 blocks a round
(fewer over more rounds: 7 over 150; mostly short strings, such as the closed ids the agent
keeps, the newest 1,000); a session replaced by a reload and never detached from the shared
machines (the bug this pins) left 47 objects and 79-83 blocks a round. The bounds sit
between, with room for noise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.agents import write_scenario_launcher
from tests.bench.slopes import KINDS, run_slope

WARMUP = 8
ROUNDS = 24
OBJECTS_PER_ROUND = 5.0
BLOCKS_PER_ROUND = 40.0
# The reload rounds keep their last load live (its Claude process); the others close theirs.
CHILDREN_LEFT = {"closed": 0, "load_fork": 0, "reload": 1}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", KINDS)
async def test_a_round_of_opening_and_closing_leaves_nothing_behind(
    kind: str, tmp_path: Path
) -> None:
    launcher = write_scenario_launcher(tmp_path)
    sample = await run_slope(kind, launcher, rounds=ROUNDS, warmup=WARMUP, count=True)
    assert sample.error is None, sample.error
    objects, blocks = sample.per_round("objects"), sample.per_round("blocks")
    print(f"\n{kind}: {objects:+.1f} objects, {blocks:+.1f} blocks a round")
    assert objects is not None and objects < OBJECTS_PER_ROUND, sample.counted
    assert blocks is not None and blocks < BLOCKS_PER_ROUND, sample.counted
    assert sample.children_left == CHILDREN_LEFT[kind]
