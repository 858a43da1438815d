"""Work that used to run in tasks nobody owned now runs under its owner: the guard's shutdown at
the end of input inside its last `receive` call (after our questions' failures are passed on),
and the demo's prompt in `_prompt`'s own task group (cancelled before the demo gives up, its
failure raised by `_prompt` itself, not lost in a task nobody awaits)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import anyio
import pytest
from acp import RequestError

from adapter.demo import runner
from adapter.wire.guard import GuardedTransport
from adapter.wire.stdio import ChunkReader


class _Writer:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.frames.extend(json.loads(line) for line in data.splitlines() if line.strip())

    async def drain(self) -> None:
        return None


async def _ended_guard(on_eof: Any) -> GuardedTransport:
    """A guard past `initialize`, holding one question to the client, at the end of input."""
    reader = ChunkReader()
    fake: Any = _Writer()
    guard = GuardedTransport(reader, fake, limit=1 << 20, on_eof=on_eof)
    reader.feed(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n')
    assert (await guard.receive() or {}).get("method") == "initialize"
    await guard.send({"jsonrpc": "2.0", "id": 1, "result": {}})
    await guard.send({"jsonrpc": "2.0", "id": 0, "method": "session/request_permission"})
    reader.feed(b"")
    return guard


@pytest.mark.asyncio
async def test_the_shutdown_runs_in_the_receive_call_after_the_questions_fail() -> None:
    seen: list[str] = []
    receiving = asyncio.current_task()

    async def on_eof() -> None:
        # No task of its own: the receive loop's task (here the test's) runs the shutdown.
        seen.append("shutdown in receive" if asyncio.current_task() is receiving else "elsewhere")

    guard = await _ended_guard(on_eof)
    failed = await guard.receive()
    assert failed is not None and failed["id"] == 0 and "error" in failed
    assert seen == []  # the question's failure is passed on before the agent shuts down
    assert await guard.receive() is None
    assert seen == ["shutdown in receive"]
    assert await guard.receive() is None and seen == ["shutdown in receive"]  # once only


@pytest.mark.asyncio
async def test_a_failing_shutdown_is_logged_and_the_connection_still_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def on_eof() -> None:
        raise RuntimeError("boom")

    guard = await _ended_guard(on_eof)
    await guard.receive()
    with caplog.at_level(logging.WARNING, logger="adapter.wire.guard"):
        assert await guard.receive() is None
    assert "shutting down after the end of input failed" in caplog.text


class _Conn:
    """The demo's view of the agent: `prompt` does what `answer` says, `cancel` is counted."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.cancels = 0
        self.prompt_cancelled = False

    async def prompt(self, **kwargs: Any) -> None:
        if self.answer == "error":
            raise RequestError.internal_error({"reason": "shown on the wire already"})
        if self.answer == "gone":
            raise ConnectionError("the agent closed the connection")
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            self.prompt_cancelled = True
            raise

    async def cancel(self, **kwargs: Any) -> None:
        self.cancels += 1


async def _run_prompt(conn: _Conn, out: Any) -> None:
    await runner._prompt(conn, "s", "hello", cancel_after=0.05, out=out)


@pytest.mark.asyncio
async def test_a_prompt_never_answered_is_cancelled_before_the_demo_gives_up(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runner, "ANSWER_AFTER_CANCEL_SECONDS", 0.05)
    conn = _Conn("never")
    with pytest.raises(runner.AgentGaveUp):
        await _run_prompt(conn, None)
    assert conn.cancels == 1 and conn.prompt_cancelled
    assert "the client cancels the turn" in capsys.readouterr().out


@pytest.mark.asyncio
async def test_an_ended_connection_is_raised_by_the_prompt_call_itself() -> None:
    conn = _Conn("gone")
    with pytest.raises(ConnectionError):  # as itself, not inside an exception group
        await _run_prompt(conn, None)
    assert conn.cancels == 0


@pytest.mark.asyncio
async def test_an_error_answer_lets_the_next_prompt_run() -> None:
    conn = _Conn("error")
    await _run_prompt(conn, None)
    assert conn.cancels == 0
