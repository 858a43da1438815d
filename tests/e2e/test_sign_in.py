"""Sign-in that leads somewhere, through the real stdio agent and the scripted Claude:
`authenticate` asks Claude Code (`claude auth status --json`, its own command line) and answers
-32000 with what works from an editor while signed out, never a false ok; a terminal-capable
client's login method signs in for real, and `authenticate` afterwards says so. That Claude
Code's terminal-only "/login" never reaches a prompt's record or answer is played in process:
tests/shell/test_sign_in.py."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import AuthCapabilities, ClientCapabilities, PromptResponse

from adapter.scripted_claude.handshake import LOG_ENV
from adapter.scripted_claude.runtime import AUTH_STATUS_ENV, LOGOUT_ENV
from tests.support.harness import (
    ROOT,
    TIMEOUT,
    assert_signed_out_answer,
    record_in,
    spawn_adapter,
)


def _argvs(log: Path) -> list[list[str]]:
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [e["argv"] for e in map(json.loads, lines) if e["kind"] == "argv"]


async def _authenticate(adapter: Any, method_id: str) -> Any:
    try:
        return await asyncio.wait_for(adapter.conn.authenticate(method_id=method_id), TIMEOUT)
    except acp.RequestError as refused:
        return refused


@pytest.mark.asyncio
async def test_authenticate_while_signed_out_is_32000_with_an_editors_hint(
    tmp_path: Path,
) -> None:
    log = tmp_path / "claude-log.jsonl"
    env = {LOG_ENV: str(log), AUTH_STATUS_ENV: "signed-out"}
    async with spawn_adapter(tmp_path, "success", env=env) as adapter:
        answer = await _authenticate(adapter, "claude-login")
    assert_signed_out_answer(answer)
    assert ["auth", "status", "--json"] in _argvs(log)  # Claude Code was asked
    assert "Claude Code is not signed in" in adapter.stderr_path.read_text("utf-8", "replace")


@pytest.mark.asyncio
async def test_a_terminal_login_then_authenticate_reports_the_truth(tmp_path: Path) -> None:
    log = tmp_path / "claude-log.jsonl"
    env = {LOG_ENV: str(log), LOGOUT_ENV: "forget"}
    async with spawn_adapter(tmp_path, "success", env=env, initialize=False) as adapter:
        answer = await asyncio.wait_for(
            adapter.conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(auth=AuthCapabilities(terminal=True)),
            ),
            TIMEOUT,
        )
        signed_in = await _authenticate(adapter, "claude-ai-login")
        session = await adapter.new_session()
        await asyncio.wait_for(adapter.conn._conn.send_request("logout", {}), TIMEOUT)
        signed_out = await _authenticate(adapter, "claude-ai-login")
        # The client runs the terminal method: this agent's command with the method's args.
        [method] = [m for m in answer.auth_methods if m.id == "claude-ai-login"]
        login = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "adapter",
            *method.args,
            cwd=str(ROOT),
            env={
                "PATH": os.environ.get("PATH", ""),
                "PYTHONPATH": str(ROOT),
                "CLAUDE_CODE_EXECUTABLE": str(tmp_path / "bin" / "claude"),
                "CLAUDE_CONFIG_DIR": str(adapter.config_dir),
                LOG_ENV: str(log),
            },
        )
        assert await asyncio.wait_for(login.wait(), TIMEOUT) == 0
        back = await _authenticate(adapter, "claude-ai-login")
        prompted = await adapter.prompt(session, "hello again")
    assert signed_in is not None and not isinstance(signed_in, acp.RequestError)
    assert_signed_out_answer(signed_out)
    assert back is not None and not isinstance(back, acp.RequestError)
    assert isinstance(prompted, PromptResponse) and prompted.stop_reason == "end_turn"
    assert record_in(prompted.field_meta) is None  # signed in again: no sign-in record
    assert ["auth", "login", "--claudeai"] in _argvs(log)
    # Each `authenticate` asked (its answers above follow the CLI's state); the agent's own reads
    # of the sign-in (`initialize`, each prompt: adapter.agent.auth_push) ask too.
    assert _argvs(log).count(["auth", "status", "--json"]) >= 3
