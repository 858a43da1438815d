"""Hypothesis fuzzing of `initialize` on one real adapter process: arbitrary JSON as
`clientCapabilities._meta` always gets a well-formed answer (docs/decisions.md#negotiation: never an
error) and the advertisement (docs/decisions.md#advertising). The same declarations through
`negotiate` alone are fuzzed in `tests/shell/test_fuzz_inputs.py`.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from fsm.air.client import ADVERTISED, INDEX_CAPABILITIES, air_client
from tests.support.fuzz_values import CAPABILITY_META
from tests.support.harness import ROOT


def _check_frame(line: str) -> dict[str, Any]:
    message = json.loads(line)
    assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line
    if "method" not in message:
        assert ("result" in message) != ("error" in message), line
        if "error" in message:
            error = message["error"]
            assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str)
    return message


class _RawAgent:
    """`python -m adapter` spoken to by hand, synchronously (hypothesis tests are sync)."""

    def __init__(self, tmp: Path) -> None:
        self.stderr = (tmp / "adapter-stderr.log").open("wb")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "CLAUDE_ACP_LOG": "INFO"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "adapter"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=str(ROOT),
            env=env,
        )
        self.next_id = 0

    def call(self, method: str, params_json: str, timeout: float = 30.0) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        line = f'{{"jsonrpc":"2.0","id":{self.next_id},"method":"{method}","params":{params_json}}}'
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        while True:
            ready, _, _ = select.select([self.process.stdout], [], [], timeout)
            assert ready, f"no answer to {method} within {timeout} s"
            raw = self.process.stdout.readline()
            assert raw, "the adapter closed its stdout"
            message = _check_frame(raw.decode())
            if message.get("id") == self.next_id and "method" not in message:
                return message

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()


@pytest.fixture(scope="module")
def raw_agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_RawAgent]:
    agent = _RawAgent(tmp_path_factory.mktemp("fuzz-agent"))
    yield agent
    agent.close()


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(meta=CAPABILITY_META)
def test_initialize_answers_any_capability_meta(raw_agent: _RawAgent, meta: Any) -> None:
    capabilities = json.dumps({"_meta": meta})
    answer = raw_agent.call(
        "initialize", f'{{"protocolVersion":1,"clientCapabilities":{capabilities}}}'
    )
    # docs/decisions.md#negotiation: whatever the declaration, never an error;
    # docs/decisions.md#advertising: the advertisement to an AIR client (one whose
    # `_meta.jetbrains.air` is an object), nothing under `jetbrains` else.
    assert "result" in answer, answer
    advertised = (answer["result"].get("_meta") or {}).get("jetbrains")
    client = air_client(meta)
    if client.air:
        # The session index's names only to a well-formed declaration of `sessionIndex`.
        index = list(INDEX_CAPABILITIES) if client.session_index else []
        goal = {"version": 1, "controlMethod": "_session/goal", "actions": ["set", "clear"]}
        declared = {"version": 1, "capabilities": [*ADVERTISED, *index], "goal": goal}
        assert advertised == {"air": declared}
    else:
        assert advertised is None
    assert raw_agent.process.poll() is None
