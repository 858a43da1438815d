"""Which credential values are placeholders (`adapter/claude/credential_env.py`): removed from an
environment, said once by name and never by value; a real credential and other variables stay."""

from __future__ import annotations

import logging

import pytest

from adapter.claude import credential_env
from adapter.claude.credential_env import drop_placeholders, is_placeholder


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "${CLAUDE_CODE_OAUTH_TOKEN}",
        "$CLAUDE_CODE_OAUTH_TOKEN",
        "${env:TOKEN}",
        "prefix-${TOKEN}",
    ],
)
def test_placeholders(value: str) -> None:
    assert is_placeholder("CLAUDE_CODE_OAUTH_TOKEN", value)


@pytest.mark.parametrize("value", ["sk-ant-oat01-abcdef", "sk-ant-api03-x$y", "ANTHROPIC_API_KEY"])
def test_real_values(value: str) -> None:
    # Another variable's name is an odd token, but not this variable's own placeholder.
    assert not is_placeholder("CLAUDE_CODE_OAUTH_TOKEN", value)


def test_only_placeholder_credentials_go_and_each_is_said_once(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(credential_env, "_told", set())
    environ = {
        "CLAUDE_CODE_OAUTH_TOKEN": "CLAUDE_CODE_OAUTH_TOKEN",
        "ANTHROPIC_API_KEY": "sk-ant-api03-real",
        "ANTHROPIC_AUTH_TOKEN": "${ANTHROPIC_AUTH_TOKEN}",
        "EDITOR": "",  # not a credential: an empty value is its own business
    }
    with caplog.at_level(logging.WARNING, logger="adapter.claude.credential_env"):
        dropped = drop_placeholders(environ, "the test")
        again = {"CLAUDE_CODE_OAUTH_TOKEN": ""}
        drop_placeholders(again, "the test")
    assert set(dropped) == {"CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"}
    assert environ == {"ANTHROPIC_API_KEY": "sk-ant-api03-real", "EDITOR": ""}
    assert again == {}
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert not any("${ANTHROPIC_AUTH_TOKEN}" in line for line in lines)
