"""The Ultracode option in process (`agent_in_process`, the scripted Claude under the real SDK):
offered at the answer from the model list and the settings, settled by Claude Code's
`get_settings` after the answer (docs/decisions.md#ultracode-after-the-answer), hidden on a
model without it, switched with `apply_flag_settings`, and carried by every effort sent.

The scripted Claude lists the default (Sonnet) and Opus with the `xhigh` effort under
`CLAUDE_ACP_SCRIPTED_MODELS=ultracode` (Haiku has no effort), answers `get_settings` as
`CLAUDE_ACP_SCRIPTED_ULTRACODE*` / `CLAUDE_ACP_SCRIPTED_GET_SETTINGS` say, and records every
control request it receives.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.support.config_requests import (
    BOOLEAN,
    config_option,
    config_params,
    control_requests,
    initialize_with,
    new_session_raw,
    raw_request,
    scripted_env,
)
from tests.support.harness import Adapter, until
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio

SAID = "get_settings says Ultracode is available"
NOTHING_SAID = ("no get_settings answer", "available: None, requested: None")


def ultracode_boolean(on: bool) -> dict[str, Any]:
    return {
        "id": "ultracode",
        "name": "Ultracode",
        "description": "Dynamic workflows on every task, at any effort level",
        "category": "model_config",
        "type": "boolean",
        "currentValue": on,
    }


def ultracode_select(value: str) -> dict[str, Any]:
    return {
        "id": "ultracode",
        "name": "Ultracode",
        "description": "Dynamic workflows on every task, at any effort level",
        "category": "model_config",
        "type": "select",
        "currentValue": value,
        "options": [{"value": "on", "name": "On"}, {"value": "off", "name": "Off"}],
    }


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    return {
        **scripted_env(tmp_path, featured=False),
        "CLAUDE_ACP_SCRIPTED_MODELS": "ultracode",
        **more,
    }


@asynccontextmanager
async def _initialized(
    tmp_path: Path, env: dict[str, str], capabilities: dict[str, Any]
) -> AsyncIterator[Adapter]:
    """The agent in process playing `success`, initialized here with `capabilities` alone (not
    opted in to sessionFailure)."""
    async with agent_in_process(
        tmp_path, "success", env=env, initialize=False, capable=False
    ) as adapter:
        await initialize_with(adapter, capabilities)
        yield adapter


def _flags(tmp_path: Path) -> list[dict[str, Any]]:
    return [r["settings"] for r in control_requests(tmp_path, "apply_flag_settings")]


async def _set(adapter: Adapter, session: str, config_id: str, value: object) -> dict[str, Any]:
    return await raw_request(
        adapter, "session/set_config_option", **config_params(session, config_id, value)
    )


async def _error(adapter: Adapter, session: str, config_id: str, value: object) -> Any:
    with pytest.raises(acp.RequestError) as caught:
        await _set(adapter, session, config_id, value)
    return caught.value


async def _settled(adapter: Adapter, *said: str) -> None:
    """Until the session has read Claude Code's `get_settings` answer (its debug line)."""
    await until(lambda: any(s in adapter.stderr() for s in said), "the get_settings answer")


def _ultracode_updates(adapter: Adapter) -> list[dict[str, Any] | None]:
    return [
        config_option(u["configOptions"], "ultracode")
        for u in adapter.updates("config_option_update")
    ]


@pytest.mark.parametrize("available", ["computed", "absent"])  # absent: a CLI before it
async def test_the_answer_offers_it_and_claude_codes_answer_settles_it_after(
    tmp_path: Path, available: str
) -> None:
    env = _env(
        tmp_path,
        CLAUDE_ACP_SCRIPTED_ULTRACODE="on",
        CLAUDE_ACP_SCRIPTED_ULTRACODE_AVAILABLE=available,
    )
    async with _initialized(tmp_path, env, BOOLEAN) as adapter:
        _, opened = await new_session_raw(adapter)
        await _settled(adapter, SAID)
        await until(lambda: _ultracode_updates(adapter), "the option's update")
    # The answer did not wait for Claude Code: no settings say ultracode, so it shows off...
    options = opened["configOptions"]
    assert [o["id"] for o in options] == ["mode", "model", "effort", "ultracode"]
    assert config_option(options, "ultracode") == ultracode_boolean(False)
    # ...then Claude Code says the session asks for it, and the client is told.
    assert _ultracode_updates(adapter) == [ultracode_boolean(True)]
    assert control_requests(tmp_path, "get_settings") == [{"subtype": "get_settings"}]


async def test_workflows_off_hide_it_on_every_model(tmp_path: Path) -> None:
    env = _env(tmp_path, CLAUDE_ACP_SCRIPTED_ULTRACODE_AVAILABLE="false")
    async with _initialized(tmp_path, env, BOOLEAN) as adapter:
        session, opened = await new_session_raw(adapter)
        await _settled(adapter, SAID)
        await until(lambda: _ultracode_updates(adapter), "the option's update")
        opus = await _set(adapter, session, "model", "opus")
        refused = await _error(adapter, session, "ultracode", True)
    assert config_option(opened["configOptions"], "ultracode") == ultracode_boolean(False)
    assert _ultracode_updates(adapter)[0] is None  # gone
    assert config_option(opus["configOptions"], "ultracode") is None
    assert refused.code == -32602 and refused.data == {
        "configId": "unknown config option 'ultracode'"
    }


@pytest.mark.parametrize("answer", ["error", "malformed"])
async def test_a_failed_get_settings_changes_nothing(tmp_path: Path, answer: str) -> None:
    env = _env(tmp_path, CLAUDE_ACP_SCRIPTED_GET_SETTINGS=answer)
    async with _initialized(tmp_path, env, {}) as adapter:
        session, opened = await new_session_raw(adapter)
        await _settled(adapter, *NOTHING_SAID)
        wrong = await _error(adapter, session, "ultracode", True)
        on = await _set(adapter, session, "ultracode", "on")
    assert wrong.code == -32602
    assert wrong.data == {"value": "unknown value for ultracode; expected one of on, off"}
    assert config_option(opened["configOptions"], "ultracode") == ultracode_select("off")
    assert _ultracode_updates(adapter) == []
    assert config_option(on["configOptions"], "ultracode") == ultracode_select("on")
    log = adapter.stderr()
    said = [line for line in log.splitlines() if "get_settings" in line]
    assert said and all(" DEBUG " in line for line in said), said


async def test_choosing_it_switches_claude_and_efforts_carry_it(tmp_path: Path) -> None:
    async with _initialized(tmp_path, _env(tmp_path), BOOLEAN) as adapter:
        session, _ = await new_session_raw(adapter)
        wrong = await _error(adapter, session, "ultracode", "on")
        on = await _set(adapter, session, "ultracode", True)
        high = await _set(adapter, session, "effort", "high")
        haiku = await _set(adapter, session, "model", "haiku")
        hidden = await _error(adapter, session, "ultracode", False)
        back = await _set(adapter, session, "model", "default")
        off = await _set(adapter, session, "ultracode", False)
        await _set(adapter, session, "effort", "low")
        answer = await adapter.prompt(session, "hello")
    assert wrong.code == -32602
    assert wrong.data == {"value": "unknown value for ultracode; expected true or false"}
    assert config_option(on["configOptions"], "ultracode") == ultracode_boolean(True)
    assert config_option(high["configOptions"], "ultracode") == ultracode_boolean(True)
    # Haiku takes no ultracode: the option hides, and comes back with the kept choice.
    assert config_option(haiku["configOptions"], "ultracode") is None
    assert hidden.code == -32602
    assert config_option(back["configOptions"], "ultracode") == ultracode_boolean(True)
    assert config_option(off["configOptions"], "ultracode") == ultracode_boolean(False)
    assert _flags(tmp_path) == [
        {"ultracode": True},
        {"effortLevel": "high", "ultracode": True},
        {"ultracode": False},
        {"effortLevel": "low"},
    ]
    assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"


async def test_a_refused_switch_changes_nothing(tmp_path: Path) -> None:
    env = _env(tmp_path, CLAUDE_ACP_SCRIPTED_ULTRACODE="refused")
    async with _initialized(tmp_path, env, {}) as adapter:
        session, _ = await new_session_raw(adapter)
        refused = await _error(adapter, session, "ultracode", "on")
        high = await _set(adapter, session, "effort", "high")
    assert refused.code == -32603 and "ultracode" in json.dumps(refused.data)
    assert config_option(high["configOptions"], "ultracode") == ultracode_select("off")
    assert _flags(tmp_path) == [{"ultracode": True}, {"effortLevel": "high"}]


async def test_settings_start_it_on_and_a_recommended_effort_carries_it(tmp_path: Path) -> None:
    project = tmp_path / "project" / ".claude"
    project.mkdir(parents=True)
    (project / "settings.json").write_text('{"ultracode": true}', encoding="utf-8")
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": ["recommendedValue"]}}}
    async with agent_in_process(
        tmp_path, "success", env=_env(tmp_path), client_meta=meta
    ) as adapter:
        session, opened = await new_session_raw(adapter)
        haiku = await _set(adapter, session, "model", "haiku")
        opus = await _set(adapter, session, "model", "opus")
    assert config_option(opened["configOptions"], "ultracode") == ultracode_select("on")
    assert config_option(haiku["configOptions"], "ultracode") is None
    assert config_option(opus["configOptions"], "ultracode") == ultracode_select("on")
    # AIR's effort at the start and at each model switch keeps ultracode on.
    assert _flags(tmp_path) == [
        {"effortLevel": "medium", "ultracode": True},
        {"effortLevel": None, "ultracode": True},
        {"effortLevel": "medium", "ultracode": True},
    ]


class _Restarted:
    """A Claude process for `SessionControls.adopt`: its model list, and the flag settings it
    was sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def server_info(self) -> dict[str, Any]:
        from adapter.scripted_claude.model_features import models_for

        return {"models": models_for({"CLAUDE_ACP_SCRIPTED_MODELS": "ultracode"})}

    async def apply_flag_settings(self, settings: dict[str, Any]) -> None:
        self.sent.append(settings)

    async def set_model(self, model: str) -> None:
        raise AssertionError("no model switch expected")

    async def set_permission_mode(self, mode: str) -> None:
        return None


async def test_a_restarted_claude_gets_the_choice_back_before_the_effort() -> None:
    from adapter.controls.pickers import SessionConfig
    from adapter.controls.session_controls import SessionControls
    from fsm import AirClient
    from tests.support.shell_harness import FakeLink

    config = SessionConfig.initial({}, None, auto_allowed=False)
    air = AirClient(air=True, declared=frozenset({"recommendedValue"}))  # an effort each start
    controls = SessionControls(session_id="s", link=FakeLink(), config=config, air=air)
    first, second = _Restarted(), _Restarted()
    await controls.adopt(first)  # type: ignore[arg-type]
    controls._runtime = lambda: first  # type: ignore[assignment,return-value]
    await controls.set_option("ultracode", "on")
    await controls.adopt(second)  # type: ignore[arg-type]
    assert first.sent == [{"effortLevel": "medium"}, {"ultracode": True}]
    assert second.sent == [{"ultracode": True}, {"effortLevel": "medium", "ultracode": True}]
    assert config.ultracode_shown() is True


class _Late(_Restarted):
    """A Claude process whose `get_settings` answers `applied` once the test releases it."""

    def __init__(self) -> None:
        import anyio

        super().__init__()
        self.asked, self.release = anyio.Event(), anyio.Event()
        self.applied: dict[str, Any] = {}
        self.models: list[str] = []

    async def get_settings(self) -> dict[str, Any]:
        self.asked.set()
        await self.release.wait()
        return {"applied": self.applied}

    async def set_model(self, model: str) -> None:
        self.models.append(model)


async def _asked_late(late: _Late, during: Callable[[Any], Awaitable[None]]) -> Any:
    """A session's controls on `late` (the ultracode model list, no AIR): its `get_settings`
    asked after the setup answer, `during` done while it waits, then answered."""
    import anyio

    from adapter.controls.pickers import SessionConfig
    from adapter.controls.session_controls import SessionControls
    from tests.support.shell_harness import FakeLink

    config = SessionConfig.initial({}, None, auto_allowed=False)
    controls = SessionControls(session_id="s", link=FakeLink(), config=config)
    controls._runtime = lambda: late  # type: ignore[assignment,return-value]
    async with anyio.create_task_group() as tg:
        controls.run_beside_with(lambda work: tg.start_soon(work))  # type: ignore[arg-type]
        await controls.adopt(late)  # type: ignore[arg-type]
        for work in controls._after_setup:  # the setup answer is out: beside the session
            controls._spawn(work)
        await late.asked.wait()
        await during(controls)
        late.release.set()
    controls.run_beside_with(lambda work: None)  # nothing more beside
    return controls


@pytest.mark.parametrize("names_model", [True, False])
async def test_an_answer_for_a_model_switched_to_meanwhile_hides_nothing(
    names_model: bool,
) -> None:
    """Asked on the default (it takes ultracode), answered `available: false` for Haiku (it
    does not), which the client switched to meanwhile: workflows are not off, and the option is
    back on a model that takes it (docs/decisions.md#ultracode-after-the-answer)."""
    late = _Late()
    late.applied = {"ultracodeAvailable": False, "ultracodeRequested": False}
    if names_model:  # Claude Code names the model it answered for; an older one may not
        late.applied["model"] = "claude-haiku-4-5"

    async def to_haiku(controls: Any) -> None:
        await controls.set_option("model", "haiku")

    controls = await _asked_late(late, to_haiku)
    assert controls.config.ultracode.workflows is None
    await controls.set_option("model", "default")
    assert late.models == ["haiku", "default"]
    assert controls.config.ultracode_shown() is False


async def test_an_answer_naming_a_model_that_takes_it_says_workflows_are_off() -> None:
    late = _Late()
    late.applied = {"model": "claude-sonnet-4-5", "ultracodeAvailable": False}

    async def nothing(controls: Any) -> None:
        return None

    controls = await _asked_late(late, nothing)
    assert controls.config.ultracode.workflows is False
    assert controls.config.ultracode_shown() is None


@pytest.mark.parametrize(
    ("config_id", "value"), [("effort", "high"), ("ultracode", "off"), ("ultracode", False)]
)
async def test_an_effort_or_a_switch_sent_meanwhile_outlasts_a_stale_answer(
    config_id: str, value: object
) -> None:
    """Claude Code's answer says ultracode is asked for, as it was before an effort (sent
    without `ultracode: true`, which turned it off) or a switch off was sent meanwhile: the
    option stays off, and the client is told nothing else."""
    late = _Late()
    late.applied = {"model": "claude-sonnet-4-5", "ultracodeAvailable": True}
    late.applied["ultracodeRequested"] = True

    async def send(controls: Any) -> None:
        controls.config.boolean_options = isinstance(value, bool)
        await controls.set_option(config_id, value)

    controls = await _asked_late(late, send)
    assert controls.config.ultracode_shown() is False
    assert (
        late.sent == [{"effortLevel": "high"}] if config_id == "effort" else [{"ultracode": False}]
    )
    shown = [
        o.current_value
        for update in controls._link.sent
        for o in update.config_options
        if o.id == "ultracode"
    ]
    assert True not in shown and "on" not in shown


async def test_a_restart_after_the_answer_asks_when_the_first_start_could_not() -> None:
    """The first Claude's start-up facts failed (no switch, nothing asked); a restart after the
    setup answer is out asks `get_settings` then, not never."""
    import anyio

    from adapter.controls.pickers import SessionConfig
    from adapter.controls.session_controls import SessionControls
    from tests.support.shell_harness import WAIT, FakeLink

    class Broken(_Restarted):
        async def server_info(self) -> dict[str, Any]:
            raise ConnectionError("gone")

    late = _Late()
    late.applied = {"model": "claude-sonnet-4-5", "ultracodeAvailable": True}
    late.applied["ultracodeRequested"] = True
    link = FakeLink()
    config = SessionConfig.initial({}, None, auto_allowed=False)
    controls = SessionControls(session_id="s", link=link, config=config)
    with anyio.fail_after(WAIT):  # a bound on a hang only
        async with anyio.create_task_group() as tg:
            controls.run_beside_with(lambda work: tg.start_soon(work))  # type: ignore[arg-type]
            await controls.adopt(Broken())  # type: ignore[arg-type]
            controls.announce_later(tg)
            await anyio.wait_all_tasks_blocked()  # the command list is out
            assert config.ultracode is None and link.sent
            controls._runtime = lambda: late  # type: ignore[assignment,return-value]
            await controls.adopt(late)  # type: ignore[arg-type]
            await late.asked.wait()
            late.release.set()
    assert config.ultracode_shown() is True


async def test_resume_load_and_fork_offer_it_and_ask_claude_code_after(tmp_path: Path) -> None:
    import asyncio

    from tests.support.harness import TIMEOUT

    project = tmp_path / "project" / ".claude"
    project.mkdir(parents=True)
    (project / "settings.json").write_text('{"ultracode": true}', encoding="utf-8")
    async with _initialized(tmp_path, _env(tmp_path), BOOLEAN) as adapter:
        session, opened = await new_session_raw(adapter)
        await adapter.prompt(session, "hello")
        params = {"sessionId": session, "cwd": str(adapter.workdir), "mcpServers": []}
        loaded = await raw_request(adapter, "session/load", **params)
        forked = await raw_request(adapter, "session/fork", **params)
        await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        resumed = await raw_request(adapter, "session/resume", **params)
        await until(
            lambda: adapter.stderr().count(SAID) == 4, "every session's get_settings answer"
        )
    for answer in (opened, loaded, forked, resumed):
        assert config_option(answer["configOptions"], "ultracode") == ultracode_boolean(True)
    assert len(control_requests(tmp_path, "get_settings")) == 4
    assert _ultracode_updates(adapter) == []  # Claude Code said what the answers showed
