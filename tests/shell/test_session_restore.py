"""What a reopened session starts with, in process: the transcript tail reader
(`adapter.claude.transcript_tail`) and the picker rules that use it (`SessionConfig.initial` /
`adopt`).
The whole-agent side is `tests/shell/test_resume_mode_and_model.py`; the real CLI's transcript
shape is checked in `tests/real_claude/test_sessions.py`."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from adapter.claude.transcript_tail import Tail, read_tail
from adapter.claude.transcripts import BACK_BLOCK
from adapter.controls.pickers import SessionConfig
from adapter.scripted_claude.handshake import MODELS


def _prompt(mode: str | None, text: str = "do it") -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": "user",
        "isSidechain": False,
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    if mode is not None:
        entry["permissionMode"] = mode
    return entry


def _answer(model: str, *, sidechain: bool = False, text: str = "done") -> dict[str, Any]:
    return {
        "type": "assistant",
        "isSidechain": sidechain,
        "message": {
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
        },
    }


def _tool_result(size: int = 10) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": "t1", "content": "x" * size}
    return {"type": "user", "isSidechain": False, "message": {"role": "user", "content": [block]}}


def _write(tmp_path: Path, *entries: dict[str, Any] | str) -> Path:
    path = tmp_path / "session.jsonl"
    lines = [e if isinstance(e, str) else json.dumps(e) for e in entries]
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_the_last_mode_and_model_win(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _prompt("default"),
        _answer("claude-sonnet-4-5"),
        _prompt("acceptEdits"),
        _answer("claude-haiku-4-5"),
        {"type": "last-prompt", "lastPrompt": "do it"},
    )
    assert read_tail(path) == Tail(mode="acceptEdits", model="claude-haiku-4-5")


def test_subagents_and_claude_codes_own_notices_do_not_count(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _prompt("plan"),
        _answer("claude-opus-4-1"),
        _answer("<synthetic>", text="API Error: 500"),
        {**_prompt("bypassPermissions"), "isSidechain": True},
        _answer("claude-haiku-4-5", sidechain=True),
    )
    assert read_tail(path) == Tail(mode="plan", model="claude-opus-4-1")


def test_a_plan_left_through_exit_plan_mode_is_not_current(tmp_path: Path) -> None:
    exit_plan = {"type": "attachment", "attachment": {"type": "plan_mode_exit"}}
    path = _write(tmp_path, _prompt("plan"), _answer("claude-opus-4-1"), exit_plan, _tool_result())
    assert read_tail(path) == Tail(mode=None, model="claude-opus-4-1")


def test_a_claude_code_that_records_no_modes_gives_none(tmp_path: Path) -> None:
    # The search stops at a prompt without a mode: an older mode further back is not current.
    path = _write(tmp_path, _prompt("plan"), _prompt(None), _answer("claude-opus-4-1"))
    assert read_tail(path) == Tail(mode=None, model="claude-opus-4-1")


def test_lines_across_chunks_and_bad_lines(tmp_path: Path) -> None:
    # A large tool result after the last prompt spans several chunks; a torn or foreign line
    # anywhere is skipped.
    path = _write(
        tmp_path,
        _prompt("acceptEdits"),
        "{not json",
        _answer("claude-opus-4-1"),
        _tool_result(size=3 * BACK_BLOCK + 17),
        "[1, 2]",
        "",
    )
    assert read_tail(path) == Tail(mode="acceptEdits", model="claude-opus-4-1")


def test_an_unreadable_transcript_says_nothing(tmp_path: Path) -> None:
    assert read_tail(tmp_path / "missing.jsonl") == Tail()
    assert read_tail(_write(tmp_path, "garbage")) == Tail()


# --- the pickers ------------------------------------------------------------------------------


def _adopted(config: SessionConfig, models: list[dict[str, Any]] | None = None) -> bool:
    return config.adopt({"models": [dict(m) for m in MODELS] if models is None else models})


def test_the_transcripts_mode_and_model_are_restored() -> None:
    config = SessionConfig.initial(
        {"IS_SANDBOX": "1"},
        "plan",
        resumed=Tail(mode="bypassPermissions", model="claude-haiku-4-5"),
    )
    assert (config.mode, config.model) == ("bypassPermissions", "claude-haiku-4-5")
    assert _adopted(config) is False
    assert config.model == "haiku"  # the picker entry Claude Code resolves to it


def test_the_default_entry_is_marked_when_it_names_the_model() -> None:
    config = SessionConfig.initial({}, None, resumed=Tail(model="claude-sonnet-4-5"))
    assert _adopted(config) is False
    assert config.model == "default"


def test_a_mode_not_offered_here_falls_back_to_the_settings_default(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 0)  # root, outside a sandbox
    with caplog.at_level(logging.WARNING, logger="adapter.controls.pickers"):
        config = SessionConfig.initial(
            {}, "acceptEdits", resumed=Tail(mode="bypassPermissions"), label="session s1"
        )
    assert config.mode == "acceptEdits"
    assert "bypassPermissions" not in config.modes
    assert "session s1: its transcript's mode 'bypassPermissions' is not available" in caplog.text


def test_a_model_no_longer_offered_falls_back_to_the_default(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = SessionConfig.initial({}, None, resumed=Tail(model="claude-3-opus-20240229"))
    with caplog.at_level(logging.WARNING, logger="adapter.controls.pickers"):
        assert _adopted(config) is True  # the running Claude has to be told
    assert config.model == "default"
    assert "claude-3-opus-20240229" not in [c.value for c in config.models]
    assert "no longer offers its transcript's model 'claude-3-opus-20240229'" in caplog.text


def test_without_resolved_models_the_transcripts_model_is_kept() -> None:
    # An older Claude Code that does not say what its entries resolve to: nothing to judge by.
    entries = [{"value": "default", "displayName": "Default"}, {"value": "opus"}]
    config = SessionConfig.initial({}, None, resumed=Tail(model="claude-opus-4-1"))
    assert _adopted(config, entries) is False
    assert config.model == "claude-opus-4-1"
    assert [c.value for c in config.models] == ["default", "opus", "claude-opus-4-1"]


def test_the_environments_model_wins() -> None:
    config = SessionConfig.initial(
        {"ANTHROPIC_MODEL": "opus"}, None, resumed=Tail(model="claude-haiku-4-5")
    )
    assert _adopted(config) is False
    assert config.model == "opus"
