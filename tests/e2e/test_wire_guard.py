"""Hostile input on stdin, through the real agent process (raw bytes on its stdin, the
scripted Claude behind it, see `tests/support/raw_agent.py`): every line gets the JSON-RPC 2.0
answer the spec requires, the agent survives all of it, the line limit holds, any kind of stdin
and stdout works, and at the end of input every request already read is answered before exit.

The splitter and the verdicts alone are tested in `tests/shell/test_guard_rules.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.harness import ROOT
from tests.support.raw_agent import TIMEOUT, RawAgent, agent_env, agent_text_arrived

PARSE, INVALID = -32700, -32600

# --- through the real agent -------------------------------------------------------------------

HOSTILE_LINES: list[tuple[str, bytes, int, Any]] = [
    ("empty array", b"[]", INVALID, None),
    ("number", b"42", INVALID, None),
    ("string", b'"s"', INVALID, None),
    ("null", b"null", INVALID, None),
    ("invalid JSON", b'{"jsonrpc":"2.0","id":1,', PARSE, None),
    (
        "invalid UTF-8",
        b'{"jsonrpc":"2.0","id":2,"method":"initialize","x":"\xff\xfe"}',
        PARSE,
        None,
    ),
    ("a NUL byte", b'{"jsonrpc":"2.0","id":3,"method":"initialize\x00"}', PARSE, None),
    ("5,000-deep nesting", b"[" * 5000 + b"]" * 5000, PARSE, None),
    ("deep nesting in params", b'{"jsonrpc":"2.0","id":4,"params":' + b"[" * 5000, PARSE, None),
    ("non-string method", b'{"jsonrpc":"2.0","id":5,"method":7}', INVALID, 5),
    ("object method", b'{"jsonrpc":"2.0","id":6,"method":{"a":[]}}', INVALID, 6),
    ("NaN", b'{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"x":NaN}}', PARSE, None),
    ("a BOM", b'\xef\xbb\xbf{"jsonrpc":"2.0","id":9,"method":"initialize"}', PARSE, None),
]


def test_every_hostile_line_gets_its_answer_and_the_agent_survives(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path)
    try:
        agent.initialize()
        for name, line, code, answer_id in HOSTILE_LINES:
            agent.write(line + b"\n")
            reply = agent.read_frame()
            assert isinstance(reply, dict), name
            assert reply["id"] == answer_id and reply["error"]["code"] == code, (name, reply)
        # A batch: one answer per request in it, in one array.
        agent.write(
            b'[{"jsonrpc":"2.0","id":"b1","method":"initialize"},{"jsonrpc":"2.0","method":"x"}]\n'
        )
        batch = agent.read_frame()
        assert [(r["id"], r["error"]["code"]) for r in batch] == [("b1", INVALID)]
        # Still serving: a session runs a turn.
        session = agent.new_session()
        answer = agent.call(
            "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
        )
        assert answer["result"]["stopReason"] == "end_turn"
        agent.close_stdin()
        assert agent.wait() == 0
        log = agent.stderr()
        # One warning per bad line, and no traceback for any of them.
        assert log.count("rejected a line from the client") == len(HOSTILE_LINES) + 1
        assert "Traceback" not in log
    finally:
        agent.close()


def test_session_methods_before_initialize_are_rejected(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path)
    try:
        params = {"cwd": str(agent.workdir), "mcpServers": []}
        early = agent.call("session/new", params)
        assert early["error"]["code"] == INVALID and "result" not in early
        prompt = agent.call("session/prompt", {"sessionId": "x", "prompt": []})
        assert prompt["error"]["code"] == INVALID
        load = agent.call("session/load", {**params, "sessionId": "x"})
        assert load["error"]["code"] == INVALID
        # A failed initialize does not count either.
        assert "error" in agent.call("initialize", {"clientInfo": 5})
        assert agent.call("session/new", params)["error"]["code"] == INVALID
        agent.initialize()
        assert "result" in agent.call("session/new", params)
    finally:
        agent.close()


def test_a_line_over_the_limit_is_answered_and_the_next_one_served(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path, CLAUDE_ACP_MAX_LINE_BYTES="4096")
    try:
        agent.initialize()
        huge = {"jsonrpc": "2.0", "id": "big", "method": "initialize", "params": {"x": "y" * 9000}}
        agent.write(json.dumps(huge).encode() + b"\n")
        reply = agent.read_frame()
        assert reply["id"] is None and reply["error"]["code"] == INVALID
        assert "4096" in reply["error"]["data"]["reason"]
        assert "result" in agent.call("initialize", {"protocolVersion": 1})
        assert not [r for r in agent.responses() if r.get("id") == "big"]
    finally:
        agent.close()


def _requests(workdir: Path) -> bytes:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": str(workdir), "mcpServers": []},
        },
    ]
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


@pytest.mark.parametrize("stdout_kind", ["file", "devnull"])
def test_a_request_file_as_stdin_and_a_file_or_dev_null_as_stdout(
    tmp_path: Path, stdout_kind: str
) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(_requests(workdir))
    out_path = tmp_path / "out.jsonl" if stdout_kind == "file" else Path("/dev/null")
    with requests.open("rb") as stdin, out_path.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "adapter"],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            cwd=str(ROOT),
            env=agent_env(tmp_path),
            timeout=TIMEOUT,
        )
    assert done.returncode == 0, done.stderr
    assert b"Pipe transport" not in done.stderr and b"Traceback" not in done.stderr
    if stdout_kind == "file":
        frames = [json.loads(line) for line in out_path.read_text().splitlines()]
        answers = [f for f in frames if "method" not in f]  # notifications may come too
        assert [a["id"] for a in answers] == [1, 2]
        assert all("result" in a for a in answers)


def test_dev_null_as_stdin_ends_the_agent_cleanly(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "adapter"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=str(ROOT),
        env=agent_env(tmp_path),
        timeout=TIMEOUT,
    )
    assert done.returncode == 0 and done.stdout == b""
    assert b"ERROR" not in done.stderr and b"Traceback" not in done.stderr


def test_at_end_of_input_a_running_prompt_is_answered_before_exit(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path, "hang")
    try:
        agent.initialize()
        session = agent.new_session()
        prompt = agent.request(
            "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
        )
        # Claude is running the turn (its first text arrived); then the input ends.
        while not agent_text_arrived(agent.read_frame()):
            pass
        agent.close_stdin()
        agent.read_to_end()
        assert agent.wait() == 0
        answers = [r for r in agent.responses() if r.get("id") == prompt]
        assert answers == [{"jsonrpc": "2.0", "id": prompt, "result": {"stopReason": "cancelled"}}]
    finally:
        agent.close()


# --- fuzzing ----------------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
_ids = st.integers(min_value=0, max_value=10**6) | st.text(max_size=6) | _json
_methods = st.sampled_from(["initialize", "authenticate", "nope/x", "session/cancel"]) | _json
_messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0"]), "method": _methods},
    optional={"id": _ids, "params": _json},
)
_lines = (
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b" "))
    | _json.map(lambda v: json.dumps(v).encode())
    | _messages.map(lambda m: json.dumps(m).encode())
    | st.lists(_messages, max_size=3).map(lambda m: json.dumps(m).encode())
)


@pytest.fixture(scope="module")
def fuzzed_agent(tmp_path_factory: pytest.TempPathFactory) -> Any:
    agent = RawAgent(tmp_path_factory.mktemp("guard-fuzz"))
    agent.initialize()
    yield agent
    agent.close()


def _requests_in(line: bytes) -> list[Any]:
    """The ids of the well-formed requests in `line` (answered under their own id)."""
    try:
        value = json.loads(line)
    except ValueError:
        return []
    if isinstance(value, dict) and isinstance(value.get("method"), str):
        request_id = value.get("id")
        if isinstance(request_id, int | str) and not isinstance(request_id, bool):
            return [request_id]
    return []


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,
    derandomize=True,
)
@given(line=_lines)
def test_fuzz_the_agent_answers_every_request_and_survives(
    fuzzed_agent: RawAgent, line: bytes
) -> None:
    agent = fuzzed_agent
    seen = len(agent.frames)
    agent.write(line + b"\n")
    # A probe behind the line: answered iff the agent is still serving.
    probe = agent.request("initialize", {"protocolVersion": 1})
    assert "result" in agent.answer(probe)
    new = agent.frames[seen:]
    for frame in new:
        for item in frame if isinstance(frame, list) else [frame]:
            assert item.get("jsonrpc") == "2.0", item
            if "method" not in item:
                assert ("result" in item) != ("error" in item), item
    for request_id in _requests_in(line):
        got = [
            f
            for f in new
            if isinstance(f, dict) and "method" not in f and f.get("id") == request_id
        ]
        assert len(got) == 1, (line, new)
    assert agent.process.poll() is None


# --- client text in the log -------------------------------------------------------------------


def test_client_text_cannot_forge_log_lines(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path)
    try:
        agent.initialize()
        forged = "x\n2026-01-01 00:00:00,000 ERROR adapter: FORGED\x00"
        agent.write(
            json.dumps(
                {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": forged}}
            ).encode()
            + b"\n"
        )
        huge = "y" * 1_000_000
        agent.write(
            json.dumps(
                {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": huge}}
            ).encode()
            + b"\n"
        )
        answer = agent.call("session/prompt", {"sessionId": forged, "prompt": []})
        assert answer["error"]["code"] == -32602
        agent.close_stdin()
        assert agent.wait() == 0
        log = agent.stderr()
        assert not [line for line in log.splitlines() if "FORGED" in line and "\\n" not in line]
        assert "x\\n2026-01-01 00:00:00,000 ERROR adapter: FORGED\\x00" in log
        assert max(len(line) for line in log.splitlines()) < 10_000
    finally:
        agent.close()
