"""The model picker under the settings' policy, in the shell: `SessionConfig.adopt` rebuilds
Claude Code's list from `availableModels` (the user's spellings are the values a choice sends),
leaves out what the managed `deniedModels` blocks, and every entry shows its versioned name; the
opening reads the policy from the settings tiers (docs/decisions.md#model-picker-policy)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from adapter.agent.opening import opening_for
from adapter.claude.runtime_settings import from_environment
from adapter.controls.pickers import SessionConfig
from adapter.scripted_claude.handshake import MODELS
from fsm import ModelPolicy


def _picker(config: SessionConfig) -> list[tuple[str, str]]:
    option = next(o for o in config.options() if o.id == "model")
    return [(o.value, o.name) for o in option.options]


def _adopted(policy: ModelPolicy, **environ: str) -> SessionConfig:
    config = SessionConfig.initial(environ, None)
    config.model_policy = policy
    config.adopt({"models": [dict(m) for m in MODELS]})
    return config


def test_without_a_policy_claude_codes_list_shows_versioned_names() -> None:
    assert _picker(_adopted(ModelPolicy())) == [
        ("default", "Default (recommended)"),
        ("opus", "Opus 4.1"),
        ("haiku", "Haiku 4.5"),
    ]


def test_the_allowlist_rebuilds_the_picker_from_the_users_spellings() -> None:
    config = _adopted(ModelPolicy(available=("claude-haiku-4-5", "mystery")))
    assert _picker(config) == [
        ("default", "Default (recommended)"),
        ("claude-haiku-4-5", "Haiku 4.5"),
        ("mystery", "mystery"),
    ]
    assert config.check_option("model", "claude-haiku-4-5") == "claude-haiku-4-5"
    with pytest.raises(RequestError):
        config.check_option("model", "opus")
    # The allowlisted entry keeps what Claude Code said of its model.
    haiku = next(c for c in config.models if c.value == "claude-haiku-4-5")
    assert haiku.resolved == "claude-haiku-4-5" and haiku.description is not None


def test_denied_models_are_not_offered() -> None:
    config = _adopted(ModelPolicy(available=("opus", "haiku"), denied=("claude-opus-4",)))
    assert [v for v, _ in _picker(config)] == ["default", "haiku"]


def test_the_custom_model_option_stays() -> None:
    config = _adopted(ModelPolicy(available=()), ANTHROPIC_CUSTOM_MODEL_OPTION="haiku")
    assert [v for v, _ in _picker(config)] == ["default", "haiku"]


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_the_opening_reads_the_policy_from_the_settings_tiers(
    tmp_path: Path,
) -> None:
    home = tmp_path / "config"
    project = tmp_path / "project"
    _write(home / "settings.json", {"availableModels": ["opus"]})
    _write(project / ".claude" / "settings.json", {"availableModels": ["haiku"]})
    _write(
        project / ".claude" / "settings.local.json",
        {"modelOverrides": {"opus": "claude-opus-4-1-20250805"}},
    )
    settings = from_environment(None, {"CLAUDE_CONFIG_DIR": str(home)})
    config = opening_for(session_id="s", cwd=str(project), servers=None, settings=settings).config
    assert config.model_policy.available == ("opus", "haiku")
    assert config.model_policy.overrides == {"opus": "claude-opus-4-1-20250805"}


def test_the_hosts_model_config_reaches_claude_codes_settings(tmp_path: Path) -> None:
    from adapter.claude.client_options import parse

    raw = json.dumps({"availableModels": ["opus"]})
    settings = from_environment(None, {"CLAUDE_MODEL_CONFIG": raw})
    plain = opening_for(session_id="s", cwd=str(tmp_path), servers=None, settings=settings)
    assert plain.client_options.settings == {"availableModels": ["opus"]}
    # A settings file the client names is read, and its keys win.
    _write(tmp_path / "mine.json", {"availableModels": ["haiku"]})
    named = opening_for(
        session_id="s",
        cwd=str(tmp_path),
        servers=None,
        settings=settings,
        client_options=parse({"options": {"settings": "mine.json"}}),
    )
    assert named.client_options.settings == {"availableModels": ["haiku"]}


@pytest.mark.parametrize("raw", ["[]", "{oops"])
def test_a_model_config_that_is_no_object_refuses_the_session(tmp_path: Path, raw: str) -> None:
    settings = from_environment(None, {"CLAUDE_MODEL_CONFIG": raw})
    with pytest.raises(RequestError) as refused:
        opening_for(session_id="s", cwd=str(tmp_path), servers=None, settings=settings)
    assert refused.value.code == -32603
    assert "CLAUDE_MODEL_CONFIG" in str(refused.value.data)
