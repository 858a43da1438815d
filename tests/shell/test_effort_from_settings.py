"""The effort picker's value when nobody chose one, in the shell: the settings' effort for the
model when the session opens and again at each model change (read anew:
docs/decisions.md#settings-read-again); a choice of the user's is kept across models that take
it; the client's `_meta.claudeCode.options.effort` opens the session."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from adapter.controls.pickers import SessionConfig
from adapter.scripted_claude.handshake import MODELS
from tests.support.harness import TIMEOUT
from tests.support.shell_harness import agent_in_process


def _config(tiers: list[dict[str, Any]], requested: str | None = None) -> SessionConfig:
    config = SessionConfig.initial({}, None)
    config.settings_tiers = lambda: tiers
    config.requested_effort = requested
    config.adopt({"models": [dict(m) for m in MODELS]})
    return config


def test_the_settings_effort_opens_the_session_and_follows_each_model() -> None:
    tiers: list[dict[str, Any]] = [{"effortLevel": "high"}]
    config = _config(tiers)
    assert (config.model, config.effort) == ("default", "high")
    tiers.append({"modelSettings": {"claude-opus-4-1": {"effortLevel": "max"}}})
    config.model = "opus"
    config.seed_effort()
    assert config.effort == "max"  # read anew at the change
    config.model = "haiku"  # takes no effort: no picker
    config.seed_effort()
    assert config.efforts() == () and config.effort == "default"


def test_an_effort_the_model_lacks_shows_the_default() -> None:
    assert _config([{"effortLevel": "xhigh"}]).effort == "default"


def test_the_users_choice_stays_across_models_that_take_it() -> None:
    config = _config([{"effortLevel": "high"}])
    config.effort, config.effort_pinned = "low", True
    config.model = "opus"
    config.seed_effort()
    assert config.effort == "low"
    config.model = "haiku"
    config.seed_effort()
    config.model = "opus"
    config.seed_effort()
    assert (config.effort, config.effort_pinned) == ("high", False)


def test_the_clients_effort_opens_the_session() -> None:
    assert _config([{"effortLevel": "high"}], requested="low").effort == "low"


@pytest.mark.asyncio
async def test_the_effort_picker_reads_the_settings_through_the_agent(tmp_path: Path) -> None:
    # Through the agent and the real SDK in process: the project's settings name `high`; a
    # per-model effort written after the session opened counts at the switch to that model.
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    settings_file = project / ".claude" / "settings.json"
    settings_file.write_text(json.dumps({"effortLevel": "high"}), encoding="utf-8")
    async with agent_in_process(tmp_path, "success") as adapter:
        send = adapter.conn._conn.send_request
        opened = await asyncio.wait_for(
            send("session/new", {"cwd": str(project), "mcpServers": []}), TIMEOUT
        )
        settings_file.write_text(
            json.dumps({"modelSettings": {"claude-opus-4-1": {"effortLevel": "max"}}}),
            encoding="utf-8",
        )
        params = {"sessionId": opened["sessionId"], "configId": "model", "value": "opus"}
        answer = await asyncio.wait_for(send("session/set_config_option", params), TIMEOUT)
    effort = next(o for o in opened["configOptions"] if o["id"] == "effort")
    assert effort["currentValue"] == "high"
    switched = next(o for o in answer["configOptions"] if o["id"] == "effort")
    assert switched["currentValue"] == "max"
