"""The scripted Claude's pieces that need no process: every scenario has an expected turn (or is
driven through the adapter instead), the launcher the SDK is pointed at, and the argv parser that
must take flags the real CLI may add later.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from adapter.scripted_claude import DEFAULT_SCENARIO, SCENARIOS, scenario_names, write_launcher
from adapter.scripted_claude.cli_args import parse_argv
from tests.support.scripted_expectations import ADAPTER_ONLY, EXPECTED


def test_every_scenario_has_an_expectation() -> None:
    assert set(EXPECTED) | ADAPTER_ONLY == set(scenario_names())
    assert DEFAULT_SCENARIO in SCENARIOS


def test_write_launcher(tmp_path: Path) -> None:
    path = write_launcher(tmp_path / "with space", scenario="hang")
    assert path.name == "claude"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    script = path.read_text()
    assert script.startswith("#!/bin/sh\n")
    assert '-m adapter.scripted_claude "$@"' in script
    assert 'CLAUDE_ACP_SCENARIO="${CLAUDE_ACP_SCENARIO:-hang}"' in script
    with pytest.raises(KeyError):
        write_launcher(tmp_path, scenario="nope")


def test_parse_argv_accepts_both_flag_forms_and_unknown_flags() -> None:
    args = parse_argv(
        [
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--session-id=abc",
            "--resume",
            "def",
            "--permission-prompt-tool",
            "stdio",
            "--brand-new-flag",
            "value",
            "--another-new-switch",
            "--extra=x=y",
            "--input-format",
            "stream-json",
        ]
    )
    assert args.value("--session-id") == "abc"
    assert args.value("--resume") == "def"
    assert args.value("--system-prompt") == ""
    assert args.value("--permission-prompt-tool") == "stdio"
    assert args.value("--brand-new-flag") == "value"
    assert args.has("--another-new-switch") and args.value("--another-new-switch") is None
    assert args.value("--extra") == "x=y"
    assert args.value("--input-format") == "stream-json"
