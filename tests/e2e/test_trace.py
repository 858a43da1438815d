"""`--trace FILE` and the log file on the real command: what a user attaches to a bug report
. The trace's line cutting alone is in `tests/shell/test_wire_trace.py`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.conformance import check_file
from tests.support.harness import spawn_adapter

ROOT = Path(__file__).resolve().parents[2]
# The adapter's own settings from the developer's shell (a log level, a log file) stay out.
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_ACP_")}


@pytest.mark.asyncio
async def test_a_traced_session_passes_conformance_and_the_log_file_fills(
    tmp_path: Path,
) -> None:
    trace, log_file = tmp_path / "trace.jsonl", tmp_path / "adapter.log"
    env = {"CLAUDE_ACP_TRACE_FILE": str(trace), "CLAUDE_ACP_LOG_FILE": str(log_file)}
    async with spawn_adapter(tmp_path, "retry_then_rate_limit", env=env) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "hello")
        second = await adapter.prompt(session, "again")
    assert isinstance(first, PromptResponse) and isinstance(second, PromptResponse)
    report = check_file(trace)
    assert report.violations == []
    # The trace holds exactly what the client saw, in order within each direction, with
    # directions absolute. Across directions the order is each end's own: the agent may
    # write an update (the command list) while the client's next request is on its way,
    # so the two ends can see those two frames in either order.
    traced = [json.loads(line) for line in trace.read_text("utf-8").splitlines()]
    direction = {"outgoing": "client_to_agent", "incoming": "agent_to_client"}
    for way in ("client_to_agent", "agent_to_client"):
        assert [e["message"] for e in traced if e["direction"] == way] == [
            f.message for f in adapter.frames if direction[f.direction] == way
        ]
    # An answer is never traced before the request it answers.
    seen: set[object] = set()
    for e in traced:
        if e["direction"] == "client_to_agent" and "method" in e["message"]:
            seen.add(e["message"].get("id"))
        elif e["direction"] == "agent_to_client" and "method" not in e["message"]:
            assert e["message"]["id"] in seen
    assert sum(1 for e in traced if e["message"].get("method") == "session/prompt") == 2
    logged = log_file.read_text("utf-8")
    assert "INFO adapter.app.cli: claude-acp" in logged and "serving ACP on stdio" in logged
    assert "INFO adapter.agent.acp_agent: initialize:" in logged


def test_trace_and_log_file_flags_keep_what_the_guard_could_not_parse(tmp_path: Path) -> None:
    trace, log_file = tmp_path / "trace.jsonl", tmp_path / "adapter.log"
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}},
    }
    flags = ["--simulate", "success", "--trace", str(trace), "--log-file", str(log_file)]
    with subprocess.Popen(
        [sys.executable, "-m", "adapter", *flags],
        cwd=ROOT,
        env=CLEAN_ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as process:  # closes the pipes and reaps the process whatever happens
        try:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(initialize).encode() + b"\n")
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            process.stdin.write(b"this line is not JSON\n")
            process.stdin.close()
            assert process.wait(timeout=60) == 0
        finally:
            if process.poll() is None:
                process.kill()
    entries = [json.loads(line) for line in trace.read_text("utf-8").splitlines()]
    assert [(e["direction"], e["message"]) for e in entries] == [
        ("client_to_agent", initialize),
        ("agent_to_client", answer),
        ("client_to_agent", "this line is not JSON"),
        # The input guard answers the line it could not parse; the trace keeps both.
        ("agent_to_client", {**entries[3]["message"], "id": None}),
    ]
    assert entries[3]["message"]["error"]["code"] == -32700
    report = check_file(trace)
    assert "unparseable" in [v.rule for v in report.violations]
    assert "serving ACP on stdio" in log_file.read_text("utf-8")


@pytest.mark.parametrize("flag", ["--log-file", "--trace"])
def test_an_unwritable_file_is_refused_plainly(flag: str, tmp_path: Path) -> None:
    target = tmp_path / "missing-folder" / "file"
    done = subprocess.run(
        [sys.executable, "-m", "adapter", flag, str(target)],
        cwd=ROOT,
        env=CLEAN_ENV,
        input=b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == f"claude-acp: cannot open {target}: No such file or directory\n"
