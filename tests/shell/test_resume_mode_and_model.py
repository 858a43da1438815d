"""A resumed, loaded or forked session starts in the mode and model it was last using, in
process (`agent_in_process`): session A switches mode and model and is prompted; a fresh agent
then loads, resumes or forks it. The responses' pickers and what the scripted Claude received
(its argv and control requests, `$CLAUDE_ACP_SCRIPTED_LOG`) are asserted, and so is the model the
next turn ran on (the scripted Claude writes it into the transcript, as the real CLI does). A
mode or model the session can no longer have falls back, with a log line, and never fails the
request. A Claude that cannot start (it exits, or is not there) is end to end:
tests/e2e/test_resume_mode_and_model.py.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, Adapter
from tests.support.reopened_sessions import switched_and_prompted
from tests.support.shell_harness import agent_in_process

HAIKU = "claude-haiku-4-5"  # what the scripted Claude (like Claude Code) resolves "haiku" to
DEFAULT_MODEL = "claude-sonnet-4-5"  # and its "default"


def _log_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl"), **extra}


def _claude_log(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def _forget_claude_log(tmp_path: Path) -> None:
    (tmp_path / "claude-log.jsonl").unlink(missing_ok=True)


def _argvs(tmp_path: Path) -> list[list[str]]:
    return [e["argv"] for e in _claude_log(tmp_path) if e["kind"] == "argv"]


def _controls(tmp_path: Path, subtype: str) -> list[dict[str, Any]]:
    return [
        e["request"]
        for e in _claude_log(tmp_path)
        if e["kind"] == "control" and e["request"].get("subtype") == subtype
    ]


def _flag(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def _transcript(adapter: Adapter, session_id: str) -> Path:
    return next(adapter.config_dir.glob(f"projects/*/{session_id}.jsonl"))


def _stored_transcript(tmp_path: Path, session_id: str) -> Path:
    """`_transcript` of the adapters `agent_in_process(tmp_path)` starts (no adapter needed)."""
    return next((tmp_path / "claude-config").glob(f"projects/*/{session_id}.jsonl"))


def _answer_models(adapter: Adapter, session_id: str) -> list[str]:
    """The model of every answer in the session's transcript, in order."""
    lines = _transcript(adapter, session_id).read_text("utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    return [e["message"]["model"] for e in entries if e.get("type") == "assistant"]


def _current(response: Any) -> dict[str, Any]:
    return {o.id: o.current_value for o in response.config_options}


def _mode(response: Any) -> str:
    assert response.modes is not None
    return str(response.modes.current_mode_id)


async def _session_a(tmp_path: Path, *, mode: str, model: str, env: dict[str, str]) -> str:
    """A session switched to `mode` and `model`, then prompted once (so its transcript says so)."""
    async with agent_in_process(tmp_path, "success", env=env) as first:
        session = await switched_and_prompted(first, mode=mode, model=model)
    # In process every Claude logs to the same file: what the tests read is the next agent's.
    _forget_claude_log(tmp_path)
    return session


async def _reopen(adapter: Adapter, how: str, session: str) -> tuple[Any, str]:
    """`session/<how>` of `session` in `adapter`; the response and the session id it opened."""
    conn = adapter.conn
    cwd = str(adapter.workdir)
    if how == "load":
        call = conn.load_session(cwd=cwd, session_id=session, mcp_servers=[])
    elif how == "resume":
        call = conn.resume_session(cwd=cwd, session_id=session, mcp_servers=[])
    else:
        call = conn.fork_session(cwd=cwd, session_id=session, mcp_servers=[])
    response = await asyncio.wait_for(call, TIMEOUT)
    return response, getattr(response, "session_id", None) or session


@pytest.mark.asyncio
@pytest.mark.parametrize("how", ["load", "resume", "fork"])
async def test_a_reopened_session_starts_in_its_last_mode_and_model(
    tmp_path: Path, how: str
) -> None:
    session = await _session_a(tmp_path, mode="acceptEdits", model="haiku", env={})
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as second:
        response, opened = await _reopen(second, how, session)
        answer = await second.prompt(opened, "go on")
        models = _answer_models(second, opened)
    assert _mode(response) == "acceptEdits"
    # Haiku takes no effort levels (as in Claude Code): no effort picker.
    assert _current(response) == {"mode": "acceptEdits", "model": "haiku"}
    # Claude was started in them: one process, given the mode and the transcript's model.
    [argv] = _argvs(tmp_path)
    assert f"--resume={opened}" in argv
    assert _flag(argv, "--permission-mode") == "acceptEdits"
    assert _flag(argv, "--model") == HAIKU
    assert _controls(tmp_path, "set_model") == []  # nothing had to be corrected afterwards
    # ...and the next turn ran on that model.
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert models == [HAIKU, HAIKU]


@pytest.mark.asyncio
async def test_a_model_claude_code_no_longer_offers_falls_back_to_the_default(
    tmp_path: Path,
) -> None:
    session = await _session_a(tmp_path, mode="plan", model="haiku", env={})
    path = _stored_transcript(tmp_path, session)
    # As if the session had last run on a model since retired.
    retired = path.read_text(encoding="utf-8").replace(f'"{HAIKU}"', '"claude-3-opus-20240229"')
    path.write_text(retired, encoding="utf-8")
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as second:
        response, _ = await _reopen(second, "resume", session)
        answer = await second.prompt(session, "go on")
        models = _answer_models(second, session)
        stderr = second.stderr()
    assert _current(response) == {"mode": "plan", "model": "default", "effort": "default"}
    model_option = next(o for o in response.config_options if o.id == "model")
    assert "claude-3-opus-20240229" not in [o.value for o in model_option.options]
    # The running Claude was switched to the default before the answer went out.
    assert [r["model"] for r in _controls(tmp_path, "set_model")] == ["default"]
    assert "no longer offers its transcript's model 'claude-3-opus-20240229'" in stderr
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert models[-1] == DEFAULT_MODEL


async def _mode_not_offered_here(tmp_path: Path, mode: str, session: str) -> tuple[Any, str]:
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as second:
        response, _ = await _reopen(second, "load", session)
        answer = await second.prompt(session, "go on")
        stderr = second.stderr()
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert _mode(response) == "default"
    assert mode not in [m.id for m in response.modes.available_modes]
    [argv] = _argvs(tmp_path)
    # No mode named that it can have: `auto`, as the reference starts it; Claude Code's list
    # (no `supportsAutoMode`) does not have it, so Manual, silently.
    assert _flag(argv, "--permission-mode") == "auto"
    assert [r["mode"] for r in _controls(tmp_path, "set_permission_mode")] == ["default"]
    assert "Auto mode" not in json.dumps(second.updates())
    assert _flag(argv, "--model") == HAIKU  # the model still comes back
    return response, stderr


@pytest.mark.asyncio
@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="bypassPermissions is refused only to root (outside a sandbox)",
)
async def test_bypass_as_root_outside_a_sandbox_falls_back_to_manual(tmp_path: Path) -> None:
    sandboxed = {"IS_SANDBOX": "1"}
    session = await _session_a(tmp_path, mode="bypassPermissions", model="haiku", env=sandboxed)
    _, stderr = await _mode_not_offered_here(tmp_path, "bypassPermissions", session)
    assert "its transcript's mode 'bypassPermissions' is not available here" in stderr


@pytest.mark.asyncio
async def test_a_transcripts_auto_on_a_model_without_it_falls_back_to_accept_edits(
    tmp_path: Path,
) -> None:
    session = await _session_a(tmp_path, mode="acceptEdits", model="haiku", env={})
    path = _stored_transcript(tmp_path, session)
    # Claude Code's own `auto` mode (a terminal session), on a model whose entry in Claude
    # Code's list does not say `supportsAutoMode`: as the reference adapter, Accept edits.
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"permissionMode": "acceptEdits"', '"permissionMode": "auto"'))
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as second:
        response, _ = await _reopen(second, "load", session)
        answer = await second.prompt(session, "go on")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert _mode(response) == "acceptEdits"
    assert "auto" not in [m.id for m in response.modes.available_modes]
    # The running Claude was told, and the model still comes back.
    assert [r["mode"] for r in _controls(tmp_path, "set_permission_mode")][-1] == "acceptEdits"
    assert _flag(_argvs(tmp_path)[-1], "--model") == HAIKU


@pytest.mark.asyncio
async def test_the_environments_model_wins_over_the_transcripts(tmp_path: Path) -> None:
    # As in Claude Code: ANTHROPIC_MODEL is preferred to the model a transcript names.
    session = await _session_a(tmp_path, mode="plan", model="haiku", env={})
    env = _log_env(tmp_path, ANTHROPIC_MODEL="opus")
    async with agent_in_process(tmp_path, "success", env=env) as second:
        response, _ = await _reopen(second, "resume", session)
    assert _current(response)["model"] == "opus"
    assert _mode(response) == "plan"
    [argv] = _argvs(tmp_path)
    assert _flag(argv, "--model") == "opus"
