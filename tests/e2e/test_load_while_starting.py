"""`session/load` end to end, since the single-pass replay: Claude starts while the history
streams, and a start failure is still the load's answer; a long replay to a client that did not
opt in to records stays flat in the agent's memory."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import acp
import pytest

from adapter.scripted_claude.transcript import sanitize_path
from tests.bench.agents import write_scenario_launcher
from tests.bench.procfs import status_kib
from tests.bench.rpc import spawn
from tests.bench.transcripts import write_transcript
from tests.support.harness import ROOT, Adapter, script_launcher, spawn_adapter

MB = 1024 * 1024


def _write_history(adapter: Adapter, session_id: str, turns: int) -> None:
    folder = adapter.config_dir / "projects" / sanitize_path(str(adapter.workdir))
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for n in range(turns):
        lines.append(
            {
                "type": "user",
                "uuid": str(uuid.uuid4()),
                "message": {"role": "user", "content": f"q{n}"},
            }
        )
        message = {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": f"a{n}"}],
        }
        lines.append({"type": "assistant", "uuid": str(uuid.uuid4()), "message": message})
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (folder / f"{session_id}.jsonl").write_text(text, encoding="utf-8")


_EXITS_LATE = """
import sys, time
time.sleep(1.5)  # after a short history has streamed
sys.exit(3)
"""


@pytest.mark.asyncio
@pytest.mark.parametrize("claude", ["missing", "exits_late"])
async def test_a_claude_that_fails_to_start_is_the_loads_answer(
    tmp_path: Path, claude: str
) -> None:
    if claude == "missing":
        executable = tmp_path / "no-such-claude"
    else:
        executable = script_launcher(tmp_path / "late", "exits_late", _EXITS_LATE)
    env = {"CLAUDE_CODE_EXECUTABLE": str(executable)}
    session_id = str(uuid.uuid4())
    async with spawn_adapter(tmp_path, env=env, off_spec="a failed load") as adapter:
        _write_history(adapter, session_id, turns=2_000)
        with pytest.raises(acp.RequestError) as raised:
            await adapter.conn.load_session(
                cwd=str(adapter.workdir), session_id=session_id, mcp_servers=[]
            )
        # The session is not left open: a prompt to it is refused, not hung.
        assert isinstance(await adapter.prompt(session_id, "hello"), acp.RequestError)
    assert raised.value.code == -32603
    reason = (raised.value.data or {}).get("reason", "")
    assert "Claude Code" in reason, raised.value.data
    streamed = len(adapter.updates("user_message_chunk"))
    if claude == "missing":
        # Claude is spawned before the history is read: one that cannot start at all is the
        # answer at once, with no history the client would have to discard.
        assert streamed == 0
    else:
        # The history streamed while Claude was starting: every turn reached the client.
        assert streamed == 2_000


@pytest.mark.asyncio
async def test_a_long_replay_to_a_client_without_records_stays_flat(tmp_path: Path) -> None:
    # Regression: stdout gathering held a replay's whole output until the replay yielded,
    # and for a client not opted in to records it never did (+580 MB for 100,000 lines).
    cwd, config = tmp_path / "project", tmp_path / "config"
    cwd.mkdir()
    facts = write_transcript(config, cwd, 30_000)  # about 20 MB of frames
    launcher = write_scenario_launcher(tmp_path / "bin")
    env = {"CLAUDE_CODE_EXECUTABLE": str(launcher), "CLAUDE_CONFIG_DIR": str(config)}
    argv = [sys.executable, "-m", "adapter"]
    agent = await spawn(argv, env=env, cwd=ROOT, stderr_path=tmp_path / "stderr.log")
    try:
        await agent.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        before = status_kib(agent.pid, "VmHWM")
        params = {"sessionId": facts.session_id, "cwd": str(cwd), "mcpServers": []}
        await agent.request("session/load", params, timeout=300)
        after = status_kib(agent.pid, "VmHWM")
    finally:
        await agent.close()
    assert before is not None and after is not None
    assert agent.notifications >= 30_000
    assert (after - before) * 1024 < 40 * MB, (before, after)
