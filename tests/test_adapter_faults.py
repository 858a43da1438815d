"""Claude's process misbehaving: every prompt still gets exactly one answer, promptly."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.harness import TIMEOUT, Adapter, spawn_adapter


@pytest.mark.asyncio
async def test_output_closed_but_process_alive_is_stopped_and_reported(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "close_stdout_and_linger") as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
        # A replacement process resumes the session and answers the next prompt.
        again = await adapter.prompt(session, "again")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [(carrier, record)] = adapter.records()
    assert carrier == "prompt_response"
    assert record["category"] == "connection" and record["actions"] == ["new_session"]
    assert record["title"] == "The connection to Claude was lost."
    assert isinstance(again, PromptResponse) and again.stop_reason == "end_turn"
    assert "did not exit; stopping it" in adapter.stderr()


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(int(proc.name))
    return found


@pytest.mark.asyncio
async def test_client_vanishing_mid_turn_ends_claude_and_the_adapter(tmp_path: Path) -> None:
    # Leaving the harness, the client's own connection finds its pipe closed: expected here.
    with contextlib.suppress(ConnectionResetError):
        async with spawn_adapter(tmp_path, "hang") as adapter:
            session, code = await _vanish_mid_turn(adapter)
    assert code == 0
    # No orphan: Claude's process for that session is gone too.
    async with asyncio.timeout(TIMEOUT):
        while _processes_mentioning(session):
            await asyncio.sleep(0.05)


async def _vanish_mid_turn(adapter: Adapter) -> tuple[str, int]:
    session = await adapter.new_session()
    prompt = asyncio.create_task(adapter.prompt(session, "take your time"))
    async with asyncio.timeout(TIMEOUT):
        while not _processes_mentioning(session):
            await asyncio.sleep(0.05)
    # The client goes away: its end of the adapter's stdin closes.
    assert adapter.process.stdin is not None
    adapter.process.stdin.close()
    async with asyncio.timeout(TIMEOUT):
        code = await adapter.process.wait()
    prompt.cancel()
    return session, code
