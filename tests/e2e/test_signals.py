"""Signals: SIGTERM, SIGINT and SIGHUP answer every prompt in flight `cancelled` and a session
still opening `-32800`, stop Claude (SIGKILL when it ignores SIGTERM; the first session's too,
spawned before the agent's task group exists), remove the adapter's temp folders and exit
128 + the signal; Ctrl-C in a terminal exits 130 without a traceback. The end of input right
after that spawn answers the opening, then ends its Claude. The openings' guard alone is in
process: tests/shell/test_openings_at_exit.py."""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from adapter.scripted_claude import write_launcher
from adapter.scripted_claude.transcript import sanitize_path
from tests.support.harness import ROOT
from tests.support.huge_transcripts import assistant_line, user_line
from tests.support.raw_agent import (
    TIMEOUT,
    RawAgent,
    agent_env,
    agent_text_arrived,
    processes_mentioning,
)


def _wait_gone(session: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while processes_mentioning(session):
        assert time.monotonic() < deadline, f"Claude of {session} still running"
        time.sleep(0.05)


def _prompt_running(agent: RawAgent) -> tuple[str, str]:
    """A session whose prompt Claude is working on (its first text has arrived)."""
    agent.initialize()
    session = agent.new_session()
    prompt = agent.request(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}
    )
    while not agent_text_arrived(agent.read_frame()):
        pass
    return session, prompt


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_cancels_the_prompt_stops_claude_and_cleans_up(
    tmp_path: Path, signum: int
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    # --simulate: the adapter makes its own temp folder (the launcher, Claude's config).
    agent = RawAgent(tmp_path, args=("--simulate", "hang"), TMPDIR=str(scratch))
    try:
        session, prompt = _prompt_running(agent)
        assert list(scratch.iterdir()), "the adapter's temp folder exists while it serves"
        agent.process.send_signal(signum)
        agent.read_to_end()
        assert agent.wait() == 128 + signum
        answers = [r for r in agent.responses() if r.get("id") == prompt]
        assert answers == [{"jsonrpc": "2.0", "id": prompt, "result": {"stopReason": "cancelled"}}]
        _wait_gone(session)
        assert list(scratch.iterdir()) == []
        assert "Traceback" not in agent.stderr()
    finally:
        agent.close()


@pytest.mark.parametrize("level", ["", "INFO"])
def test_sigterm_from_the_client_is_quiet_at_the_default_log_level(
    tmp_path: Path, level: str
) -> None:
    # A normal shutdown: a client that shows the agent's stderr shows nothing of it, unless
    # the user asked for INFO.
    agent = RawAgent(tmp_path, "hang", CLAUDE_ACP_LOG=level)
    try:
        _prompt_running(agent)
        agent.process.send_signal(signal.SIGTERM)
        agent.read_to_end()
        assert agent.wait() == 128 + signal.SIGTERM
        said = agent.stderr()
        if level:
            assert "INFO adapter.app.serving: SIGTERM: shutting down" in said
        else:
            assert said == ""
    finally:
        agent.close()


def test_a_claude_that_ignores_sigterm_is_killed(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path, "ignore_sigterm")
    try:
        session, prompt = _prompt_running(agent)
        agent.process.send_signal(signal.SIGTERM)
        agent.read_to_end()
        assert agent.wait() == 128 + signal.SIGTERM
        assert agent.answer(prompt)["result"]["stopReason"] == "cancelled"
        _wait_gone(session)
        assert "ignored SIGTERM; killing it" in agent.stderr()
    finally:
        agent.close()


def test_every_session_s_prompt_is_answered_on_a_signal(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path, "hang")
    try:
        first, first_prompt = _prompt_running(agent)
        second = agent.new_session()
        second_prompt = agent.request(
            "session/prompt", {"sessionId": second, "prompt": [{"type": "text", "text": "go"}]}
        )
        queued = agent.request(
            "session/prompt", {"sessionId": second, "prompt": [{"type": "text", "text": "next"}]}
        )
        while len(processes_mentioning(second)) == 0:
            time.sleep(0.05)
        agent.process.send_signal(signal.SIGTERM)
        agent.read_to_end()
        assert agent.wait() == 128 + signal.SIGTERM
        for prompt in (first_prompt, second_prompt, queued):
            answers = [r for r in agent.responses() if r.get("id") == prompt]
            assert [a["result"] for a in answers] == [{"stopReason": "cancelled"}], prompt
        _wait_gone(first)
        _wait_gone(second)
    finally:
        agent.close()


def test_ctrl_c_in_a_terminal_exits_130_without_a_traceback(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "adapter"],
        stdin=slave,
        stdout=slave,
        stderr=subprocess.PIPE,
        cwd=str(ROOT),
        env=agent_env(tmp_path),
    )
    os.close(slave)
    try:
        # Serving (its signal handlers in place) once it answers initialize.
        request = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": 1},
        }
        os.write(master, json.dumps(request).encode() + b"\n")
        seen = b""
        deadline = time.monotonic() + TIMEOUT
        while b'"result"' not in seen:
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, "no answer to initialize"
            seen += os.read(master, 65536)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=TIMEOUT)
        assert process.returncode == 130
        assert b"Traceback" not in stderr and b"KeyboardInterrupt" not in stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)


def _held_launcher(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A `claude` that notes its pid, then waits on a FIFO (until the test writes a line to it)
    before it execs the scripted Claude: meanwhile the adapter has spawned it and waits for its
    start-up handshake. (launcher, its pid file, the FIFO)"""
    real = write_launcher(tmp_path / "real-bin")
    pid_file = tmp_path / "claude.pid"
    hold = tmp_path / "hold"
    os.mkfifo(hold)
    launcher = tmp_path / "held-bin" / "claude"
    launcher.parent.mkdir()
    launcher.write_text(
        "#!/bin/sh\n"
        f"echo $$ > {shlex.quote(str(pid_file))}.tmp\n"
        f"mv {shlex.quote(str(pid_file))}.tmp {shlex.quote(str(pid_file))}\n"
        f"read _ < {shlex.quote(str(hold))}\n"
        f'exec {shlex.quote(str(real))} "$@"\n',
        encoding="utf-8",
    )
    launcher.chmod(0o755)
    return launcher, pid_file, hold


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


class _HeldAgent:
    """An adapter whose `claude` is `_held_launcher`'s; `spawned` notes the Claude it spawned,
    which `_held_agent` kills if it outlives the test."""

    def __init__(self, tmp_path: Path) -> None:
        launcher, self.pid_file, self.hold = _held_launcher(tmp_path)
        self.agent = RawAgent(tmp_path, "success", CLAUDE_CODE_EXECUTABLE=str(launcher))
        self.claude: int | None = None

    def spawned(
        self, method: str = "session/new", params: dict[str, Any] | None = None
    ) -> tuple[Any, int]:
        """`method` sent (a `session/new` by default), and the pid of the Claude it spawned
        (held before its handshake)."""
        agent = self.agent
        agent.initialize()
        opening = agent.request(method, params or {"cwd": str(agent.workdir), "mcpServers": []})
        deadline = time.monotonic() + TIMEOUT
        while not self.pid_file.exists():
            assert time.monotonic() < deadline, "Claude was never spawned"
            assert agent.process.poll() is None, agent.stderr()
            time.sleep(0.01)
        self.claude = int(self.pid_file.read_text())
        assert _alive(self.claude)
        return opening, self.claude


@contextmanager
def _held_agent(tmp_path: Path) -> Iterator[_HeldAgent]:
    held = _HeldAgent(tmp_path)
    try:
        yield held
    finally:
        if held.claude is not None and _alive(held.claude):
            os.kill(held.claude, signal.SIGKILL)
        held.agent.close()


def _wait_ended(pid: int) -> None:
    deadline = time.monotonic() + TIMEOUT
    while _alive(pid):
        assert time.monotonic() < deadline, f"Claude ({pid}) outlived the adapter"
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_right_after_the_first_session_s_spawn_ends_its_claude_and_answers(
    tmp_path: Path, signum: int
) -> None:
    # The first session's Claude is spawned before anyio's task group exists
    # (`serving.LateTaskGroup`): a signal while that Claude has not finished its start-up
    # ends it too, answers its opening at once (docs/decisions.md#openings-at-exit), and the
    # adapter exits.
    with _held_agent(tmp_path) as held:
        agent = held.agent
        opening, claude = held.spawned()
        agent.process.send_signal(signum)
        agent.read_to_end()
        assert agent.wait() == 128 + signum
        _wait_ended(claude)
        # Cancelled, not a session that no longer exists, and not left to the exit's drain of
        # unanswered requests (30 s, which an editor that kills its agent sooner cuts short,
        # leaving Claude behind).
        answers = [r for r in agent.responses() if r.get("id") == opening]
        assert [a.get("error", {}).get("code") for a in answers] == [-32800], answers
        said = agent.stderr()
        assert "still unanswered at exit" not in said and "Traceback" not in said


def test_a_signal_while_a_load_replays_ends_its_claude_and_answers(tmp_path: Path) -> None:
    # A `session/load` with a transcript spawns its Claude, then starts it while the history
    # replays: a signal then cancels the load before the session is registered, and its Claude
    # is still stopped (docs/decisions.md#openings-at-exit).
    with _held_agent(tmp_path) as held:
        agent = held.agent
        session_id = str(uuid.uuid4())
        folder = tmp_path / "claude-config" / "projects" / sanitize_path(str(agent.workdir))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session_id}.jsonl").write_bytes(user_line("hello") + assistant_line("Hi."))
        params = {"cwd": str(agent.workdir), "sessionId": session_id, "mcpServers": []}
        loading, claude = held.spawned("session/load", params)
        agent.process.send_signal(signal.SIGTERM)
        agent.read_to_end()
        assert agent.wait() == 128 + signal.SIGTERM
        _wait_ended(claude)
        answers = [r for r in agent.responses() if r.get("id") == loading]
        assert [a.get("error", {}).get("code") for a in answers] == [-32800], answers
        assert "Traceback" not in agent.stderr()


def test_input_closed_right_after_the_first_session_s_spawn_answers_it_then_ends_its_claude(
    tmp_path: Path,
) -> None:
    # The end of input: the opening read before it is finished and answered (a client may
    # write its requests and close its input), then its Claude is ended with the adapter.
    with _held_agent(tmp_path) as held:
        agent = held.agent
        opening, claude = held.spawned()
        agent.close_stdin()
        with held.hold.open("w") as release:  # Claude goes on with its start-up
            release.write("go\n")
        answer = agent.answer(opening)
        agent.read_to_end()
        assert agent.wait() == 0
        _wait_ended(claude)
        assert "sessionId" in answer["result"], answer
        assert "Traceback" not in agent.stderr()
