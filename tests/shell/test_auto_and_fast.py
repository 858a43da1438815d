"""Claude Code's `auto` mode and the `fast` option in process (`agent_in_process`), with a real
ACP client, for clients with and without boolean config options. Fast mode given back to a Claude
restarted by a sign-in (Claude Code's own `auth status` command) is end to end:
tests/e2e/test_auto_and_fast.py.

The scripted Claude lists its models with `supportsAutoMode` / `supportsFastMode` under
`CLAUDE_ACP_SCRIPTED_MODELS=featured` (Sonnet: auto; Opus: auto and fast; Haiku: neither) and
records every control request it receives, so each test sees exactly what reached Claude.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.support.config_requests import (
    AUTO_NOTICE,
    AUTO_TEXT,
    BOOLEAN,
    FAST_BOOLEAN,
    FAST_SELECT,
    PlanClient,
    claude_argvs,
    config_option,
    config_params,
    control_requests,
    flag_value,
    initialize_with,
    new_session_raw,
    raw_request,
    scripted_env,
)
from tests.support.harness import Adapter
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio


async def _error(adapter: Adapter, method: str, **params: Any) -> acp.RequestError:
    with pytest.raises(acp.RequestError) as caught:
        await raw_request(adapter, method, **params)
    return caught.value


async def test_a_boolean_client_gets_auto_and_a_fast_switch(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path, "success", env=scripted_env(tmp_path), initialize=False, capable=False
    ) as adapter:
        await initialize_with(adapter, BOOLEAN)
        session, opened = await new_session_raw(adapter)
        opus = await raw_request(
            adapter, "session/set_config_option", **config_params(session, "model", "opus")
        )
        updates_before = len(adapter.updates("config_option_update"))
        fast = await raw_request(
            adapter, "session/set_config_option", **config_params(session, "fast", True)
        )
        updates_after = len(adapter.updates("config_option_update"))
        wrong = await _error(
            adapter, "session/set_config_option", **config_params(session, "fast", "on")
        )
        await raw_request(adapter, "session/set_mode", sessionId=session, modeId="auto")
        await raw_request(
            adapter, "session/set_config_option", **config_params(session, "model", "haiku")
        )
        answer = await adapter.prompt(session, "hello")
    modes = opened["modes"]
    assert [m["id"] for m in modes["availableModes"]] == [
        "default",
        "acceptEdits",
        "plan",
        "auto",
        "bypassPermissions",
    ]
    assert modes["availableModes"][3] == {
        "id": "auto",
        "name": "Auto",
        "description": "Claude handles permission decisions",
    }
    # Sonnet (the default) has no fast mode; Opus has it, as a boolean for this client.
    assert config_option(opened["configOptions"], "fast") is None
    assert config_option(opus["configOptions"], "fast") == FAST_BOOLEAN
    assert config_option(fast["configOptions"], "fast") == {**FAST_BOOLEAN, "currentValue": True}
    assert updates_after == updates_before  # the response carries it, as the reference's does
    assert wrong.code == -32602 and "fast" in json.dumps(wrong.data)
    # Haiku lacks auto: Claude goes on in Accept edits, and the client is told once.
    assert [r["mode"] for r in control_requests(tmp_path, "set_permission_mode")] == [
        "auto",
        "acceptEdits",
    ]
    assert control_requests(tmp_path, "apply_flag_settings") == [
        {"subtype": "apply_flag_settings", "settings": {"fastMode": True}}
    ]
    assert adapter.updates("notice") == [AUTO_NOTICE]
    assert [u["currentModeId"] for u in adapter.updates("current_mode_update")] == [
        "auto",
        "acceptEdits",
    ]
    last = adapter.updates("config_option_update")[-1]["configOptions"]
    assert config_option(last, "fast") is None  # Haiku has no fast mode
    assert config_option(last, "mode")["currentValue"] == "acceptEdits"  # type: ignore[index]
    assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"


async def test_a_client_without_boolean_options_gets_a_select(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path, "success", env=scripted_env(tmp_path), initialize=False, capable=False
    ) as adapter:
        await initialize_with(adapter, {})
        session, _ = await new_session_raw(adapter)
        opus = await raw_request(
            adapter, "session/set_config_option", **config_params(session, "model", "opus")
        )
        on = await raw_request(
            adapter, "session/set_config_option", **config_params(session, "fast", "on")
        )
        errors = [
            await _error(
                adapter, "session/set_config_option", **config_params(session, "fast", True)
            ),
            await _error(
                adapter, "session/set_config_option", **config_params(session, "fast", "turbo")
            ),
        ]
        await raw_request(
            adapter, "session/set_config_option", **config_params(session, "model", "haiku")
        )
        gone = await _error(
            adapter, "session/set_config_option", **config_params(session, "fast", "off")
        )
        for _ in range(2):
            await raw_request(adapter, "session/set_mode", sessionId=session, modeId="auto")
        answer = await adapter.prompt(session, "hello")
    assert config_option(opus["configOptions"], "fast") == FAST_SELECT
    assert config_option(on["configOptions"], "fast") == {**FAST_SELECT, "currentValue": "on"}
    assert [e.code for e in errors] == [-32602, -32602]
    assert [e.data for e in errors] == [
        {"value": "unknown value for fast; expected one of on, off"}
    ] * 2
    assert gone.code == -32602 and gone.data == {"configId": "unknown config option 'fast'"}
    assert control_requests(tmp_path, "apply_flag_settings") == [
        {"subtype": "apply_flag_settings", "settings": {"fastMode": True}}
    ]
    # The session started in auto (nothing named a mode; Sonnet has it): the switch to Haiku
    # puts Claude in Accept edits, and so does each auto after it; the explanation once, as
    # agent text.
    assert [r["mode"] for r in control_requests(tmp_path, "set_permission_mode")] == [
        "acceptEdits"
    ] * 3
    assert adapter.agent_texts().count(AUTO_TEXT) == 1
    assert adapter.updates("notice") == []
    assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"


async def test_a_model_list_without_the_fields_offers_neither(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path,
        "success",
        env=scripted_env(tmp_path, featured=False),
        initialize=False,
        capable=False,
    ) as adapter:
        await initialize_with(adapter, BOOLEAN)
        session, opened = await new_session_raw(adapter)
        errors = [
            await _error(adapter, "session/set_mode", sessionId=session, modeId="auto"),
            await _error(
                adapter, "session/set_config_option", **config_params(session, "fast", True)
            ),
        ]
        answer = await adapter.prompt(session, "hello")
    assert "auto" not in [m["id"] for m in opened["modes"]["availableModes"]]
    assert [o["id"] for o in opened["configOptions"]] == ["mode", "model", "effort"]
    assert [e.code for e in errors] == [-32602, -32602]
    assert "unknown mode" in json.dumps(errors[0].data)
    assert errors[1].data == {"configId": "unknown config option 'fast'"}
    # Claude started in auto, as the reference starts it; no model has it: Manual, silently.
    assert flag_value(claude_argvs(tmp_path)[0], "--permission-mode") == "auto"
    assert opened["modes"]["currentModeId"] == "default"
    assert control_requests(tmp_path, "set_permission_mode", "apply_flag_settings") == [
        {"subtype": "set_permission_mode", "mode": "default"}
    ]
    assert adapter.updates("notice") == [] and adapter.updates("current_mode_update") == []
    assert AUTO_TEXT not in adapter.agent_texts()
    assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"


async def test_settings_can_disable_auto(tmp_path: Path) -> None:
    project = tmp_path / "project" / ".claude"
    project.mkdir(parents=True)
    (project / "settings.json").write_text('{"disableAutoMode": "disable"}', encoding="utf-8")
    async with agent_in_process(tmp_path, "success", env=scripted_env(tmp_path)) as adapter:
        session, opened = await new_session_raw(adapter)
        error = await _error(adapter, "session/set_mode", sessionId=session, modeId="auto")
    assert "auto" not in [m["id"] for m in opened["modes"]["availableModes"]]
    assert error.code == -32602


def _transcript_modes(adapter: Adapter, session: str) -> list[str]:
    path = next(adapter.config_dir.rglob(f"{session}.jsonl"))
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [e["permissionMode"] for e in entries if "permissionMode" in e]


async def _plan_and_leave(tmp_path: Path, model: str | None) -> tuple[PlanClient, Adapter, str]:
    client = PlanClient("exit-plan-auto")
    async with agent_in_process(
        tmp_path, "plan_mode", env=scripted_env(tmp_path), client=client
    ) as adapter:
        session, _ = await new_session_raw(adapter)
        if model is not None:
            await raw_request(
                adapter, "session/set_config_option", **config_params(session, "model", model)
            )
        await adapter.prompt(session, "fix the bug")
        await adapter.prompt(session, "go ahead")
        await adapter.prompt(session, "and now?")
    return client, adapter, session


async def test_leaving_plan_mode_offers_auto(tmp_path: Path) -> None:
    client, adapter, session = await _plan_and_leave(tmp_path, None)
    assert client.offered == [
        [
            ("exit-plan-default", "Yes, manually approve edits", "allow_once"),
            (
                "exit-plan-clear-auto",
                "Yes, clear context (0% used) and use auto mode",
                "allow_always",
            ),
            ("exit-plan-auto", "Yes, and use auto mode", "allow_always"),
            ("exit-plan-bypass", "Yes, and bypass permissions", "allow_always"),
            ("reject", "No, keep planning", "reject_once"),
        ]
    ]
    # Claude applied `setMode auto`: its next prompt ran in auto mode.
    assert _transcript_modes(adapter, session)[-1] == "auto"
    assert [u["currentModeId"] for u in adapter.updates("current_mode_update")] == ["plan", "auto"]


async def test_use_auto_mode_on_a_model_without_it_is_accept_edits(tmp_path: Path) -> None:
    client, adapter, session = await _plan_and_leave(tmp_path, "haiku")
    assert ("exit-plan-auto", "Yes, and use auto mode", "allow_always") in client.offered[0]
    assert _transcript_modes(adapter, session)[-1] == "acceptEdits"
    modes = [u["currentModeId"] for u in adapter.updates("current_mode_update")]
    # The first from the switch to Haiku: the session had started in auto.
    assert modes == ["acceptEdits", "plan", "acceptEdits"]
    assert adapter.agent_texts().count(AUTO_TEXT) == 1  # the OPT_IN client: no ACP notices
