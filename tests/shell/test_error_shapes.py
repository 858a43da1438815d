"""Every JSON-RPC error the agent sends, whoever builds it, leaves `data` out when there is none
(Neovim's CodeCompanion reads `error.data` and hangs on a null), and names its cause in
`message`.

The sweep goes through the real stdio agent in raw bytes (`tests/support/raw_agent.py`), so the
lines are checked as written: the wire guard's answers (parse error, invalid request, a request
before `initialize`), the `acp` SDK's own (unknown method, params its schema refuses), the
agent's (an unknown session, a bad `cwd`, a bad option), the core's (authentication required to
a plain client) and a Claude Code that does not start.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fsm import AUTH_REQUIRED_MESSAGE
from tests.support.raw_agent import RawAgent

PROMPT = [{"type": "text", "text": "hello"}]


def _errors(agent: RawAgent) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for frame in agent.frames:
        for item in frame if isinstance(frame, list) else [frame]:
            if isinstance(item, dict) and isinstance(item.get("error"), dict):
                found.append(item["error"])
    return found


def _assert_no_null_data(agent: RawAgent) -> None:
    for line in agent.lines:
        compact = line.replace(b" ", b"")
        assert b'"data":null' not in compact, line
    for error in _errors(agent):
        assert error.get("data", "absent") is not None, error


def _error_of(agent: RawAgent, request_id: Any) -> dict[str, Any]:
    answer = agent.answer(request_id)
    assert "error" in answer, answer
    return dict(answer["error"])


def test_no_error_on_the_wire_carries_a_null_data(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path / "guard")
    try:
        # Before initialize: the guard answers.
        early = _error_of(agent, agent.request("session/new", {"cwd": "/", "mcpServers": []}))
        assert early["code"] == -32600
        agent.write(b"{not json\n")
        agent.write(b"[]\n")
        agent.write(b'{"jsonrpc": "2.0", "id": 7}\n')
        agent.initialize()
        missing = str(agent.tmp / "no-such-folder")
        errors: dict[str, dict[str, Any]] = {}
        for name, method, params in (
            ("unknown method", "no/such_method", {}),
            ("unknown extension", "_no/such_extension", {}),
            ("schema refuses", "session/new", {"cwd": 42}),
            ("missing params", "session/prompt", {}),
            ("relative cwd", "session/new", {"cwd": "relative", "mcpServers": []}),
            ("missing cwd", "session/new", {"cwd": missing, "mcpServers": []}),
            ("unknown session", "session/prompt", {"sessionId": "nope", "prompt": PROMPT}),
            ("unknown mode", "session/set_mode", {"sessionId": "nope", "modeId": "x"}),
            ("load unknown", "session/load", {"sessionId": "nope", "cwd": "/", "mcpServers": []}),
            ("bad auth method", "authenticate", {"methodId": "nope"}),
        ):
            errors[name] = _error_of(agent, agent.request(method, params))
        codes = {name: error["code"] for name, error in errors.items()}
        assert codes["unknown method"] == -32601
        assert codes["schema refuses"] == -32602
        assert codes["unknown session"] == -32602
        # The message, which is all most editors show, names the cause.
        messages = {name: error["message"] for name, error in errors.items()}
        assert messages["unknown method"] == "Method not found: no/such_method"
        assert messages["schema refuses"].startswith("Invalid params: cwd: ")
        assert messages["relative cwd"] == "Invalid params: cwd: must be an absolute path"
        assert messages["missing cwd"] == f"Invalid params: cwd: no such folder: {missing}"
        assert messages["unknown session"] == "Invalid params: sessionId: no session 'nope' is open"
        assert messages["load unknown"].startswith("Resource not found: no such session")
        assert "Internal error" not in json.dumps(messages)
        session = agent.new_session()
        agent.close_stdin()
        agent.read_to_end()
        assert session
        assert {e["code"] for e in _errors(agent)} >= {-32700, -32600, -32601, -32602}
        _assert_no_null_data(agent)
    finally:
        agent.close()


def test_sign_in_required_to_a_plain_client_has_no_null_data(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path, "authentication_failed")
    try:
        agent.initialize()
        session = agent.new_session()
        params = {"sessionId": session, "prompt": PROMPT}
        error = _error_of(agent, agent.request("session/prompt", params))
        assert error["code"] == -32000
        # What works from an editor, never Claude Code's terminal-only /login.
        assert error["message"] == AUTH_REQUIRED_MESSAGE
        assert "claude-acp login" in error["message"] and "/login" not in error["message"]
        agent.close_stdin()
        agent.read_to_end()
        _assert_no_null_data(agent)
    finally:
        agent.close()


def test_a_claude_code_that_is_missing_is_named_in_the_message(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-claude"
    agent = RawAgent(tmp_path, CLAUDE_CODE_EXECUTABLE=str(missing))
    try:
        agent.initialize()
        params = {"cwd": str(agent.workdir), "mcpServers": []}
        error = _error_of(agent, agent.request("session/new", params))
        assert error["code"] == -32603
        assert error["message"] == ("Claude Code was not found at CLAUDE_CODE_EXECUTABLE.")
        agent.close_stdin()
        agent.read_to_end()
        _assert_no_null_data(agent)
    finally:
        agent.close()


def test_a_claude_code_that_cannot_run_says_why(tmp_path: Path) -> None:
    not_executable = tmp_path / "claude"
    not_executable.write_text("not a program", encoding="utf-8")
    agent = RawAgent(tmp_path, CLAUDE_CODE_EXECUTABLE=str(not_executable))
    try:
        agent.initialize()
        params = {"cwd": str(agent.workdir), "mcpServers": []}
        error = _error_of(agent, agent.request("session/new", params))
        agent.close_stdin()
        agent.read_to_end()
    finally:
        agent.close()
    assert error["code"] == -32603
    assert error["message"] == (
        "Claude Code did not start: CLAUDE_CODE_EXECUTABLE is not executable."
    )
    _assert_no_null_data(agent)
