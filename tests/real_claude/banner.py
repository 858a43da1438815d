"""The summary banner that says loudly when the real-Claude-Code tier could not run.

It reads the skip reports themselves, so it works where the reports end up: in the one pytest
process, or in the controller of a `pytest -n N` (xdist) run, which collects nothing and so never
loads `tests/real_claude/conftest.py`; `tests/conftest.py`, which every process loads, imports
`pytest_terminal_summary` from here. Should it be registered twice, it still prints once.
"""

from __future__ import annotations

import pytest

__all__ = ["MARK", "pytest_terminal_summary"]

# Every skip reason of the tier starts with this (support.MISSING_REASON).
MARK = "REAL CLAUDE CODE TIER NOT RUN"
_PRINTED = pytest.StashKey[bool]()


def _reason(report: object) -> str:
    # A skip's longrepr is (path, line, "Skipped: <reason>").
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    config = terminalreporter.config
    if config.stash.get(_PRINTED, False):
        return
    reasons = [
        text[text.index(MARK) :]
        for report in terminalreporter.stats.get("skipped", [])
        if MARK in (text := _reason(report))
    ]
    if not reasons:
        return
    config.stash[_PRINTED] = True
    reason = reasons[0]
    terminalreporter.write_sep("!", MARK, red=True, bold=True)
    terminalreporter.write_line(reason, red=True, bold=True)
    terminalreporter.write_line(
        f"{len(reasons)} tests against the real Claude Code CLI were skipped: nothing checks "
        "the adapter against the real CLI on this machine.",
        red=True,
    )
    terminalreporter.write_sep("!", red=True, bold=True)
