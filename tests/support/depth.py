"""How far the volume and randomized tests of the core go: `quick` unless pytest runs with
`--deep` (tests/conftest.py), which the project's whole check does (`tests/run.py`).

The quick budgets keep each test's discriminating rule and shrink only its volume: the memory
tests keep the same bytes-per-turn allowance over fewer turns (every bounded window still
overflows many times), the stateful test the same step count over fewer examples. So the core
alone runs in seconds (docs/testing.md, "Depth budgets"), and the gate still plays the deep budgets.
"""

from __future__ import annotations

__all__ = ["budget", "configure", "is_deep"]

_deep = False


def configure(*, deep: bool) -> None:
    """Called once per pytest process (controller and every worker) before collection."""
    global _deep
    _deep = deep


def is_deep() -> bool:
    return _deep


def budget(*, quick: int, deep: int) -> int:
    """`deep` under `--deep`, else `quick`. Read at import time by test modules: collection
    comes after `pytest_configure`, so the choice is already made."""
    return deep if _deep else quick
