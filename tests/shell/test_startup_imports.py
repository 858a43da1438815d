"""What the agent has imported by the time it answers `initialize`.

The answer to `initialize` needs `acp`, the capabilities and the client's dialects; the rest of
the adapter (what opens sessions, the Claude SDK, the core's events and machines) is imported by
the first request that uses it. A fresh interpreter runs the real serving path
(`adapter.app.cli.main`, no Claude behind it) with the agent's `initialize` wrapped to note
`sys.modules` right after it answers; this test sends `initialize`, reads the answer and the note,
and names every heavy module that came in too early. A new import on that path that pulls one
in fails here, with the chain that did it in the message.
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

# The child: the agent as `claude-acp` serves it, `initialize` wrapped to write the modules
# loaded at that moment (and who first imported each heavy one) to stderr as one JSON line.
CHILD = """
import importlib.abc, json, sys

HEAVY = json.loads(sys.argv[1])
first_importer = {}

class WhoImports(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in first_importer and any(name == h or name.startswith(h + ".") for h in HEAVY):
            frame, chain = sys._getframe(1), []
            while frame is not None and len(chain) < 4:
                module = frame.f_globals.get("__name__", "?")
                if not module.startswith(("importlib", "_frozen")) and module not in chain:
                    chain.append(module)
                frame = frame.f_back
            first_importer[name] = " <- ".join(chain)
        return None

sys.meta_path.insert(0, WhoImports())

from adapter.lean_imports import prepare_imports

prepare_imports()  # as serving does first; serving's own call then finds it done
from adapter.agent.acp_agent import ClaudeAcpAgent

answer_initialize = ClaudeAcpAgent.initialize

async def noting_initialize(self, *args, **kwargs):
    answer = await answer_initialize(self, *args, **kwargs)
    note = {"modules": sorted(sys.modules), "first_importer": first_importer}
    print(json.dumps(note), file=sys.stderr, flush=True)
    return answer

ClaudeAcpAgent.initialize = noting_initialize
from adapter.app.cli import main

sys.exit(main([]))
"""

# Not needed to answer `initialize`, and each costs start-up time (tens of milliseconds for
# some): the Claude SDK beyond its package stub and errors, its types; the session side of the
# adapter; the core's events and machines (`transitions`); Claude's transcripts. (Claude Code's
# settings files are read at start-up, for the managed policy's environment: that module is
# the standard library's `json` and a few functions.)
HEAVY = (
    "claude_agent_sdk.types",
    "claude_agent_sdk.client",
    "claude_agent_sdk._internal.query",
    "claude_agent_sdk._internal.transport",
    "mcp",
    "jsonschema",
    "transitions",
    "adapter.session",
    "adapter.agent.opening",
    "adapter.controls.session_controls",
    "adapter.controls.questions",
    "adapter.controls.pickers",
    "adapter.view",
    "adapter.claude.claude_runtime",
    "adapter.claude.transcripts",
    "adapter.claude.session_store",
    "fsm.events",
    "fsm.session",
    "fsm.machine",
    "fsm.claude.transcript_entries",
    # The failure records and their redaction (the log masking imports it with its first record).
    "fsm.records",
    "fsm.vocabulary",
    # anyio (its asyncio backend above all): serving enters the agent's task group after the
    # answer (adapter/app/serving.py, `LateTaskGroup`).
    "anyio",
    "sniffio",
    # JetBrains AIR's fork points: with the first fork.
    "fsm.air.fork_points",
    # JetBrains AIR's session index: made by the first request that may be one of its own.
    "adapter.agent.session_index",
    "fsm.air.session_index",
    # JetBrains AIR's changed-meta filter: made by the first update that passes it.
    "fsm.air.changed_meta_filter",
)
# What answering it does need: the check above would pass vacuously if the child never got here.
NEEDED = (
    "acp.schema",
    "adapter.agent.acp_agent",
    "adapter.agent.handshake",
    "fsm.wire.negotiation",
)

OPT_IN = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}


def _serve_one_initialize(tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}},
    }
    env = {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-config"),
        "CLAUDE_CODE_EXECUTABLE": str(tmp_path / "no-claude-is-started"),
    }
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(HEAVY)],
        input=json.dumps(request) + "\n",
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout.splitlines()[0])
    notes = [line for line in done.stderr.splitlines() if line.startswith('{"modules"')]
    assert len(notes) == 1, done.stderr[-2000:]
    return answer, json.loads(notes[0])


def test_initialize_is_answered_before_anything_heavy_is_imported(tmp_path: Path) -> None:
    answer, note = _serve_one_initialize(tmp_path)
    assert answer["id"] == 1 and answer["result"]["agentCapabilities"]["loadSession"] is True
    modules = set(note["modules"])
    assert set(NEEDED) <= modules
    early = {
        name
        for name in modules
        if any(name == heavy or name.startswith(heavy + ".") for heavy in HEAVY)
    }
    importers: dict[str, str] = note["first_importer"]
    assert not early, "imported before `initialize` was answered: " + "; ".join(
        f"{name} (by {importers.get(name, '?')})" for name in sorted(early)
    )


def test_the_session_index_methods_share_the_prefix_its_lazy_guard_looks_for() -> None:
    # The agent puts the index's guard in place at the first request that starts so (or a
    # `session/list` from a client that negotiated the index): a method outside it would pass.
    from adapter.agent.acp_agent import INDEX_PREFIX
    from adapter.agent.session_index import LIST
    from fsm import INDEX_METHODS

    assert INDEX_METHODS and all(method.startswith(INDEX_PREFIX) for method in INDEX_METHODS)
    assert LIST == "session/list"
