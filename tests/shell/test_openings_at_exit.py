"""The session openings a signal ends (`SessionOpener.opening`, `end_all`), in process: one under
way is cancelled and answered -32800, one asked for after is refused -32800 before it starts,
and any other cancellation stays a cancellation (docs/decisions.md#openings-at-exit). The signal
itself, with a real Claude held before its handshake, is end to end: tests/e2e/test_signals.py."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any, cast

import pytest
from acp import RequestError

from adapter.agent.acp_agent import ClaudeAcpAgent
from adapter.agent.session_opener import SessionOpener
from adapter.claude.claude_runtime import ClaudeRuntime
from adapter.scripted_claude.transcript import sanitize_path
from adapter.session import load_replay
from tests.support.harness import TIMEOUT
from tests.support.huge_transcripts import assistant_line, user_line
from tests.support.shell_harness import agent_in_process


def _opener() -> SessionOpener:
    # Opening itself is not exercised: only the requests' guard.
    return SessionOpener(task_group=cast(Any, None), settings=cast(Any, None), link=cast(Any, None))


def _agents_made(monkeypatch: pytest.MonkeyPatch) -> list[ClaudeAcpAgent]:
    """The agents made from now on (the in-process harness makes one)."""
    agents: list[ClaudeAcpAgent] = []
    init = ClaudeAcpAgent.__init__

    def keep(self: ClaudeAcpAgent, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        agents.append(self)

    monkeypatch.setattr(ClaudeAcpAgent, "__init__", keep)
    return agents


def _runtimes_closed(monkeypatch: pytest.MonkeyPatch) -> list[ClaudeRuntime]:
    """The Claude runtimes closed from now on (each still closed)."""
    closed: list[ClaudeRuntime] = []
    close = ClaudeRuntime.close

    async def noted_close(self: ClaudeRuntime) -> None:
        closed.append(self)
        await close(self)

    monkeypatch.setattr(ClaudeRuntime, "close", noted_close)
    return closed


@pytest.mark.asyncio
async def test_an_opening_under_way_is_answered_minus_32800_when_the_adapter_ends() -> None:
    opener = _opener()
    started = asyncio.Event()
    reached: list[str] = []

    async def opening() -> None:
        with opener.opening():
            started.set()
            await asyncio.Event().wait()  # Claude's start-up, never over
            reached.append("after the start-up")

    task = asyncio.ensure_future(opening())
    await started.wait()
    opener.end_all()
    with pytest.raises(RequestError) as refused:
        await task
    assert refused.value.code == -32800 and "shutting down" in str(refused.value)
    assert reached == [] and task.cancelling() == 0  # answered, not left cancelling

    with pytest.raises(RequestError) as later, opener.opening():
        reached.append("a later opening")
    assert later.value.code == -32800 and reached == []


@pytest.mark.asyncio
async def test_any_other_cancellation_of_an_opening_stays_a_cancellation() -> None:
    opener = _opener()
    started = asyncio.Event()

    async def opening() -> None:
        with opener.opening():
            started.set()
            await asyncio.Event().wait()

    task = asyncio.ensure_future(opening())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.asyncio
async def test_a_load_cancelled_while_it_replays_closes_its_session_and_claude(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The session a `session/load` with a transcript builds is registered only once its history
    # replayed: cancelled before (a signal's `end_all`), it and its Claude are closed by the
    # load itself, as nobody else would (docs/decisions.md#openings-at-exit).
    agents = _agents_made(monkeypatch)
    replaying = asyncio.Event()

    async def replay_forever(*_: Any) -> None:
        replaying.set()
        await asyncio.Event().wait()  # a long history, still going out

    closed = _runtimes_closed(monkeypatch)
    monkeypatch.setattr(load_replay, "replay_transcript", replay_forever)
    async with agent_in_process(tmp_path) as adapter:
        session_id = str(uuid.uuid4())
        folder = adapter.config_dir / "projects" / sanitize_path(str(adapter.workdir))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session_id}.jsonl").write_bytes(user_line("hello") + assistant_line("Hi."))
        loading = asyncio.ensure_future(
            adapter.conn.load_session(
                cwd=str(adapter.workdir), session_id=session_id, mcp_servers=[]
            )
        )
        await asyncio.wait_for(replaying.wait(), TIMEOUT)
        [agent] = agents
        agent._opener.end_all()
        with pytest.raises(RequestError) as refused:
            await asyncio.wait_for(loading, TIMEOUT)
        assert refused.value.code == -32800
        assert closed, "the load's Claude was never closed"
        assert session_id not in agent._sessions


@pytest.mark.asyncio
async def test_a_new_session_cancelled_while_its_claude_starts_closes_that_claude(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The session is not the runtime's owner until Claude's handshake is over (`on_ready`):
    # cancelled before (a signal's `end_all`), the opening closes the Claude it spawned, and
    # with it what that Claude was given to read (a private settings file, a provider's).
    agents = _agents_made(monkeypatch)
    connecting = asyncio.Event()

    async def never_connected(self: ClaudeRuntime) -> None:
        connecting.set()
        await asyncio.Event().wait()  # Claude's start-up, never over

    closed = _runtimes_closed(monkeypatch)
    monkeypatch.setattr(ClaudeRuntime, "_connect", never_connected)
    async with agent_in_process(tmp_path) as adapter:
        opening = asyncio.ensure_future(
            adapter.conn.new_session(cwd=str(adapter.workdir), mcp_servers=[])
        )
        await asyncio.wait_for(connecting.wait(), TIMEOUT)
        [agent] = agents
        agent._opener.end_all()
        with pytest.raises(RequestError) as refused:
            await asyncio.wait_for(opening, TIMEOUT)
        assert refused.value.code == -32800
        assert closed, "the new session's Claude was never closed"
        assert agent._sessions == {}


@pytest.mark.asyncio
async def test_a_runtime_cancelled_before_its_handshake_ends_closes_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A restart's Claude (ClaudeSide.start builds it, `run` starts it) cancelled before Claude's
    # handshake is over has no session owning it yet: `run` closes it on its way out.
    from adapter.claude.runtime_settings import RuntimeSettings

    connecting = asyncio.Event()

    async def never_connected(self: ClaudeRuntime) -> None:
        connecting.set()
        await asyncio.Event().wait()

    closed: list[ClaudeRuntime] = []

    async def noted_close(self: ClaudeRuntime) -> None:
        closed.append(self)

    async def nothing(*_: Any) -> None:
        raise AssertionError("not reached before the handshake")

    monkeypatch.setattr(ClaudeRuntime, "_connect", never_connected)
    monkeypatch.setattr(ClaudeRuntime, "close", noted_close)
    runtime = ClaudeRuntime(settings=RuntimeSettings(), cwd="/", session_id="s", resume=False)
    running = asyncio.ensure_future(
        runtime.run(on_ready=nothing, on_message=nothing, on_end=nothing, on_lost=nothing)
    )
    await asyncio.wait_for(connecting.wait(), TIMEOUT)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert closed == [runtime]
