"""The agent picker in the shell: Claude Code's agent list becomes the `agent` config option, a
choice goes to the running Claude as its `agent` flag (null for the default) and to every fresh
Claude process of the session as `--agent`, and a bad choice changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from acp import RequestError

from adapter.claude.client_options import parse
from adapter.controls.launch_flags import launch_for
from adapter.controls.pickers import SessionConfig
from adapter.controls.session_controls import SessionControls
from adapter.scripted_claude.handshake import BUILTIN_AGENTS, MODELS
from tests.support.shell_harness import FakeLink

_AGENTS = [
    *(dict(a) for a in BUILTIN_AGENTS),
    {"name": "reviewer", "description": "Reviews code"},
    {"name": "writer", "description": ""},
]


def _config(requested: str | None = None) -> SessionConfig:
    config = SessionConfig.initial({}, None)
    config.requested_agent = requested
    config.adopt({"models": [dict(m) for m in MODELS], "agents": _AGENTS})
    return config


def _option(config: SessionConfig, config_id: str) -> Any:
    return next(o for o in config.options() if o.id == config_id)


def test_the_picker_lists_the_default_then_the_users_agents() -> None:
    option = _option(_config(), "agent")
    wire = option.model_dump(by_alias=True, exclude_none=True)
    assert wire == {
        "type": "select",
        "id": "agent",
        "name": "Agent",
        "description": "Main-thread agent persona",
        "currentValue": "default",
        "options": [
            {"value": "default", "name": "Default", "description": "Standard Claude Code agent"},
            {"value": "reviewer", "name": "reviewer", "description": "Reviews code"},
            {"value": "writer", "name": "writer"},
        ],
    }
    assert [o.id for o in _config().options()][-1] == "agent"


def test_no_agents_of_the_users_no_picker() -> None:
    config = SessionConfig.initial({}, None)
    config.adopt({"models": [dict(m) for m in MODELS], "agents": [dict(a) for a in BUILTIN_AGENTS]})
    assert "agent" not in [o.id for o in config.options()]
    with pytest.raises(RequestError):
        config.check_option("agent", "default")


def test_the_clients_agent_option_is_the_value_when_listed() -> None:
    assert _config("reviewer").agent == "reviewer"
    assert _config("Explore").agent == "default"
    assert parse({"options": {"agent": "reviewer"}}).agent == "reviewer"


class _Runtime:
    def __init__(self, refuse: bool = False) -> None:
        self.agents: list[str | None] = []
        self.refuse = refuse

    async def set_agent(self, agent: str | None) -> None:
        if self.refuse:
            raise RuntimeError("refused")
        self.agents.append(agent)


async def _no_report(event: Any) -> None:
    raise AssertionError(f"nothing to report: {event!r}")


def _controls(config: SessionConfig, runtime: _Runtime) -> tuple[SessionControls, FakeLink]:
    link = FakeLink()
    controls = SessionControls(session_id="s", link=link, config=config)
    controls.bind(lambda: runtime, _no_report)  # type: ignore[arg-type,return-value]
    return controls, link


@pytest.mark.asyncio
async def test_a_choice_sets_claudes_agent_flag_and_the_next_launch() -> None:
    config, runtime = _config(), _Runtime()
    controls, link = _controls(config, runtime)
    await controls.set_option("agent", "reviewer")
    await controls.set_option("agent", "default")
    assert runtime.agents == ["reviewer", None]
    updates = [u for u in link.sent if getattr(u, "session_update", "") == "config_option_update"]
    shown = [next(o for o in u.config_options if o.id == "agent").current_value for u in updates]
    assert shown == ["reviewer", "default"]
    # A fresh Claude process starts with the pick, over the client's own `agent` option.
    launch = launch_for(config, {}, parse({"options": {"agent": "writer"}}))
    assert (launch.agent_picked, launch.agent) == (True, None)
    await controls.set_option("agent", "writer")
    assert launch_for(config, {}).agent == "writer"


@pytest.mark.asyncio
async def test_an_unknown_or_refused_choice_changes_nothing() -> None:
    config, runtime = _config(), _Runtime()
    controls, link = _controls(config, runtime)
    for bad in ("Explore", "ghost", 3, None):
        with pytest.raises(RequestError):
            await controls.set_option("agent", bad)
    refusing = _Runtime(refuse=True)
    controls.bind(lambda: refusing, _no_report)  # type: ignore[arg-type,return-value]
    with pytest.raises(RequestError):
        await controls.set_option("agent", "reviewer")
    assert (config.agent, config.agent_picked, runtime.agents, link.sent) == (
        "default",
        False,
        [],
        [],
    )
    assert launch_for(config, {}).agent_picked is False


def test_a_fresh_process_keeps_the_pick_while_claude_code_lists_it() -> None:
    config = _config()
    config.agent, config.agent_picked = "reviewer", True
    config.adopt({"models": [dict(m) for m in MODELS], "agents": _AGENTS})
    assert config.agent == "reviewer"
    config.adopt({"models": [dict(m) for m in MODELS], "agents": _AGENTS[:-2]})
    assert config.agent == "default"
