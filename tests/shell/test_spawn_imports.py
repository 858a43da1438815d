"""What the agent has imported by the time a fresh process's first session spawns its Claude.

A session request spawns Claude first and builds the session while Claude starts up
(`adapter.agent.opening`), so what the spawn does not need is imported after it, where the
import costs nothing anyone waits for (docs/performance.md). A fresh interpreter runs the real
serving path (`adapter.app.cli.main`) with `anyio.open_process`, which the SDK spawns Claude
with, wrapped to note `sys.modules` and refuse the spawn; this test sends `initialize` and
`session/new`, reads the refusal and the note, and names every module that came in before the
spawn although it is not needed for it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import adapter

ROOT = Path(adapter.__file__).resolve().parent.parent

CHILD = """
import dataclasses, gc, json, sys

from adapter.lean_imports import prepare_imports

class NoteBackend:  # how anyio's asyncio backend (imported on the task group's first use) comes in
    def find_spec(self, name, path=None, target=None):
        if name == "anyio._backends._asyncio":
            note = {"collecting": gc.isenabled(), "cached": dataclasses.exec is not exec}
            print(json.dumps({"backend": note}), file=sys.stderr, flush=True)

sys.meta_path.insert(0, NoteBackend())
prepare_imports()
import anyio

async def noting_open_process(*args, **kwargs):
    print(json.dumps({"modules": sorted(sys.modules)}), file=sys.stderr, flush=True)
    raise OSError("no Claude in this test")

anyio.open_process = noting_open_process
from adapter.app.cli import main

sys.exit(main([]))
"""

# Used only once Claude is spawned (while it starts up, or later): the session's store of
# markers and transcripts (a new session leaves its marker after the answer), the reader of
# Claude's messages, the SDK's transcript rules, the session itself.
NOT_BEFORE_SPAWN = (
    "adapter.claude.session_store",
    "adapter.claude.message_stream",
    "adapter.claude.unparsed",
    "adapter.claude.transcript_heads",
    "claude_agent_sdk._internal.sessions",
    "adapter.session",
    "fsm.air.fork_points",
    # Used when a start fails, and by the first model switch Claude Code reports.
    "fsm.claude.start_failures",
    "fsm.pickers.model_following",
    # Claude's transcripts, read before the spawn only by an opening that resumes one.
    "adapter.claude.transcript_tail",
    "adapter.claude.transcripts",
    # How Claude's questions are asked: the spawn needs only which tool it is started without.
    "adapter.controls.questions",
    "adapter.controls.form_presenter",
    # The SDK's trace context propagation, when there is no trace context to pass on
    # (`lean_imports.lean_trace_propagation`): what the real `opentelemetry.propagate` imports.
    "opentelemetry.propagators",
    "opentelemetry.baggage",
)
# What the spawn does need: the check above would pass vacuously if the child never got here.
NEEDED = ("adapter.agent.opening", "adapter.claude.claude_runtime", "claude_agent_sdk.types")


def _spawn_of_a_new_session(
    tmp_path: Path,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": str(tmp_path), "mcpServers": []},
        },
    ]
    env = {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-config"),
        "CLAUDE_CODE_EXECUTABLE": sys.executable,  # never started: the spawn is refused
    }
    with subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
        text=True,
    ) as agent:
        assert agent.stdin is not None and agent.stdout is not None
        agent.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        agent.stdin.flush()
        answer: dict[str, Any] = {}
        for line in agent.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                answer = message
                break
        agent.stdin.close()
        stderr = agent.stderr.read() if agent.stderr is not None else ""  # until it exits
        agent.wait(timeout=120)
    notes = [line for line in stderr.splitlines() if line.startswith('{"modules"')]
    backend = [line for line in stderr.splitlines() if line.startswith('{"backend"')]
    assert notes and backend, stderr[-2000:]
    return answer, json.loads(notes[0]), json.loads(backend[0])["backend"]


def test_a_new_session_spawns_claude_before_importing_what_the_spawn_does_not_need(
    tmp_path: Path,
) -> None:
    answer, note, _ = _spawn_of_a_new_session(tmp_path)
    assert "error" in answer  # the spawn was refused, after the note
    modules = set(note["modules"])
    assert set(NEEDED) <= modules
    early = {
        name
        for name in modules
        if any(name == late or name.startswith(late + ".") for late in NOT_BEFORE_SPAWN)
    }
    assert not early, f"imported before Claude's spawn: {sorted(early)}"


def test_anyios_backend_comes_in_from_the_code_cache_with_the_collector_waiting(
    tmp_path: Path,
) -> None:
    # After `initialize` is answered, on the way to the first spawn: its dataclasses take their
    # code from the cache, and no collection walks what it makes (serving freezes it after).
    _, _, backend = _spawn_of_a_new_session(tmp_path)
    assert backend == {"collecting": False, "cached": True}


# What a resume or load imports to find the transcript it resumes (`session_store.locate`)
# and to spawn: the core's fork points and listed titles are the fork's and the listing's.
LOCATE = """
import json, sys
from adapter.lean_imports import prepare_imports

prepare_imports()
from adapter.agent import opening
from adapter.claude import claude_runtime, session_store
print(json.dumps(sorted(sys.modules)))
"""


def test_what_a_resume_imports_before_its_spawn_leaves_the_forks_and_listings_out() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOCATE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    modules = set(json.loads(done.stdout))
    assert "adapter.claude.session_store" in modules
    late = (
        "fsm.air.fork_points",
        "fsm.air.archive_titles",
        "fsm.claude.start_failures",
        "fsm.pickers.model_following",
        "adapter.claude.message_stream",
        "adapter.claude.unparsed",
        "adapter.claude.transcript_heads",
        "adapter.session",
    )
    early = {name for name in modules if any(name == m or name.startswith(m + ".") for m in late)}
    assert not early, f"imported with what a resume needs before its spawn: {sorted(early)}"
