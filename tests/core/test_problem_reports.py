"""Claude Code's reports of what it could not do that no update carries (`fsm.ProblemReports`):
the reference's log lines for `plugin_errors`, `session_writes_lost` and `mirror_error`."""

from __future__ import annotations

from typing import Any

import pytest

from fsm import ProblemReports

PLUGINS = [
    {"plugin": "lint", "type": "manifest", "path": "/p/lint", "message": "bad manifest"},
    {"plugin": "fmt", "type": "load", "message": "boom"},
]


def test_plugin_errors_are_said_once_per_list() -> None:
    reports = ProblemReports()
    assert reports.lines("init", {"plugin_errors": PLUGINS}) == (
        "Plugin lint failed to load (manifest) from /p/lint: bad manifest",
        "Plugin fmt failed to load (load): boom",
    )
    # A fresh Claude process's init with the same list says nothing new; another list does.
    assert reports.lines("init", {"plugin_errors": PLUGINS}) == ()
    assert reports.lines("init", {"plugin_errors": PLUGINS[:1]}) == (
        "Plugin lint failed to load (manifest) from /p/lint: bad manifest",
    )
    assert reports.lines("init", {"plugin_errors": []}) == ()
    assert reports.lines("init", {}) == ()


def test_lost_writes_and_mirror_errors_are_said() -> None:
    reports = ProblemReports()
    lost = {"lost": ["transcript lines", "~/.claude.json"], "error_code": "ENOSPC"}
    assert reports.lines("session_writes_lost", lost) == (
        "Claude Code could not save transcript lines and ~/.claude.json (ENOSPC); resuming may "
        "miss part of the conversation",
    )
    assert reports.lines("mirror_error", {"error": "append timed out"}) == (
        "failed to persist history: append timed out",
    )


@pytest.mark.parametrize(
    ("subtype", "data"),
    [
        ("init", {"plugin_errors": "not a list"}),
        ("init", {"plugin_errors": [None, 3]}),
        ("session_writes_lost", {"lost": "everything", "error_code": 7}),
        ("mirror_error", {"error": None}),
        ("status", {"plugin_errors": PLUGINS}),
        ("init", None),
    ],
)
def test_any_shape_is_read_without_a_crash(subtype: str, data: Any) -> None:
    for line in ProblemReports().lines(subtype, data):
        assert "None" not in line and isinstance(line, str)
