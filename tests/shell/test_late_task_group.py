"""`initialize` is answered before the agent's task group exists (adapter/app/serving.py,
`LateTaskGroup`): the wire guard asks for it (`before_more`) before it passes on anything but an
`initialize`, or reads on after one; nothing else reaches the agent earlier, and the answer to
`initialize` is written before the task group is asked for."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from adapter.app.serving import LateTaskGroup
from adapter.wire.guard import GuardedTransport
from adapter.wire.stdio import ChunkReader


class _Writer:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    async def drain(self) -> None:
        return None


async def _no_eof() -> None:
    return None


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


def _guard(lines: list[bytes], asked: list[str], writer: _Writer) -> GuardedTransport:
    reader = ChunkReader()
    for line in lines:
        reader.feed(line)  # b"": the end of input
    fake: Any = writer

    async def before_more() -> None:
        asked.append(f"asked after {len(writer.writes)} write(s)")

    return GuardedTransport(reader, fake, limit=1 << 20, on_eof=_no_eof, before_more=before_more)


INITIALIZE = {"id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
NEW = {"id": 2, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}}


@pytest.mark.asyncio
async def test_initialize_passes_at_once_and_what_follows_waits_for_the_task_group() -> None:
    asked: list[str] = []
    writer = _Writer()
    guard = _guard([_line(INITIALIZE), _line(NEW)], asked, writer)
    first = await guard.receive()
    assert first is not None and first["method"] == "initialize"
    assert asked == []  # initialize reaches the agent without the task group
    await guard.send({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}})
    second = await guard.receive()
    assert second is not None and second["method"] == "session/new"
    # Asked once, after the answer to initialize was written, before session/new passed on.
    assert asked == ["asked after 1 write(s)"]


@pytest.mark.asyncio
async def test_anything_but_initialize_first_waits_for_the_task_group() -> None:
    # A response is the one thing the guard passes on before `initialize` (requests and
    # notifications are refused until then).
    asked: list[str] = []
    guard = _guard([_line({"id": 7, "result": {}}), b""], asked, _Writer())
    message = await guard.receive()
    assert message is not None and message["id"] == 7
    assert asked == ["asked after 0 write(s)"]


@pytest.mark.asyncio
async def test_the_stand_in_forwards_to_the_task_group_once_entered() -> None:
    late = LateTaskGroup()
    with pytest.raises(RuntimeError, match="before it was entered"):
        late.start_soon(anyio.sleep, 0)
    ran: list[str] = []

    async def note(word: str) -> None:
        ran.append(word)

    async with anyio.create_task_group() as tg:
        late.enter(tg)
        await late.wanted()  # entered: returns at once
        late.start_soon(note, "soon")
        assert late.cancel_scope is tg.cancel_scope
    assert ran == ["soon"]
