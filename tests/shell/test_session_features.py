"""The session features' own rules, in-process: pickers, commands, MCP entries, permissions
withdrawn on cancel, and session/list paging over real transcript files."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import AllowedOutcome, RequestPermissionResponse, TextContentBlock
from claude_agent_sdk.types import (
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionUpdate,
    ToolPermissionContext,
)
from claude_agent_sdk.types import PermissionRuleValue as Rule

from adapter.agent import mcp_servers
from adapter.claude import session_store
from adapter.controls.commands import available_commands, rewrite_prompt
from adapter.controls.permissions import PermissionBroker
from adapter.controls.pickers import SessionConfig, bypass_allowed
from adapter.scripted_claude.handshake import COMMANDS, MODELS
from adapter.scripted_claude.transcript import Transcript, transcript_path
from adapter.wire.client_link import ClientLink


def _config(**environ: str) -> SessionConfig:
    config = SessionConfig.initial(environ, None)
    config.adopt({"models": [dict(m) for m in MODELS]})
    return config


def test_bypass_only_where_claude_code_accepts_it() -> None:
    assert bypass_allowed({}, euid=1000)
    assert not bypass_allowed({}, euid=0)
    assert bypass_allowed({"IS_SANDBOX": "1"}, euid=0)
    assert "bypassPermissions" not in SessionConfig.initial({}, None).modes or bypass_allowed({})


def test_config_validation_changes_nothing_on_bad_input() -> None:
    config = _config()
    for config_id, value in [("model", "gpt-9"), ("colour", "red"), ("model", True)]:
        with pytest.raises(acp.RequestError) as caught:
            config.check_option(config_id, value)
        assert caught.value.code == -32602
    with pytest.raises(acp.RequestError):
        config.check_mode("dontAsk")
    assert (config.mode, config.model, config.effort) == ("default", "default", "default")
    assert config.check_option("model", "opus") == "opus"


def test_effort_follows_the_model() -> None:
    config = _config()
    assert config.efforts() == ("default", "low", "medium", "high")
    config.model = "haiku"
    assert config.efforts() == ()
    assert [o.id for o in config.options()] == ["mode", "model"]


def test_the_effort_picker_names_levels_as_a_child_sessions_effort_is_named() -> None:
    # The reference's `effortLevelName` for both: parts split at `_` and `-`, each with its
    # first letter upper case and the rest kept.
    config = SessionConfig.initial({}, None)
    levels = ["low", "x_high", "xHigh", "extra-high"]
    config.adopt(
        {
            "models": [
                {
                    "value": "m",
                    "displayName": "M",
                    "supportsEffort": True,
                    "supportedEffortLevels": levels,
                }
            ]
        }
    )
    config.model = "m"
    effort = next(o for o in config.options() if o.id == "effort")
    assert [(o.value, o.name) for o in effort.options] == [
        ("default", "Default"),
        ("low", "Low"),
        ("x_high", "X High"),
        ("xHigh", "XHigh"),
        ("extra-high", "Extra High"),
    ]


def test_an_environment_model_is_marked_even_when_not_listed() -> None:
    config = _config(ANTHROPIC_MODEL="claude-opus-4-1-20250805")
    model = next(o for o in config.options() if o.id == "model")
    assert model.current_value == "claude-opus-4-1-20250805"
    assert "claude-opus-4-1-20250805" in [o.value for o in model.options]


def test_commands_hide_terminal_ones_duplicates_and_unsendable_names() -> None:
    commands = available_commands([*COMMANDS, {"name": "two words"}, "review", 7])
    assert [c.name for c in commands] == ["compact", "init", "review"]


def test_mcp_prompts_are_rewritten_to_claude_codes_spelling() -> None:
    rewritten = rewrite_prompt([TextContentBlock(type="text", text="/mcp:gh:summary 12")])
    assert isinstance(rewritten[0], TextContentBlock)
    assert rewritten[0].text == "/gh:summary (MCP) 12"
    plain = [TextContentBlock(type="text", text="/review 1")]
    assert rewrite_prompt(plain) == plain


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"name": "a"}, "needs a command"),
        ({"type": "http", "name": "a", "url": ""}, "needs a url"),
        ({"type": "sse", "name": "a", "url": "u", "headers": [{"value": "x"}]}, "headers"),
        ({"type": "ws", "name": "a"}, "unsupported server type"),
        ({"name": "", "command": "x"}, "non-empty name"),
        ("nope", "non-empty name"),
    ],
)
def test_malformed_mcp_entries_are_named(entry: Any, problem: str) -> None:
    with pytest.raises(acp.RequestError) as caught:
        mcp_servers.check_raw([{"name": "ok", "command": "x"}, entry])
    assert caught.value.code == -32602
    assert "entry 1: " in json.dumps(caught.value.data) and problem in json.dumps(caught.value.data)


def test_duplicate_mcp_names_are_refused() -> None:
    with pytest.raises(acp.RequestError):
        mcp_servers.check_raw([{"name": "a", "command": "x"}, {"name": "a", "command": "y"}])


class _SilentConnection:
    """A client that never answers a permission request."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        self.asked.set()
        await asyncio.Event().wait()


class _AnsweringConnection(_SilentConnection):
    def __init__(self, option_id: str) -> None:
        super().__init__()
        self.option_id = option_id
        self.updates: list[Any] = []
        self.options: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(self, session_id: str, tool_call: Any, options: Any) -> Any:
        self.options = list(options)
        outcome = AllowedOutcome(outcome="selected", option_id=self.option_id)
        return RequestPermissionResponse(outcome=outcome)


def _broker(conn: Any, modes: list[str]) -> tuple[PermissionBroker, SessionConfig]:
    link = ClientLink()
    link.attach(conn)
    config = _config()
    changed: list[str] = modes

    async def on_mode(mode: str) -> None:
        changed.append(mode)
        config.mode = mode

    return PermissionBroker(session_id="s", link=link, config=config, on_mode=on_mode), config


@pytest.mark.asyncio
async def test_cancel_withdraws_a_pending_question() -> None:
    conn = _SilentConnection()
    broker, _ = _broker(conn, [])
    context = ToolPermissionContext(tool_use_id="toolu_1")
    task = asyncio.create_task(broker.decide("Bash", {"command": "ls"}, context))
    await asyncio.wait_for(conn.asked.wait(), 10)
    broker.withdraw()
    result = await asyncio.wait_for(task, 10)
    assert isinstance(result, PermissionResultDeny) and result.interrupt


@pytest.mark.asyncio
async def test_always_carries_claude_codes_own_suggestion() -> None:
    conn = _AnsweringConnection("allow_always")
    broker, _ = _broker(conn, [])
    suggestion = PermissionUpdate(
        type="addRules",
        rules=[Rule(tool_name="Bash", rule_content="npm test:*")],
        behavior="allow",
        destination="localSettings",
    )
    context = ToolPermissionContext(tool_use_id="t", suggestions=[suggestion])
    result = await broker.decide("Bash", {"command": "npm test"}, context)
    assert isinstance(result, PermissionResultAllow)
    assert result.updated_permissions == [suggestion]


@pytest.mark.asyncio
async def test_leaving_plan_mode_switches_the_mode() -> None:
    modes: list[str] = []
    conn = _AnsweringConnection("exit-plan-default")
    broker, config = _broker(conn, modes)
    config.mode = "plan"
    result = await broker.decide("ExitPlanMode", {"plan": "do it"}, ToolPermissionContext())
    assert isinstance(result, PermissionResultAllow)
    [update] = result.updated_permissions or []
    assert (update.type, update.mode, update.destination) == ("setMode", "default", "session")
    assert modes == ["default"]
    # The reference adapter's choices: accept edits only where no elevated mode is offered.
    elevated = (
        "exit-plan-bypass" if "bypassPermissions" in config.modes else "exit-plan-accept-edits"
    )
    assert [(o.option_id, o.kind) for o in conn.options] == [
        ("exit-plan-default", "allow_once"),
        (elevated, "allow_always"),
        ("reject", "reject_once"),
    ]


@pytest.mark.asyncio
async def test_an_unknown_plan_choice_keeps_planning() -> None:
    modes: list[str] = []
    conn = _AnsweringConnection("no-such-option")
    broker, config = _broker(conn, modes)
    config.mode = "plan"
    result = await broker.decide("ExitPlanMode", {"plan": "do it"}, ToolPermissionContext())
    assert isinstance(result, PermissionResultDeny) and result.interrupt
    assert result.message == "User chose to keep planning" and modes == []


@pytest.mark.asyncio
async def test_session_list_pages_with_a_cursor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    cwd = tmp_path / "project"
    cwd.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    ids = [str(uuid.uuid4()) for _ in range(3)]
    for number, session_id in enumerate(ids):
        transcript = Transcript(
            transcript_path(env, str(cwd), session_id), session_id=session_id, cwd=str(cwd)
        )
        transcript.append_prompt(str(uuid.uuid4()), f"prompt {number}")
        transcript.close()
    first = await session_store.list_page(str(cwd), None, page_size=2)
    second = await session_store.list_page(str(cwd), first.next_cursor, page_size=2)
    assert len(first.sessions) == 2 and first.next_cursor == "offset:2"
    assert len(second.sessions) == 1 and second.next_cursor is None
    assert {s.session_id for s in first.sessions + second.sessions} == set(ids)
    assert {s.title for s in first.sessions + second.sessions} == {
        "prompt 0",
        "prompt 1",
        "prompt 2",
    }
    with pytest.raises(acp.RequestError):
        await session_store.list_page(str(cwd), "offset:-1")


@pytest.mark.asyncio
async def test_leaving_plan_mode_keeps_its_choices_under_the_clis_hints() -> None:
    from adapter.claude.sdk_compat import PermissionHints, with_hints

    conn = _AnsweringConnection("reject")
    broker, config = _broker(conn, [])
    config.mode = "plan"
    hints = PermissionHints(default_to_no=True, no_always=True)
    context = with_hints(ToolPermissionContext(tool_use_id="t"), hints)
    result = await broker.decide("ExitPlanMode", {"plan": "do it"}, context)
    assert isinstance(result, PermissionResultDeny) and result.interrupt
    # The reject first (default_to_no), the mode choices all kept (no_always does not apply).
    kinds = [o.kind for o in conn.options]
    assert kinds == ["reject_once", "allow_once", "allow_always"]
