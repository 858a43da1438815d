"""Stdio for the agent: the `acp` SDK's own streams, with stdout writes gathered.

The `acp` sender writes every JSON-RPC frame with its own `write` system call. A replayed
session of 100,000 transcript lines is about 125,000 frames, and profiling showed a third of the
adapter's time in those calls. `_GatheringTransport` holds what is written for a fraction of a
millisecond and hands it to the real pipe transport in one write; frames stay whole and in
order, and flow control stays the pipe transport's (it still pauses the writer when the client
reads slowly).
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["GATHER_SECONDS", "gathered_stdio_streams"]

# Long enough to gather a burst, far below anything a person or an editor could notice.
GATHER_SECONDS = 0.0005


class _GatheringTransport(asyncio.WriteTransport):
    def __init__(
        self, inner: asyncio.WriteTransport, loop: asyncio.AbstractEventLoop, owner: object
    ) -> None:
        super().__init__()
        self._inner = inner
        # The SDK's own writer closes the pipe when it is garbage collected: keep it alive.
        self._owner = owner
        self._loop = loop
        self._pending: list[bytes] = []
        self._timer: asyncio.TimerHandle | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._pending.append(bytes(data))
        if self._timer is None:
            self._timer = self._loop.call_later(GATHER_SECONDS, self._flush)

    def _flush(self) -> None:
        self._timer = None
        if self._pending and not self._inner.is_closing():
            self._inner.write(b"".join(self._pending))
        self._pending.clear()

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._flush()
        self._inner.close()

    def abort(self) -> None:
        self._pending.clear()
        self._inner.abort()

    def is_closing(self) -> bool:
        return self._inner.is_closing()

    def can_write_eof(self) -> bool:
        return self._inner.can_write_eof()

    def write_eof(self) -> None:
        self._flush()
        self._inner.write_eof()

    def get_write_buffer_size(self) -> int:
        return self._inner.get_write_buffer_size() + sum(len(p) for p in self._pending)

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._inner.set_write_buffer_limits(high, low)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._inner.get_extra_info(name, default)


async def gathered_stdio_streams(
    limit: int | None = None,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """`acp.stdio.stdio_streams`, with the writer's transport gathering its writes."""
    from acp.stdio import stdio_streams

    reader, writer = await stdio_streams(limit=limit)
    loop = asyncio.get_running_loop()
    transport = writer.transport
    assert isinstance(transport, asyncio.WriteTransport)
    gathered = asyncio.StreamWriter(
        _GatheringTransport(transport, loop, owner=writer),
        writer._protocol,  # type: ignore[attr-defined]  # the SDK's flow-control protocol
        None,
        loop,
    )
    return reader, gathered
