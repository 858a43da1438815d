"""Idle compaction's settings as the shell reads them (`adapter/claude/idle_settings.py`, the
reference adapter's keys and variables), and the cache lifetime the usage meter reports for it
(`adapter/view/usage.py`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from adapter.claude import idle_settings
from adapter.claude.idle_settings import DELAY_ENV, idle_policy
from adapter.claude.settings_reader import SettingsReader
from adapter.view.usage import UsageMeter
from fsm import DEFAULT_DELAY_SECONDS, IdlePolicy, SettingsWarnings

VARIABLES = (
    "DISABLE_COMPACT",
    "DISABLE_AUTO_COMPACT",
    "CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS",
    DELAY_ENV,
    "CLAUDE_CONFIG_DIR",
)


@pytest.fixture(autouse=True)
def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test is a process of its own as far as the delay's warning goes."""
    monkeypatch.setattr(idle_settings, "_delay_warnings", SettingsWarnings())


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The launch environment of a session whose Claude settings live in `tmp_path`."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "config").mkdir()
    (tmp_path / "project" / ".claude").mkdir(parents=True)
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}


def _write(path: Path, settings: dict[str, Any]) -> None:
    path.write_text(json.dumps(settings), encoding="utf-8")


def _idle(cwd: str, env: dict[str, str]) -> IdlePolicy:
    """The policy of a session in `cwd` whose Claude starts with `env`, from its files now."""
    return idle_policy(SettingsReader(cwd, env).read(), env)


def _project(tmp_path: Path) -> str:
    return str(tmp_path / "project")


def test_no_settings_is_the_reference_default(tmp_path: Path, home: dict[str, str]) -> None:
    assert _idle(_project(tmp_path), home) == IdlePolicy()
    assert IdlePolicy().delay_seconds == DEFAULT_DELAY_SECONDS == 3240.0


@pytest.mark.parametrize(
    ("settings", "why"),
    [
        ({"idleCompaction": False}, "the idleCompaction setting"),
        ({"autoCompactEnabled": False}, "the autoCompactEnabled setting"),
        ({"env": {"DISABLE_AUTO_COMPACT": " Yes "}}, "DISABLE_AUTO_COMPACT"),
    ],
)
def test_a_user_setting_turns_it_off(
    tmp_path: Path, home: dict[str, str], settings: dict[str, Any], why: str
) -> None:
    _write(tmp_path / "config" / "settings.json", settings)
    assert _idle(_project(tmp_path), home).disabled_by == why


def test_a_later_file_wins(tmp_path: Path, home: dict[str, str]) -> None:
    _write(tmp_path / "project" / ".claude" / "settings.json", {"idleCompaction": False})
    _write(tmp_path / "project" / ".claude" / "settings.local.json", {"idleCompaction": True})
    assert _idle(_project(tmp_path), home).disabled_by is None


def test_a_settings_env_block_wins_over_the_environment(
    tmp_path: Path, home: dict[str, str]
) -> None:
    launch = {**home, "DISABLE_COMPACT": "1"}
    assert _idle(_project(tmp_path), launch).disabled_by == "DISABLE_COMPACT"
    _write(tmp_path / "config" / "settings.json", {"env": {"DISABLE_COMPACT": "0"}})
    assert _idle(_project(tmp_path), launch).disabled_by is None


def test_a_value_that_is_not_false_leaves_it_on(tmp_path: Path, home: dict[str, str]) -> None:
    _write(tmp_path / "config" / "settings.json", {"idleCompaction": "no", "env": "nonsense"})
    (tmp_path / "project" / ".claude" / "settings.json").write_text("{not json", "utf-8")
    assert _idle(_project(tmp_path), home).disabled_by is None


@pytest.mark.parametrize(
    ("raw", "tokens"),
    [("300000", 300000), ("50000", 100000), ("0", 200000), ("lots", 200000), ("-1", 200000)],
)
def test_the_minimum_context_never_goes_below_100k(
    tmp_path: Path, home: dict[str, str], raw: str, tokens: int
) -> None:
    launch = {**home, "CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS": raw}
    assert _idle(_project(tmp_path), launch).min_tokens == tokens


def test_the_delay_variable_sets_the_delay(tmp_path: Path, home: dict[str, str]) -> None:
    assert _idle(_project(tmp_path), {**home, DELAY_ENV: "1500"}).delay_seconds == 1.5
    assert _idle(_project(tmp_path), {**home, DELAY_ENV: "0"}).delay_seconds == 0.0


@pytest.mark.parametrize("raw", ["-5", "soon", "1.5", "9999999999999"])
def test_a_bad_delay_is_warned_about_and_ignored(
    tmp_path: Path, home: dict[str, str], raw: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        policy = _idle(_project(tmp_path), {**home, DELAY_ENV: raw})
    assert policy.delay_seconds == DEFAULT_DELAY_SECONDS
    assert DELAY_ENV in caplog.text and raw not in caplog.text


def test_a_bad_delay_is_warned_about_once_a_process(
    tmp_path: Path, home: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    # docs/decisions.md#settings-warned-once: read at every prompt of every session, said once.
    def warnings(raw: str | None) -> int:
        caplog.clear()
        launch = home if raw is None else {**home, DELAY_ENV: raw}
        with caplog.at_level(logging.WARNING):
            policy = _idle(_project(tmp_path), launch)
        if raw != "1500":
            assert policy.delay_seconds == DEFAULT_DELAY_SECONDS
        return caplog.text.count(DELAY_ENV)

    # Every prompt of a session, and a second session, read the same bad value: one warning.
    assert [warnings("soon") for _ in range(3)] == [1, 0, 0]
    # Another bad value is news; so is the first again once a good value was read between.
    assert [warnings("later"), warnings("later")] == [1, 0]
    assert [warnings("1500"), warnings("later")] == [0, 1]
    # Unset in between counts as fixed too.
    assert [warnings(None), warnings("later"), warnings("later")] == [0, 1, 0]


def _start(creation: dict[str, int] | None) -> dict[str, Any]:
    usage: dict[str, Any] = {"input_tokens": 10, "output_tokens": 1}
    if creation is not None:
        usage["cache_creation"] = creation
    return {"type": "message_start", "message": {"model": "claude-sonnet-4-5", "usage": usage}}


def test_the_meter_keeps_the_cache_lifetime_the_last_request_said() -> None:
    meter = UsageMeter()
    meter.saw_stream(_start(None))
    assert meter.cache_ttl is None
    meter.saw_stream(_start({"ephemeral_1h_input_tokens": 5, "ephemeral_5m_input_tokens": 0}))
    assert meter.cache_ttl == "1h"
    meter.saw_stream(_start({"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}))
    assert meter.cache_ttl == "1h"  # said nothing: the last one that said stands
    meter.saw_request({"cache_creation": {"ephemeral_5m_input_tokens": 7}})
    assert meter.cache_ttl == "5m"
