"""A `session/fork` cancelled while its transcript is being copied (the client went away, so
its request is cancelled): the copy, which goes on on a worker thread, is waited for and
removed, and nothing is remembered of it; the original is untouched
(docs/decisions.md#cancelled-fork). The copy here blocks until the test releases it, so the
cancellation comes mid-copy; its transcript counts as a long one, which is copied on a thread
(a short one is copied at once, with no wait a cancellation could come in). A fork whose
Claude does not start is not given to the client either: its copy goes too."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import acp
import anyio
import claude_agent_sdk
import pytest

from adapter.claude import session_store
from tests.support.harness import TIMEOUT
from tests.support.prompted_transcript import write_prompted_transcript
from tests.support.shell_harness import SCENARIO_FILE, agent_in_process

SESSION_ID = "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"


def _original(tmp_path: Path) -> tuple[Path, Path]:
    """A prompted session's transcript: (its folder, the transcript)."""
    return write_prompted_transcript(tmp_path, SESSION_ID)


class HeldCopy:
    """The SDK's `fork_session`, held before it copies until `release`; `started` and
    `copied` are set (on the event loop) when the copy begins and once it is written."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._real = claude_agent_sdk.fork_session
        self._go = threading.Event()
        self.started = asyncio.Event()
        self.copied = asyncio.Event()
        self.made: list[str] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._loop.call_soon_threadsafe(self.started.set)
        self._go.wait()
        try:
            result = self._real(*args, **kwargs)
            self.made.append(result.session_id)
            return result
        finally:
            self._loop.call_soon_threadsafe(self.copied.set)

    def release(self) -> None:
        self._go.set()


async def _cancelled_by_a_task_cancel(fork: Any, held: HeldCopy) -> None:
    """asyncio's cancellation, once (as `acp` cancels a request's task)."""
    forking = asyncio.ensure_future(fork)
    await held.started.wait()
    forking.cancel()
    await asyncio.sleep(0)  # the cancellation reaches the fork while its copy is held
    held.release()
    with pytest.raises(asyncio.CancelledError):
        await forking


async def _cancelled_by_a_scope(fork: Any, held: HeldCopy) -> None:
    """anyio's cancellation, which cancels again at every wait (as the agent's task group)."""
    finished = []

    async def forking() -> None:
        await fork
        finished.append(True)

    async with anyio.create_task_group() as tg:
        tg.start_soon(forking)
        await held.started.wait()
        tg.cancel_scope.cancel()
        held.release()
    assert finished == []


@pytest.mark.asyncio
@pytest.mark.parametrize("cancel", [_cancelled_by_a_task_cancel, _cancelled_by_a_scope])
async def test_a_fork_cancelled_mid_copy_leaves_no_copy_and_no_marker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cancel: Any
) -> None:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))  # where the SDK copies
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    folder, transcript = _original(tmp_path)
    monkeypatch.setattr(session_store, "SMALL_COPY_BYTES", 0)
    before = transcript.read_bytes()
    held = HeldCopy(asyncio.get_running_loop())
    monkeypatch.setattr(claude_agent_sdk, "fork_session", held)

    await cancel(session_store.fork(SESSION_ID, str(folder), env), held)
    await held.copied.wait()  # the copy's thread is done, whatever the fork waited for

    assert len(held.made) == 1  # the copy was made, then removed
    assert sorted(p.name for p in transcript.parent.iterdir()) == [transcript.name]
    assert transcript.read_bytes() == before
    markers = config / "claude-acp" / "sessions"
    assert not markers.exists() or list(markers.iterdir()) == []
    listed = await session_store.list_page(str(folder), None, env=env)
    assert [s.session_id for s in listed.sessions] == [SESSION_ID]


@pytest.mark.asyncio
async def test_a_fork_that_is_not_cancelled_keeps_its_copy_and_marker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same held copy, released without a cancellation: the fork is made and remembered.
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    folder, transcript = _original(tmp_path)
    monkeypatch.setattr(session_store, "SMALL_COPY_BYTES", 0)
    held = HeldCopy(asyncio.get_running_loop())
    monkeypatch.setattr(claude_agent_sdk, "fork_session", held)

    forking = asyncio.ensure_future(session_store.fork(SESSION_ID, str(folder), env))
    await held.started.wait()
    held.release()
    new_id, copy = await forking

    assert held.made == [new_id] and copy == transcript.with_name(f"{new_id}.jsonl")
    assert copy.is_file()
    assert (config / "claude-acp" / "sessions" / f"{new_id}.json").is_file()
    listed = await session_store.list_page(str(folder), None, env=env)
    assert sorted(s.session_id for s in listed.sessions) == sorted([SESSION_ID, new_id])


@pytest.mark.asyncio
@pytest.mark.parametrize("small", [True, False], ids=["short-copied-at-once", "long-on-a-thread"])
async def test_a_short_transcript_is_copied_at_once_a_long_one_on_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small: bool
) -> None:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    folder, transcript = _original(tmp_path)
    size = transcript.stat().st_size
    monkeypatch.setattr(session_store, "SMALL_COPY_BYTES", size if small else size - 1)
    real = claude_agent_sdk.fork_session
    threads: list[int] = []

    def noting(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return real(*args, **kwargs)

    monkeypatch.setattr(claude_agent_sdk, "fork_session", noting)
    new_id, copy = await session_store.fork(SESSION_ID, str(folder), env)

    assert (threads == [threading.get_ident()]) is small
    assert copy == transcript.with_name(f"{new_id}.jsonl") and copy.is_file()
    assert (config / "claude-acp" / "sessions" / f"{new_id}.json").is_file()


@pytest.mark.asyncio
async def test_a_fork_whose_claude_does_not_start_leaves_no_copy(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        cwd = str(adapter.workdir)
        session = await adapter.new_session()
        await adapter.prompt(session, "remember the number 7")
        # The next Claude started in this folder will not start.
        (adapter.workdir / SCENARIO_FILE).write_text("startup_proxy_invalid", encoding="utf-8")
        with pytest.raises(acp.RequestError):
            await asyncio.wait_for(
                adapter.conn.fork_session(cwd=cwd, session_id=session, mcp_servers=[]), TIMEOUT
            )
        (adapter.workdir / SCENARIO_FILE).unlink()
        listed = await asyncio.wait_for(adapter.conn.list_sessions(cwd=cwd), TIMEOUT)
    assert [s.session_id for s in listed.sessions] == [session]
    assert [p.stem for p in adapter.config_dir.rglob("*.jsonl")] == [session]
    markers = adapter.config_dir / "claude-acp" / "sessions"
    assert sorted(p.stem for p in markers.iterdir()) == [session]
