"""Nothing on disk can hang the agent: a FIFO, a symlink loop or a folder
where Claude keeps a transcript, and a FIFO where the agent keeps a session marker, are skipped
without being opened for good; `session/list` and `session/load` answer and the end of input
still ends the agent. Through the real stdio agent with `CLAUDE_CONFIG_DIR` in a temp folder."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from tests.support.raw_agent import RawAgent

TIMEOUT = 30.0  # a hang shows as no answer within this; never a speed assertion


def test_fifos_and_odd_files_among_transcripts_and_markers_are_skipped(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path)
    try:
        agent.initialize()
        kept = agent.new_session()
        answer = agent.call(
            "session/prompt", {"sessionId": kept, "prompt": [{"type": "text", "text": "hi"}]}
        )
        assert answer["result"]["stopReason"] == "end_turn"
        config = tmp_path / "claude-config"
        [transcript] = (config / "projects").glob(f"*/{kept}.jsonl")
        fifo, loop, folder, marker_fifo = (str(uuid.uuid4()) for _ in range(4))
        os.mkfifo(transcript.with_name(f"{fifo}.jsonl"))
        transcript.with_name(f"{loop}.jsonl").symlink_to(f"{loop}.jsonl")  # itself
        transcript.with_name(f"{folder}.jsonl").mkdir()
        os.mkfifo(config / "claude-acp" / "sessions" / f"{marker_fifo}.json")

        for cwd in (str(agent.workdir), None):
            params: dict[str, object] = {"cwd": cwd} if cwd else {}
            listed = agent.answer(agent.request("session/list", params), timeout=TIMEOUT)
            ids = [s["sessionId"] for s in listed["result"]["sessions"]]
            assert ids == [kept], ids
        for odd in (fifo, loop, folder, marker_fifo):
            for method in ("session/load", "session/resume"):
                opening: dict[str, Any] = {
                    "sessionId": odd,
                    "cwd": str(agent.workdir),
                    "mcpServers": [],
                }
                refused = agent.answer(agent.request(method, opening), timeout=TIMEOUT)
                assert refused["error"]["code"] == -32002, (odd, method, refused)
        agent.close_stdin()
        agent.read_to_end(timeout=TIMEOUT)
        assert agent.wait(timeout=TIMEOUT) == 0
    finally:
        agent.close()
