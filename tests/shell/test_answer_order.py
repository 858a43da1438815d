"""A session's command list follows the setup response that opened it, by a signal from the wire
(`adapter.wire.response_watch`), not by counting turns of the event loop: many sessions opened at
once, handlers that go on awaiting after they registered the session, and a writer that yields
on every drain leave every `available_commands_update` after its session's answer. An error
answer, or the end of the connection, tells no command list and leaves no task waiting."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from acp import RequestError, run_agent
from acp.schema import InitializeResponse, NewSessionResponse
from anyio.abc import TaskGroup

from adapter.controls.commands import available_commands
from adapter.controls.pickers import SessionConfig
from adapter.controls.session_controls import SessionControls
from adapter.wire.client_link import ClientLink
from adapter.wire.guard import GuardedTransport
from adapter.wire.response_watch import ResponseTicket, ResponseWatch
from adapter.wire.stdio import ChunkReader

SESSIONS = 24


class _BusyWriter:
    """Stdout whose every drain lets the rest of the loop run, as a slow client's pipe does."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.frames.extend(json.loads(line) for line in data.splitlines() if line.strip())

    async def drain(self) -> None:
        for _ in range(3):
            await anyio.lowlevel.checkpoint()

    def close(self) -> None:
        return None


class _Agent:
    """The agent's setup path in little: the session's controls announce as `SessionOpener`
    does, then the handler goes on awaiting (other sessions' work) before it answers."""

    def __init__(self, tg: TaskGroup, link: ClientLink) -> None:
        self._tg = tg
        self._link = link
        self._count = 0

    def on_connect(self, conn: Any) -> None:
        self._link.attach(conn)

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self._count += 1
        session_id = f"s{self._count}"
        controls = SessionControls(
            session_id=session_id, link=self._link, config=SessionConfig.initial({}, None)
        )
        controls.commands = available_commands(["mcp", "review"])
        controls.announce_later(self._tg)
        for _ in range(10):  # longer than any count of loop turns the old code hoped for
            await anyio.lowlevel.checkpoint()
        if cwd == "/refused":
            raise RequestError.invalid_params({"cwd": "refused"})
        return NewSessionResponse(session_id=session_id)


def _line(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    frame = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return json.dumps(frame).encode() + b"\n"


async def _serve(requests: bytes, until: Any) -> list[dict[str, Any]]:
    """Feed `requests` to a guarded acp connection and collect what it writes until `until`
    (the frames so far) holds."""
    writer = _BusyWriter()
    reader = ChunkReader()
    link = ClientLink()

    async def no_eof() -> None:
        return None

    fake: Any = writer
    transport = GuardedTransport(reader, fake, limit=1 << 20, on_eof=no_eof)
    link.attach_responses(transport.responses)
    async with anyio.create_task_group() as tg:
        agent: Any = _Agent(tg, link)  # acp's Agent protocol lists every method; these do
        tg.start_soon(run_agent, agent, transport)
        reader.feed(_line(0, "initialize", {"protocolVersion": 1}) + requests)
        with anyio.fail_after(30):
            while not until(writer.frames):
                await anyio.sleep(0.01)
        tg.cancel_scope.cancel()
    return writer.frames


def _opened(frames: list[dict[str, Any]]) -> dict[str, int]:
    """Each session's setup answer, by session id: its index among the frames."""
    return {
        f["result"]["sessionId"]: i
        for i, f in enumerate(frames)
        if isinstance(f.get("result"), dict) and "sessionId" in f["result"]
    }


def _announced(frames: list[dict[str, Any]]) -> dict[str, int]:
    return {
        f["params"]["sessionId"]: i
        for i, f in enumerate(frames)
        if f.get("method") == "session/update"
        and f["params"]["update"]["sessionUpdate"] == "available_commands_update"
    }


@pytest.mark.asyncio
async def test_every_command_list_follows_its_sessions_answer_under_load() -> None:
    requests = b"".join(
        _line(i, "session/new", {"cwd": "/", "mcpServers": []}) for i in range(1, SESSIONS + 1)
    )
    frames = await _serve(requests, lambda frames: len(_announced(frames)) == SESSIONS)
    opened, announced = _opened(frames), _announced(frames)
    assert sorted(opened) == sorted(announced) and len(opened) == SESSIONS
    late = {s: (opened[s], announced[s]) for s in opened if announced[s] < opened[s]}
    assert late == {}, f"command lists written before their session's answer: {late}"


@pytest.mark.asyncio
async def test_an_error_answer_tells_no_command_list() -> None:
    requests = _line(1, "session/new", {"cwd": "/refused", "mcpServers": []}) + _line(
        2, "session/new", {"cwd": "/", "mcpServers": []}
    )
    frames = await _serve(requests, lambda frames: len(_announced(frames)) == 1)
    refused = [f for f in frames if f.get("id") == 1]
    assert len(refused) == 1 and "error" in refused[0]
    # The second session's list came after its answer; the refused one got none, and by then
    # its task had long seen its error answer.
    assert list(_announced(frames)) == ["s2"]


@pytest.mark.asyncio
async def test_a_ticket_fails_when_the_connection_ends_and_when_its_wait_runs_out() -> None:
    watch = ResponseWatch()
    watch.received({"jsonrpc": "2.0", "id": 7, "method": "session/new"})
    ended, expired = watch.ticket(), watch.ticket()
    assert await expired.written(timeout=0.01) is False  # nothing answered request 7
    watch.ended()
    assert await ended.written() is False
    watch.written(7, ok=True)  # too late for both: they were forgotten, not left waiting
    assert await ended.written() is False


@pytest.mark.asyncio
async def test_ids_python_thinks_equal_are_different_requests() -> None:
    watch = ResponseWatch()
    watch.received({"jsonrpc": "2.0", "id": 1, "method": "session/new"})
    one = watch.ticket()
    watch.received({"jsonrpc": "2.0", "id": 1.0, "method": "session/new"})
    other = watch.ticket()
    watch.written(1.0, ok=True)
    assert await other.written() is True
    assert await one.written(timeout=0.01) is False


@pytest.mark.asyncio
async def test_outside_a_request_nothing_is_waited_for() -> None:
    watch = ResponseWatch()
    watch.received({"jsonrpc": "2.0", "method": "session/cancel", "params": {}})
    assert await watch.ticket().written(timeout=0.01) is True
    assert await ResponseTicket(None, None).written(timeout=0.01) is True


@pytest.mark.asyncio
async def test_a_ticket_taken_after_its_response_went_out_waits_for_nothing() -> None:
    # A task its handler started (a steer's prompt of its own) still carries the request's id
    # once the steer is answered: its prompt's ticket must not wait for that answer again.
    watch = ResponseWatch()
    watch.received({"jsonrpc": "2.0", "id": 5, "method": "_session/steering"})
    watch.written(5, ok=True)
    late = watch.ticket()
    assert await late.written(timeout=5.0) is True
    # The same id used again by a new request is that request's, and waits for its answer.
    watch.received({"jsonrpc": "2.0", "id": 5, "method": "session/prompt"})
    again = watch.ticket()
    assert await again.written(timeout=0.01) is False
