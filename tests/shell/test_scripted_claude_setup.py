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
from adapter.scripted_claude.scenarios import added_scenario, scenario_modules
from adapter.scripted_claude.steps import Scenario
from tests.support.scripted import MODULE
from tests.support.scripted_expectations import ADAPTER_ONLY, EXPECTED


def test_every_scenario_has_an_expectation() -> None:
    assert set(EXPECTED) | ADAPTER_ONLY == set(scenario_names())
    assert DEFAULT_SCENARIO in SCENARIOS


def test_the_suites_random_sessions_are_found_only_through_the_listed_modules() -> None:
    # The product does not ship them: the demo lists, and --simulate plays, only SCENARIOS.
    assert not any(name.startswith("random:") for name in SCENARIOS)
    assert added_scenario("random:1", ()) is None
    drawn = added_scenario("random:1", (MODULE,), session_id="s-1")
    assert isinstance(drawn, Scenario) and drawn.name == "random:1" and drawn.turns
    # The same seed and session draw the same turns (a resumed process agrees with the first).
    assert added_scenario("random:1", (MODULE,), session_id="s-1") == drawn
    assert added_scenario("no_such_scenario", (MODULE,)) is None
    assert scenario_modules(" a.b , ,c ") == ("a.b", "c")


def test_a_launcher_names_the_suites_scenarios_for_the_process_it_starts(
    tmp_path: Path,
) -> None:
    script = write_launcher(tmp_path / "bin", scenario="random:7", modules=MODULE).read_text()
    assert f"CLAUDE_ACP_SCENARIO_MODULES={MODULE}" in script
    bare = write_launcher(tmp_path / "bare", modules="").read_text()
    assert "CLAUDE_ACP_SCENARIO_MODULES" not in bare
    with pytest.raises(KeyError):
        write_launcher(tmp_path / "none", scenario="random:7", modules="")


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
