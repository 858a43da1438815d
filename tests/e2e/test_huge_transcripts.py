"""Huge and broken transcripts in Claude's `projects/` folder: a
40 MiB single line, a file of 200,000 small lines, a first line longer than the SDK's head
read, a half-written tail with bad bytes. `session/load` of each
gets exactly one answer and replays what is readable, and the agent's peak memory stays a
bounded amount over its baseline (a line over the reader's limit is skipped as it is read,
never held whole). Through the real stdio agent and the real SDK.

That `session/list` answers once and lists them all (the long first line under its start) is
`tests/shell/test_agent_answers.py`, in process. How each line is cut and skipped is pinned in
`tests/shell/test_transcript_reading.py`;
FIFOs and links among transcripts in `tests/e2e/test_hostile_disk.py`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import LoadSessionResponse

from tests.support.harness import Adapter, spawn_adapter
from tests.support.huge_transcripts import (
    LONG_FIRST_LINE,
    MANY_LINES,
    SHOWN_EVERY,
    write_transcripts,
)

MIB = 1024 * 1024
TIMEOUT = 180.0  # a bound on a hang under load, never a speed assertion
# What the loads may add to the agent's peak: the reader holds at most its limit of one line
# (32 MiB) and a block; reading the 40 MiB line whole, decoding it and sending it would cost
# several times its size.
PEAK_BOUND = 96 * MIB


def _peak(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def _texts(updates: list[dict[str, Any]], kind: str) -> list[str]:
    return [
        u["content"]["text"]
        for u in updates
        if u.get("sessionUpdate") == kind and isinstance(u.get("content"), dict)
    ]


def _answers(adapter: Adapter, method: str) -> dict[Any, int]:
    """How many answers each request of `method` got."""
    asked = {
        f.message["id"]
        for f in adapter.frames
        if f.direction == "outgoing" and f.message.get("method") == method
    }
    counts = dict.fromkeys(asked, 0)
    for message in adapter.incoming():
        if "method" not in message and message.get("id") in counts:
            counts[message["id"]] += 1
    return counts


@pytest.mark.asyncio
async def test_loading_huge_transcripts_replays_what_is_readable_within_bounded_memory(
    tmp_path: Path,
) -> None:
    env = {"CLAUDE_ACP_LOG": "WARNING"}
    async with spawn_adapter(tmp_path, env=env) as adapter:
        ids = write_transcripts(adapter.config_dir, adapter.workdir)
        baseline = _peak(adapter.process.pid)
        replayed: dict[str, list[dict[str, Any]]] = {}
        for kind, session_id in ids.items():
            before = len(adapter.updates())
            answer = await asyncio.wait_for(
                adapter.conn.load_session(
                    cwd=str(adapter.workdir), session_id=session_id, mcp_servers=[]
                ),
                TIMEOUT,
            )
            assert isinstance(answer, LoadSessionResponse), kind
            replayed[kind] = adapter.updates()[before:]
        grown = _peak(adapter.process.pid) - baseline
        # Still serving: a prompt on the session whose huge line was skipped is answered.
        after = await adapter.prompt(ids["huge"], "and now?")
    print(f"\nagent peak grew {grown / MIB:.0f} MiB over the loads")
    assert _texts(replayed["huge"], "agent_message_chunk") == ["BEFORE", "AFTER"]
    assert "skipped a transcript line over 32 MiB" in adapter.stderr()
    many = _texts(replayed["many"], "agent_message_chunk")
    assert many == [f"line {n}" for n in range(SHOWN_EVERY, MANY_LINES, SHOWN_EVERY)]
    long_prompts = _texts(replayed["long_first"], "user_message_chunk")
    assert long_prompts == ["L" * LONG_FIRST_LINE, "the second prompt"]
    assert _texts(replayed["long_first"], "agent_message_chunk") == [
        "LONG ANSWERED",
        "SECOND ANSWERED",
    ]
    assert _texts(replayed["corrupt"], "agent_message_chunk") == ["INTACT"]
    assert set(_answers(adapter, "session/load").values()) == {1}
    assert getattr(after, "stop_reason", None) == "end_turn", after
    assert grown < PEAK_BOUND, f"{grown / MIB:.0f} MiB"
