"""`_meta.claudeCode.options` on session/new, load, resume and fork reaches Claude Code as the
reference adapter passes it: each option as the flag, environment or settings the
scripted Claude records (`claude-log.jsonl`); a wrong type is a -32602 naming the key, before
any Claude starts; an unknown key is ignored.

Played in process (`agent_in_process`: the agent, the real SDK and the scripted Claude in this
process)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.support.harness import TIMEOUT
from tests.support.shell_harness import agent_in_process

OPTIONS: dict[str, Any] = {
    "thinking": {"type": "enabled", "budgetTokens": 2048},
    "env": {"EDITOR_OPTION_PROBE": "from-the-client"},
    "allowedTools": ["Read", "Bash(git status)"],
    "disallowedTools": ["WebFetch"],
    "tools": ["Read", "Edit", "Bash"],
    "settings": {"includeCoAuthoredBy": False},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},
    "agent": "reviewer",
    "effort": "high",
    "mcpServers": {"notes": {"command": "notes-server", "args": ["--stdio"]}},
    "somethingNew": 1,
}
ENV = {"CLAUDE_ACP_SCRIPTED_LOG_ENV": "EDITOR_OPTION_PROBE"}


def _log(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _argvs(tmp_path: Path) -> list[list[str]]:
    return [e["argv"] for e in _log(tmp_path) if e["kind"] == "argv"]


def _flag(argv: list[str], name: str) -> str | None:
    for index, token in enumerate(argv):
        if token == name and index + 1 < len(argv):
            return argv[index + 1]
        if token.startswith(f"{name}="):
            return token.split("=", 1)[1]
    return None


async def _request(adapter: Any, method: str, params: dict[str, Any]) -> Any:
    return await asyncio.wait_for(adapter.conn._conn.send_request(method, params), TIMEOUT)


def _params(adapter: Any, options: Any, **extra: Any) -> dict[str, Any]:
    return {
        "cwd": str(adapter.workdir),
        "mcpServers": [],
        "_meta": {"claudeCode": {"options": options}},
        **extra,
    }


def _assert_every_option_reached_claude(argv: list[str], env: dict[str, Any]) -> None:
    assert _flag(argv, "--max-thinking-tokens") == "2048"
    assert _flag(argv, "--allowedTools") == "Read,Bash(git status)"
    # The client's rules extend the adapter's own: this client has no forms, so no questions.
    assert _flag(argv, "--disallowedTools") == "AskUserQuestion,WebFetch"
    assert _flag(argv, "--tools") == "Read,Edit,Bash"
    assert _flag(argv, "--agent") == "reviewer"
    assert _flag(argv, "--effort") == "high"
    settings = json.loads(_flag(argv, "--settings") or "{}")
    assert settings["includeCoAuthoredBy"] is False
    assert settings["hooks"] == OPTIONS["hooks"]
    servers = json.loads(_flag(argv, "--mcp-config") or "{}")["mcpServers"]
    assert servers["notes"]["command"] == "notes-server"
    assert env == {"EDITOR_OPTION_PROBE": "from-the-client"}


@pytest.mark.asyncio
async def test_options_on_new_and_resume_reach_claude_code(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", env=ENV) as adapter:
        created = await _request(adapter, "session/new", _params(adapter, OPTIONS))
        session = created["sessionId"]
        answer = await adapter.prompt(session, "hello")
        assert isinstance(answer, acp.schema.PromptResponse)
        await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        await _request(adapter, "session/resume", _params(adapter, OPTIONS, sessionId=session))
        await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
    argvs = _argvs(tmp_path)
    envs = [e["values"] for e in _log(tmp_path) if e["kind"] == "env"]
    assert len(argvs) == 2 and len(envs) == 2
    for argv, env in zip(argvs, envs, strict=True):
        _assert_every_option_reached_claude(argv, env)
    assert any(token.startswith("--resume") for token in argvs[1])


@pytest.mark.asyncio
async def test_options_on_load_and_fork_reach_claude_code(tmp_path: Path) -> None:
    thinking = {"thinking": {"type": "adaptive"}, "maxThinkingTokens": 0}
    async with agent_in_process(tmp_path, "success", env=ENV) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "hello")
        await _request(adapter, "session/load", _params(adapter, thinking, sessionId=session))
        forked = await _request(
            adapter, "session/fork", _params(adapter, {"agent": "planner"}, sessionId=session)
        )
        assert forked["sessionId"] != session
    new, loaded, fork = _argvs(tmp_path)
    assert _flag(new, "--thinking") is None and _flag(new, "--agent") is None
    assert _flag(loaded, "--thinking") == "adaptive"  # `thinking` wins over the token count
    assert _flag(fork, "--agent") == "planner"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"env": {"A": 1}}, "_meta.claudeCode.options.env"),
        ({"allowedTools": "Read"}, "_meta.claudeCode.options.allowedTools"),
        ({"thinking": {"type": "enabled"}}, "_meta.claudeCode.options.thinking.budgetTokens"),
        ({"effort": "ultra"}, "_meta.claudeCode.options.effort"),
        ({"maxThinkingTokens": -1}, "_meta.claudeCode.options.maxThinkingTokens"),
        ({"mcpServers": {"x": {}}}, "_meta.claudeCode.options.mcpServers.x"),
        ({"settings": "s.json", "hooks": {}}, "_meta.claudeCode.options.hooks"),
        ("all of them", "_meta.claudeCode.options"),
    ],
)
async def test_a_wrong_option_is_refused_naming_its_key(
    tmp_path: Path, options: Any, key: str
) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        with pytest.raises(acp.RequestError) as refused:
            await _request(adapter, "session/new", _params(adapter, options))
        session = await adapter.new_session()  # the agent carries on
    assert refused.value.code == -32602
    assert str(refused.value).startswith(f"Invalid params: {key}: "), refused.value
    assert session and len(_argvs(tmp_path)) == 1  # no Claude started for the refused one
