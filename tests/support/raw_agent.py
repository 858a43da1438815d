"""The adapter as a real subprocess spoken to in raw bytes, synchronously (for the hostile-input
tests and Hypothesis, whose tests are sync). Sessions spawn the scripted Claude playing
`scenario`; every line the agent writes is kept, parsed, in `frames`."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from adapter.scripted_claude import SCENARIO_ENV, write_launcher
from tests.support.harness import ROOT

__all__ = ["RawAgent", "agent_env", "agent_text_arrived", "processes_mentioning"]

TIMEOUT = 60.0  # a bound on a hang, never a speed assertion


def agent_env(tmp: Path, scenario: str = "success", **extra: str) -> dict[str, str]:
    config = tmp / "claude-config"
    config.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CLAUDE_ACP_LOG": "INFO",
        "CLAUDE_CODE_EXECUTABLE": str(write_launcher(tmp / "bin")),
        SCENARIO_ENV: scenario,
        "CLAUDE_CONFIG_DIR": str(config),
    }
    env.update(extra)
    return env


class RawAgent:
    def __init__(
        self, tmp: Path, scenario: str = "success", *, args: tuple[str, ...] = (), **env: str
    ) -> None:
        self.tmp = tmp
        self.workdir = tmp / "project"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.stderr_path = tmp / "adapter-stderr.log"
        self._stderr = self.stderr_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "adapter", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=str(ROOT),
            env=agent_env(tmp, scenario, **env),
        )
        self.frames: list[Any] = []
        self.lines: list[bytes] = []  # every line the agent wrote, as written
        self._next = 0
        self._buffer = b""

    # --- writing ------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def request(self, method: str, params: Any = None, *, request_id: Any = None) -> Any:
        """Send one request; returns its id."""
        if request_id is None:
            self._next += 1
            request_id = f"r{self._next}"
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.write(json.dumps(message).encode() + b"\n")
        return request_id

    def call(self, method: str, params: Any = None) -> dict[str, Any]:
        return self.answer(self.request(method, params))

    def initialize(self) -> None:
        assert "result" in self.call("initialize", {"protocolVersion": 1})

    def new_session(self) -> str:
        answer = self.call("session/new", {"cwd": str(self.workdir), "mcpServers": []})
        return str(answer["result"]["sessionId"])

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    # --- reading ------------------------------------------------------------------------

    def read_frame(self, timeout: float = TIMEOUT) -> Any:
        """The next line the agent wrote, parsed (None at the end of its output)."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"nothing from the agent within {timeout} s"
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\n")
        self.lines.append(raw)
        frame = json.loads(raw)
        self.frames.append(frame)
        return frame

    def answer(self, request_id: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The response to `request_id` (reading on until it comes)."""
        for frame in self.responses():
            if frame.get("id") == request_id:
                return frame
        deadline = time.monotonic() + timeout
        while True:
            frame = self.read_frame(max(0.0, deadline - time.monotonic()))
            assert frame is not None, f"the agent ended without answering {request_id!r}"
            if _is_response(frame) and frame.get("id") == request_id:
                return dict(frame)

    def responses(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for frame in self.frames:
            items = frame if isinstance(frame, list) else [frame]
            found.extend(item for item in items if _is_response(item))
        return found

    def read_to_end(self, timeout: float = TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while self.read_frame(max(0.0, deadline - time.monotonic())) is not None:
            pass

    def wait(self, timeout: float = TIMEOUT) -> int:
        return self.process.wait(timeout)

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            if self.process.stdin is not None and not self.process.stdin.closed:
                self.process.stdin.close()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._stderr.close()


def _is_response(frame: Any) -> bool:
    return isinstance(frame, dict) and "method" not in frame and "id" in frame


def processes_mentioning(text: str) -> list[int]:
    """The pids of live processes whose command line contains `text` (a session id)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if text in cmdline and state != "Z":
            found.append(int(proc.name))
    return found


def agent_text_arrived(frame: Any) -> bool:
    """Whether `frame` carries Claude's text (so Claude is running the turn by now)."""
    if not isinstance(frame, dict) or frame.get("method") != "session/update":
        return False
    update = frame.get("params", {}).get("update", {})
    return isinstance(update, dict) and update.get("sessionUpdate") == "agent_message_chunk"
