"""The line limit bounds memory, measured as the agent's VmHWM from /proc (a memory
bound, never a timing): a line over the limit costs about the limit, one under it a small
multiple of its own size. The full table: `python -m tests.bench.line_limit`."""

from __future__ import annotations

from pathlib import Path

from tests.bench.line_limit import MIB, measure

LIMIT = 4 * MIB
SLACK = 4 * MIB  # allocator and interpreter noise


def test_a_line_far_over_the_limit_costs_about_the_limit(tmp_path: Path) -> None:
    sample = measure(LIMIT, 64 * MIB, tmp_path)
    assert sample.code == -32600
    assert (sample.peak_kib - sample.baseline_kib) * 1024 <= 1.5 * LIMIT + SLACK, sample


def test_a_line_under_the_limit_is_served_in_a_small_multiple_of_its_size(tmp_path: Path) -> None:
    line = 3 * MIB
    sample = measure(LIMIT, line, tmp_path)
    assert sample.code is None  # answered with a result: the long line was served
    assert (sample.peak_kib - sample.baseline_kib) * 1024 <= 4 * line + SLACK, sample
