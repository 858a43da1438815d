"""JetBrains AIR's session index through the real stdio agent and the scripted Claude
(docs/decisions.md#session-index): a row's state reads Claude Code's registry of live processes
(a live pid's entry shows its status; a dead pid or another machine's counts for nothing). The
rest of the index is in process: tests/shell/test_air_session_index.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.air_index_calls import air, index_list, until
from tests.support.harness import TIMEOUT, spawn_adapter

INDEX_CLIENT: dict[str, Any] = {
    "jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure", "sessionIndex"]}}
}


@pytest.mark.asyncio(loop_scope="module")
async def test_a_row_state_reads_claude_codes_registry_of_live_processes(tmp_path: Path) -> None:
    """A session no Claude Code process holds is idle; one an interactive CLI holds shows its
    registry status (newer than the transcript); a dead pid or another machine's entry counts
    for nothing."""
    fresh = {"CLAUDE_ACP_LIVE_REGISTRY_SECONDS": "0"}  # read on every look
    async with spawn_adapter(tmp_path, "success", client_meta=INDEX_CLIENT, env=fresh) as adapter:
        session = await adapter.new_session()
        assert isinstance(await adapter.prompt(session, "hello there"), PromptResponse)
        await asyncio.wait_for(adapter.conn.close_session(session_id=session), TIMEOUT)
        registry = adapter.config_dir / "sessions"
        # The scripted Claude's own entry went with its orderly exit.
        await until(lambda: not any(registry.glob("*.json")), "the closed Claude's entry")
        assert air((await index_list(adapter))[session])["state"] == "idle"
        # An interactive CLI (this test's own process stands in: it lives) that waits.
        now = time.time() * 1000 + 60_000  # newer than the transcript
        entry = {
            "pid": os.getpid(),
            "sessionId": session,
            "kind": "interactive",
            "entrypoint": "cli",
            "status": "waiting",
            "statusUpdatedAt": now,
        }
        own = registry / f"{os.getpid()}.json"
        own.write_text(json.dumps(entry), encoding="utf-8")
        assert air((await index_list(adapter))[session])["state"] == "requires_action"
        # Another machine's entry, and a pid no process has, count for nothing.
        own.write_text(json.dumps({**entry, "pidDomain": "elsewhere"}), encoding="utf-8")
        dead = registry / "4194303.json"
        dead.write_text(json.dumps({**entry, "pid": 4194303}), encoding="utf-8")
        assert air((await index_list(adapter))[session])["state"] == "idle"
