"""What the agent has imported by the time a fresh process's first session spawns its Claude.

A session request spawns Claude first and builds the session while Claude starts up
(`adapter.agent.opening`), so what the spawn does not need is imported after it, where the
import costs nothing anyone waits for (docs/performance.md). A fresh interpreter runs the real
serving path (`adapter.app.cli.main`) with `subprocess.Popen`'s fork, which starts Claude,
replaced to note `sys.modules` and refuse the spawn; each test sends `initialize` and one
session request (`session/new`, or `session/resume` or `session/load` of a transcript written
for it), reads the refusal and the note, and names every module that came in before the spawn
although it is not needed for it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import adapter
from tests.support.prompted_transcript import write_prompted_transcript

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
import subprocess

def noting_fork(*args, **kwargs):
    print(json.dumps({"modules": sorted(sys.modules)}), file=sys.stderr, flush=True)
    raise OSError("no Claude in this test")

subprocess.Popen._execute_child = noting_fork
from adapter.app.cli import main

sys.exit(main([]))
"""

# Used only once Claude is spawned (while it starts up, or later): anyio's asyncio backend, with
# the agent's task group (`serving.LateTaskGroup`, `sdk_compat.spawn_before_the_backend`); the
# session's store of markers and transcripts (a new session leaves its marker after the
# answer), the reader of Claude's messages, the SDK's transcript rules, the session itself.
NOT_BEFORE_SPAWN = (
    "anyio._backends",
    "anyio.streams.memory",  # the SDK's query reads Claude's frames through it
    "anyio._core._synchronization",  # anyio's locks and events, made after the spawn
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
    # The failure records and their vocabulary: the spawn neither makes nor masks one.
    "fsm.records",
    "fsm.vocabulary",
    # The pickers once Claude has reported its models: its list's entries, the entries the
    # settings' policy makes of them and their names, what each picker shows, the effort a
    # picker starts from.
    "adapter.controls.model_choices",
    "fsm.pickers.model_entries",
    "fsm.pickers.values",
    "fsm.pickers.effort_seeds",
    "fsm.pickers.ultracode",
    "adapter.controls.ultracode_switch",
)
# What the spawn does need: the check above would pass vacuously if the child never got here.
NEEDED = ("adapter.agent.opening", "adapter.claude.claude_runtime", "claude_agent_sdk.types")


SESSION_ID = "0b7e8f5e-1d2c-4c4e-9a53-6b0c1a2d3e4f"


def _modules_at_spawn(
    tmp_path: Path, method: str, params: dict[str, Any], *, executable: bool = True
) -> tuple[dict[str, Any], set[str], dict[str, Any]]:
    """The answer to `method` (the spawn refused), the modules imported by the spawn, and how
    anyio's backend came in. Claude is `$CLAUDE_CODE_EXECUTABLE`, or with `executable` False
    the CLI bundled in the SDK (never started either: the spawn is refused)."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": method, "params": params},
    ]
    env = {
        **{k: v for k, v in os.environ.items() if k != "CLAUDE_CODE_EXECUTABLE"},
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-config"),
    }
    if executable:
        env["CLAUDE_CODE_EXECUTABLE"] = sys.executable
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
    return answer, set(json.loads(notes[0])["modules"]), json.loads(backend[0])["backend"]


def _early(modules: set[str], late: tuple[str, ...]) -> set[str]:
    return {name for name in modules if any(name == m or name.startswith(m + ".") for m in late)}


def _new_session(
    tmp_path: Path, *, executable: bool = True
) -> tuple[dict[str, Any], set[str], dict[str, Any]]:
    params = {"cwd": str(tmp_path), "mcpServers": []}
    return _modules_at_spawn(tmp_path, "session/new", params, executable=executable)


@pytest.mark.parametrize("executable", [True, False], ids=["configured", "bundled"])
def test_a_new_session_spawns_claude_before_importing_what_the_spawn_does_not_need(
    tmp_path: Path, executable: bool
) -> None:
    # The bundled CLI too: the SDK looks for it on a worker thread (anyio's backend) unless
    # told where it is (`claude_runtime._bundled_cli`).
    answer, modules, _ = _new_session(tmp_path, executable=executable)
    assert "error" in answer  # the spawn was refused, after the note
    assert set(NEEDED) <= modules
    early = _early(modules, NOT_BEFORE_SPAWN)
    assert not early, f"imported before Claude's spawn: {sorted(early)}"


def test_anyios_backend_comes_in_from_the_code_cache_with_the_collector_waiting(
    tmp_path: Path,
) -> None:
    # After `initialize` is answered, on the way to the first spawn: its dataclasses take their
    # code from the cache, and no collection walks what it makes (serving freezes it after).
    _, _, backend = _new_session(tmp_path)
    assert backend == {"collecting": False, "cached": True}


# What a resume or load needs before its spawn: the transcript it resumes (`session_store.locate`,
# with the SDK's project folder rule) and its tail (the mode and model Claude starts with).
RESUME_NEEDS = (
    "adapter.claude.session_store",
    "claude_agent_sdk._internal.sessions",
    "adapter.claude.transcript_tail",
)
# ... and what it does not: the core's fork points and listed titles are the fork's and the
# listing's; the failure records and the pickers' rules for Claude Code's model list come in
# while Claude starts, as for a new session.
NOT_BEFORE_RESUMED_SPAWN = (
    "anyio._backends",
    "anyio.streams.memory",
    "anyio._core._synchronization",
    "fsm.air.fork_points",
    "fsm.air.archive_titles",
    "fsm.claude.start_failures",
    "fsm.pickers.model_following",
    "adapter.claude.message_stream",
    "adapter.claude.unparsed",
    "adapter.claude.transcript_heads",
    "adapter.session",
    "adapter.controls.questions",
    "fsm.records",
    # The tail reads Claude Code's own notices (`fsm.claude.synthetic_messages`), not what its
    # failures mean: the failure vocabulary and the classifier come in after the spawn.
    "fsm.vocabulary",
    "fsm.claude.classify",
    "adapter.controls.model_choices",
    "fsm.pickers.model_entries",
    "fsm.pickers.values",
    "fsm.pickers.effort_seeds",
    "fsm.pickers.ultracode",
    "adapter.controls.ultracode_switch",
)


@pytest.mark.parametrize("method", ["session/resume", "session/load"])
def test_a_resume_or_load_reads_its_transcript_but_no_more_before_its_spawn(
    tmp_path: Path, method: str
) -> None:
    from adapter.claude.sdk_compat import sanitize_path

    folder = tmp_path / "project"
    folder.mkdir()
    transcripts = tmp_path / "claude-config" / "projects" / sanitize_path(str(folder))
    transcripts.mkdir(parents=True)
    entry = {
        "type": "user",
        "sessionId": SESSION_ID,
        "permissionMode": "plan",
        "message": {"role": "user", "content": "hello"},
    }
    (transcripts / f"{SESSION_ID}.jsonl").write_text(json.dumps(entry) + "\n", encoding="utf-8")
    params = {"cwd": str(folder), "sessionId": SESSION_ID, "mcpServers": []}
    answer, modules, _ = _modules_at_spawn(tmp_path, method, params)
    assert "error" in answer  # the spawn was refused, after the note
    assert set(NEEDED) | set(RESUME_NEEDS) <= modules
    early = _early(modules, NOT_BEFORE_RESUMED_SPAWN)
    assert not early, f"imported with what a {method} needs before its spawn: {sorted(early)}"


def test_a_first_fork_copies_its_transcript_without_anyios_backend_before_its_spawn(
    tmp_path: Path,
) -> None:
    # The copy is made on asyncio's worker thread: anyio's would import its backend (about
    # 9 ms) before the fork's Claude is spawned.
    folder, _ = write_prompted_transcript(tmp_path, SESSION_ID)
    params = {"cwd": str(folder), "sessionId": SESSION_ID, "mcpServers": []}
    answer, modules, _ = _modules_at_spawn(tmp_path, "session/fork", params)
    assert "error" in answer  # the spawn was refused, after the note
    assert set(NEEDED) <= modules
    assert not _early(modules, ("anyio._backends",)), "anyio's backend before the fork's spawn"
