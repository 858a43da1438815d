"""Sign-in in the everyday session end to end, through real stdio with a real ACP client: what
runs Claude Code's own command line (`claude auth status` before a restart, `claude auth login`,
the terminal auth methods), which needs the real processes. The rest of the everyday session
is played in process: tests/shell/test_everyday_session.py.

The scripted Claude records its argv and every control request it receives (`$CLAUDE_ACP_
SCRIPTED_LOG`), so a test sees exactly what reached Claude.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import (
    AuthCapabilities,
    ClientCapabilities,
    PromptResponse,
)

from tests.support.harness import ROOT, TIMEOUT, spawn_adapter
from tests.support.scripted_log import claude_log


def _log_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl"), **extra}


def argvs(tmp_path: Path) -> list[list[str]]:
    return [e["argv"] for e in claude_log(tmp_path) if e["kind"] == "argv"]


async def rpc_error(call: Any) -> acp.RequestError:
    with pytest.raises(acp.RequestError) as caught:
        await asyncio.wait_for(call, TIMEOUT)
    return caught.value


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True)
    return dumped


# --- 1-3: pickers and commands -------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_restarted_claude_starts_with_the_sessions_choices(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "success", env=_log_env(tmp_path)) as adapter:
        session = await adapter.new_session()
        conn = adapter.conn
        await asyncio.wait_for(conn.set_session_mode(session_id=session, mode_id="plan"), TIMEOUT)
        for config_id, value in (("model", "opus"), ("effort", "high")):
            await asyncio.wait_for(
                conn.set_config_option(config_id=config_id, session_id=session, value=value),
                TIMEOUT,
            )
        # Signing in again restarts Claude at the next prompt (it must read new credentials).
        await asyncio.wait_for(conn.authenticate(method_id="claude-login"), TIMEOUT)
        answer = await adapter.prompt(session, "hello")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    # `authenticate` asked Claude Code whether the user is signed in (`auth status`) first.
    assert ["auth", "status", "--json"] in argvs(tmp_path)
    first, restarted = [a for a in argvs(tmp_path) if a[:1] != ["auth"]]
    assert "--model" not in first  # the picker's "default" is Claude Code's own choice
    flags = " ".join(restarted)
    assert "--permission-mode plan" in flags and "--model opus" in flags
    # Never prompted: nothing to resume yet, the same session id again.
    assert "--effort high" in flags and f"--session-id={session}" in flags


# --- 4: list, resume, fork, close ---------------------------------------------------------------


# --- 5: the client's MCP servers ---------------------------------------------------------------


# --- 6: permissions -----------------------------------------------------------------------------


# --- 7-8: sign-in and settings ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_terminal_auth_methods_for_clients_that_run_them(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "success", initialize=False) as adapter:
        caps = ClientCapabilities(auth=AuthCapabilities(terminal=True))
        answer = await asyncio.wait_for(
            adapter.conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps
            ),
            TIMEOUT,
        )
        ok = await asyncio.wait_for(adapter.conn.authenticate(method_id="console-login"), TIMEOUT)
        bad = await rpc_error(adapter.conn.authenticate(method_id="nope"))
    methods = {m.id: _dump(m) for m in answer.auth_methods}
    assert methods["claude-ai-login"]["type"] == "terminal"
    assert methods["claude-ai-login"]["args"] == ["login", "--claudeai"]
    assert methods["console-login"]["args"] == ["login", "--console"]
    assert ok is not None and bad.code == -32602


@pytest.mark.asyncio
async def test_login_runs_claude_codes_own_login(tmp_path: Path) -> None:
    record = tmp_path / "argv.json"
    fake = tmp_path / "claude"
    fake.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"json.dump(sys.argv[1:], open({str(record)!r}, 'w'))\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "adapter",
        "login",
        "--console",
        cwd=str(ROOT),
        env={"PATH": os.environ.get("PATH", ""), "CLAUDE_CODE_EXECUTABLE": str(fake)},
    )
    assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0
    assert json.loads(record.read_text("utf-8")) == ["auth", "login", "--console"]
