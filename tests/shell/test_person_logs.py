"""Stderr at the default level is worded for a person (adapter/app/logs.py): no logger name, no
traceback, no internal id, nothing from the libraries; INFO or DEBUG asked for keeps it all."""

from __future__ import annotations

import logging
import sys

import pytest

from adapter.app import logs
from adapter.app.logs import for_a_person

ID = "04475951-a3a8-4d09-ad96-0690aa66f2df"


def _record(name: str, level: int, message: str, *, failing: bool = False) -> logging.LogRecord:
    exc_info = None
    if failing:
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            exc_info = sys.exc_info()
    return logging.LogRecord(name, level, __file__, 1, message, (), exc_info)


def test_ids_leave_the_message() -> None:
    assert for_a_person(f"session {ID}: interrupt failed") == "interrupt failed"
    assert for_a_person(f"Claude runtime {ID} ignored SIGTERM") == "Claude Code ignored SIGTERM"
    assert for_a_person(f"could not record session {ID} for a later load") == (
        "could not record session for a later load"
    )


def test_the_default_level_writes_for_a_person(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(logs.LOG_LEVEL_ENV, raising=False)
    handler = logs._stderr_handler()
    ours = _record("adapter.session.session", logging.ERROR, f"session {ID}: fault", failing=True)
    assert handler.filter(ours)
    assert handler.format(ours) == "claude-acp: fault (details with --log-file FILE)"
    assert not handler.filter(_record("claude_agent_sdk._internal.query", logging.ERROR, "x"))


def test_info_asked_for_keeps_the_full_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(logs.LOG_LEVEL_ENV, "INFO")
    handler = logs._stderr_handler()
    library = _record("claude_agent_sdk._internal", logging.ERROR, "Fatal error", failing=True)
    assert handler.filter(library)
    line = handler.format(library)
    assert "ERROR claude_agent_sdk._internal: Fatal error" in line and "Traceback" in line
