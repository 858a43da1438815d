"""Where a session's mode starts and who moves fast mode, through the agent, the real SDK and
the scripted Claude in process (`agent_in_process`):
- a session nobody named a mode for starts in `auto`, as the reference starts it
  (as the reference adapter does), and one whose settings name an `auto` its model lacks is in
  Accept edits and is told so at its first prompt;
- Claude Code's own `fast_mode_state` (on `system/init` and the turn's `result`) is mirrored,
  and its turning off for a reason it names is told;
- leaving plan mode entered from bypass offers bypass before auto.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import acp
import pytest

from adapter.scripted_claude.background_scenarios import autonomous_result
from adapter.scripted_claude.steps import RawFrame, Result, Scenario, Text
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
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio

NOTICES_ONLY: dict[str, Any] = {"session": {"notices": {}}}
EXPLAINED = "requires extra usage to be enabled for this account"
FAST_OFF_NOTICE = {
    "sessionUpdate": "notice",
    "severity": "warning",
    "title": "Fast mode turned off",
    "description": "Requires extra usage to be enabled for this account.",
}
FAST_OFF_TEXT = "**Fast mode turned off:** requires extra usage to be enabled for this account."


def _modes(adapter: Any) -> list[str]:
    return [u["currentModeId"] for u in adapter.updates("current_mode_update")]


def _transcript_modes(adapter: Any, session: str) -> list[str]:
    path = next(adapter.config_dir.rglob(f"{session}.jsonl"))
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [e["permissionMode"] for e in entries if "permissionMode" in e]


async def test_a_session_nobody_named_a_mode_for_starts_in_auto(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path, "success", env=scripted_env(tmp_path), initialize=False, capable=False
    ) as adapter:
        await initialize_with(adapter, BOOLEAN)
        session, opened = await new_session_raw(adapter)
        answer = await adapter.prompt(session, "hello")
    assert opened["modes"]["currentModeId"] == "auto"
    assert config_option(opened["configOptions"], "mode")["currentValue"] == "auto"  # type: ignore[index]
    assert flag_value(claude_argvs(tmp_path)[0], "--permission-mode") == "auto"
    # Sonnet (the default) has auto: nothing to switch, nothing to tell.
    assert control_requests(tmp_path, "set_permission_mode") == []
    assert adapter.updates("notice") == [] and _modes(adapter) == []
    assert _transcript_modes(adapter, session) == ["auto"]  # the turn ran in auto
    assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"


@pytest.mark.parametrize("notices", [True, False], ids=["notices", "no-notices"])
async def test_settings_auto_on_a_model_without_it_is_accept_edits_told_at_the_first_prompt(
    tmp_path: Path, notices: bool
) -> None:
    # The user's own settings: a repository's `auto` would be ignored (whose settings may
    # loosen permissions).
    user = tmp_path / "claude-config"
    user.mkdir(parents=True)
    settings = {"permissions": {"defaultMode": "auto"}}
    (user / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    env = {**scripted_env(tmp_path), "ANTHROPIC_MODEL": "haiku"}  # Haiku lacks auto
    async with agent_in_process(
        tmp_path, "success", env=env, initialize=False, capable=False
    ) as adapter:
        await initialize_with(adapter, NOTICES_ONLY if notices else {})
        session, opened = await new_session_raw(adapter)
        before_prompt = (adapter.updates("notice"), list(adapter.agent_texts()))
        first = await adapter.prompt(session, "hello")
        second = await adapter.prompt(session, "again")
        incoming = adapter.incoming()
    assert opened["modes"]["currentModeId"] == "acceptEdits"
    assert flag_value(claude_argvs(tmp_path)[0], "--permission-mode") == "auto"
    assert [r["mode"] for r in control_requests(tmp_path, "set_permission_mode")] == ["acceptEdits"]
    assert before_prompt == ([], [])  # nothing told before the first prompt
    if notices:
        assert adapter.updates("notice") == [AUTO_NOTICE]
        assert AUTO_TEXT not in adapter.agent_texts()
    else:
        assert adapter.updates("notice") == []
        assert adapter.agent_texts().count(AUTO_TEXT) == 1
    # Told within the first prompt: after its request, before its answer.
    methods = [m.get("method") or ("answer" if "result" in m else "") for m in incoming]
    warned = next(
        i
        for i, m in enumerate(incoming)
        if "Auto mode unavailable" in json.dumps(m) and m.get("method") == "session/update"
    )
    assert "answer" in methods[warned + 1 :]
    assert _transcript_modes(adapter, session) == ["acceptEdits", "acceptEdits"]
    for answer in (first, second):
        assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"


@pytest.mark.parametrize("boolean", [True, False], ids=["boolean-notices", "select-text"])
async def test_claude_turning_fast_mode_off_is_mirrored_and_told(
    tmp_path: Path, boolean: bool
) -> None:
    env = {
        **scripted_env(tmp_path),
        "ANTHROPIC_MODEL": "opus",  # Opus has fast mode
        "CLAUDE_ACP_SCRIPTED_FAST": "on",
        "CLAUDE_ACP_SCRIPTED_FAST_OFF": "extra_usage_disabled",
    }
    async with agent_in_process(
        tmp_path, "success", env=env, initialize=False, capable=False
    ) as adapter:
        await initialize_with(adapter, BOOLEAN if boolean else {})
        session, opened = await new_session_raw(adapter)
        first = await adapter.prompt(session, "hello")
        after_first = len(adapter.updates("config_option_update"))
        second = await adapter.prompt(session, "again")
        after_second = len(adapter.updates("config_option_update"))
    shape = FAST_BOOLEAN if boolean else FAST_SELECT
    on, off = (True, False) if boolean else ("on", "off")
    assert config_option(opened["configOptions"], "fast") == {**shape, "currentValue": on}
    [update] = adapter.updates("config_option_update")
    explained = f"Faster responses on supported models — {EXPLAINED}"
    assert config_option(update["configOptions"], "fast") == {
        **shape,
        "currentValue": off,
        "description": explained,
    }
    if boolean:
        assert adapter.updates("notice") == [FAST_OFF_NOTICE]
        assert FAST_OFF_TEXT not in adapter.agent_texts()
    else:
        assert adapter.updates("notice") == []
        assert adapter.agent_texts().count(FAST_OFF_TEXT) == 1
    assert after_first == after_second == 1  # an unchanged state is not sent again
    assert control_requests(tmp_path, "apply_flag_settings") == []  # Claude's own change, not ours
    for answer in (first, second):
        assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"


async def test_fast_mode_in_cooldown_stays_on(tmp_path: Path) -> None:
    env = {
        **scripted_env(tmp_path),
        "ANTHROPIC_MODEL": "opus",
        "CLAUDE_ACP_SCRIPTED_FAST": "cooldown",
    }
    async with agent_in_process(
        tmp_path, "success", env=env, initialize=False, capable=False
    ) as adapter:
        await initialize_with(adapter, BOOLEAN)
        session, opened = await new_session_raw(adapter)
        answer = await adapter.prompt(session, "hello")
    assert config_option(opened["configOptions"], "fast") == {**FAST_BOOLEAN, "currentValue": True}
    assert adapter.updates("config_option_update") == [] and adapter.updates("notice") == []
    assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"


async def test_leaving_plan_mode_entered_from_bypass_offers_bypass_first(tmp_path: Path) -> None:
    client = PlanClient("exit-plan-bypass")
    async with agent_in_process(
        tmp_path, "plan_mode", env=scripted_env(tmp_path), client=client
    ) as adapter:
        session, _ = await new_session_raw(adapter)
        await raw_request(
            adapter, "session/set_mode", sessionId=session, modeId="bypassPermissions"
        )
        await adapter.prompt(session, "fix the bug")
        await adapter.prompt(session, "go ahead")
        await adapter.prompt(session, "and now?")
    assert client.offered == [
        [
            ("exit-plan-default", "Yes, manually approve edits", "allow_once"),
            (
                "exit-plan-clear-bypass",
                "Yes, clear context (0% used) and bypass permissions",
                "allow_always",
            ),
            ("exit-plan-bypass", "Yes, and bypass permissions", "allow_always"),
            ("exit-plan-auto", "Yes, and use auto mode", "allow_always"),
            ("reject", "No, keep planning", "reject_once"),
        ]
    ]
    assert _modes(adapter) == ["bypassPermissions", "plan", "bypassPermissions"]
    assert _transcript_modes(adapter, session)[-1] == "bypassPermissions"


async def test_leaving_plan_mode_entered_from_auto_keeps_auto_first(tmp_path: Path) -> None:
    client = PlanClient("reject")
    async with agent_in_process(
        tmp_path, "plan_mode", env=scripted_env(tmp_path), client=client
    ) as adapter:
        session, _ = await new_session_raw(adapter)
        await raw_request(
            adapter, "session/set_config_option", **config_params(session, "mode", "auto")
        )
        await adapter.prompt(session, "fix the bug")
        await adapter.prompt(session, "go ahead")
    ids = [option_id for option_id, _, _ in client.offered[0]]
    assert ids == [
        "exit-plan-default",
        "exit-plan-clear-auto",
        "exit-plan-auto",
        "exit-plan-bypass",
        "reject",
    ]
    assert _modes(adapter) == ["auto", "plan"]  # "keep planning" stays in plan


_OWN = autonomous_result(2, input_tokens=4, cost_usd=0.0001).frame
OWN_RESULT_SAYS_OFF = Scenario(
    name="own_result_says_fast_off",
    description="",
    turns=(
        (
            Text(text="Done."),
            Result(),
            # A result between turns with no origin (a `/loop` fire, a cancelled prompt's late
            # one): Claude's own work, whatever it says of fast mode.
            RawFrame(
                frame={
                    **{k: v for k, v in _OWN.items() if k != "origin"},
                    "fast_mode_state": "off",
                    "fast_mode_disabled_reason": "extra_usage_disabled",
                }
            ),
        ),
    ),
)


async def test_claudes_own_results_fast_mode_is_not_followed(tmp_path: Path) -> None:
    # Whose a result is, the core's `ShowResult`, decides whether the switch follows it
    # (docs/decisions.md#result-owner), not the result's origin.
    env = {**scripted_env(tmp_path), "ANTHROPIC_MODEL": "opus", "CLAUDE_ACP_SCRIPTED_FAST": "on"}
    async with agent_in_process(
        tmp_path,
        "own_result_says_fast_off",
        env=env,
        capable=False,
        scenarios=[OWN_RESULT_SAYS_OFF],
    ) as adapter:
        session, opened = await new_session_raw(adapter)
        first = await adapter.prompt(session, "hello")
        # The own result was read before the next prompt's turn: its echo comes after it.
        second = await adapter.prompt(session, "again")
    fast = config_option(opened["configOptions"], "fast")
    assert fast is not None and fast["currentValue"] == "on"
    assert adapter.updates("config_option_update") == []
    assert FAST_OFF_TEXT not in adapter.agent_texts()
    for answer in (first, second):
        assert isinstance(answer, acp.schema.PromptResponse) and answer.stop_reason == "end_turn"
