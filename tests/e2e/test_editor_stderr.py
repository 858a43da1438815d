"""Stderr at the default level is for a person reading it in an editor (Emacs
agent-shell shows every stderr line as a notice): through the scripted Claude's fault scenarios
it holds no logger name, no traceback and no internal id, and a failure the client already got
as a record or an error is not repeated there. The log file still gets everything in full, as
docs/troubleshooting.md promises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.raw_agent import RawAgent

PROMPT = [{"type": "text", "text": "hello"}]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
LOGGER_NAME = re.compile(
    r"\b(DEBUG|INFO|WARNING|ERROR|CRITICAL)\b|\b(adapter|claude_agent_sdk|acp|fsm)\."
)

FAULTS = (
    "crash_mid_turn",
    "die_at_prompt",
    "exit_before_handshake",
    "garbage",
    "die_after_error",
    "truncated_json_line",
    "hostile_error",
    "close_stdout",
)


def _assert_for_a_person(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    for line in stderr.splitlines():
        assert line.startswith("claude-acp: "), line
        assert not LOGGER_NAME.search(line), line
        assert not UUID.search(line), line


def _serve_one_prompt(agent: RawAgent) -> None:
    agent.initialize()
    answer = agent.call("session/new", {"cwd": str(agent.workdir), "mcpServers": []})
    if "result" in answer:
        session = answer["result"]["sessionId"]
        agent.call("session/prompt", {"sessionId": session, "prompt": PROMPT})
    agent.close_stdin()
    agent.read_to_end()
    assert agent.wait() == 0


@pytest.mark.parametrize("scenario", FAULTS)
def test_stderr_during_a_fault_is_for_a_person(tmp_path: Path, scenario: str) -> None:
    log_file = tmp_path / "claude-acp.log"
    # An empty CLAUDE_ACP_LOG is the default level.
    agent = RawAgent(tmp_path, scenario, args=("--log-file", str(log_file)), CLAUDE_ACP_LOG="")
    try:
        _serve_one_prompt(agent)
    finally:
        agent.close()
    stderr = agent.stderr_path.read_text(encoding="utf-8", errors="replace")
    _assert_for_a_person(stderr)
    # The client was told about the failure; stderr does not repeat it.
    assert "ended with an error" not in stderr
    assert "Fatal error in message reader" not in stderr
    # The log file keeps the full lines (logger names, levels) for a bug report.
    assert re.search(r" (INFO|WARNING|ERROR) adapter\.", log_file.read_text(encoding="utf-8"))


def test_a_claude_crash_is_in_the_log_file_with_its_logger(tmp_path: Path) -> None:
    log_file = tmp_path / "claude-acp.log"
    agent = RawAgent(
        tmp_path, "crash_mid_turn", args=("--log-file", str(log_file)), CLAUDE_ACP_LOG=""
    )
    try:
        _serve_one_prompt(agent)
    finally:
        agent.close()
    logged = log_file.read_text(encoding="utf-8")
    assert "ERROR claude_agent_sdk._internal.query: Fatal error in message reader" in logged
    assert re.search(rf"Claude runtime {UUID.pattern} ended with an error", logged)
    assert agent.stderr_path.read_text(encoding="utf-8") == ""


def test_debug_on_stderr_keeps_the_full_lines(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path, "crash_mid_turn", CLAUDE_ACP_LOG="DEBUG")
    try:
        _serve_one_prompt(agent)
    finally:
        agent.close()
    stderr = agent.stderr_path.read_text(encoding="utf-8", errors="replace")
    assert "ERROR claude_agent_sdk._internal.query:" in stderr
    runtime_line = rf"INFO adapter\.claude\.claude_runtime: Claude runtime {UUID.pattern}"
    assert re.search(runtime_line, stderr)


def test_a_missing_claude_code_is_said_in_words(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path, CLAUDE_ACP_LOG="", CLAUDE_CODE_EXECUTABLE=str(tmp_path / "nope"))
    try:
        _serve_one_prompt(agent)
    finally:
        agent.close()
    _assert_for_a_person(agent.stderr_path.read_text(encoding="utf-8", errors="replace"))
