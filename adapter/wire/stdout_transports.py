"""The agent's stdout writer: flow control, blocking writes, and the gathering of small writes.

The `acp` sender writes every JSON-RPC frame with its own `write` system call. A replayed session
of 100,000 transcript lines is about 125,000 frames, and profiling showed a third of the
adapter's time in those calls. `GatheringTransport` holds what is written for up to two
milliseconds, or until `GATHER_BYTES` are held, and hands it to the real transport in one write;
frames stay whole and in order, and flow control stays the real transport's. The byte bound
matters: a replay may write for seconds without yielding to the event loop, and without it
everything it wrote waited in memory for the timer (a 100,000-line replay to a client that had
not opted in to records grew the agent by 580 MB).

`open_stdio` (in `stdio.py`) picks the inner transport: the pipe transport for a pipe or socket,
`BlockingTransport` for anything else.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import IO, Any

__all__ = [
    "GATHER_BYTES",
    "GATHER_SECONDS",
    "BlockingTransport",
    "GatheringTransport",
    "WriteProtocol",
]

# Long enough to gather a burst, far below anything a person or an editor could notice. A
# streamed answer's deltas come a few hundred microseconds apart: half a millisecond gathered
# about three a write, and the writes were still a seventh of the agent's CPU per delta
# (docs/performance.md); two milliseconds gather about a dozen.
GATHER_SECONDS = 0.002
# A pipe's capacity: more is handed on at once, so flow control sees it.
GATHER_BYTES = 64 * 1024


class WriteProtocol(asyncio.BaseProtocol):
    """Flow control for the stdout writer (the shape `asyncio.StreamWriter.drain` expects)."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._paused = False
        self._waiters: list[asyncio.Future[None]] = []
        self.closed = asyncio.Event()

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._wake()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()
        self._wake()

    def _wake(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    async def _drain_helper(self) -> None:
        if self.closed.is_set():
            raise ConnectionResetError("the client closed its end of stdout")
        if self._paused:
            waiter = self._loop.create_future()
            self._waiters.append(waiter)
            await waiter


class BlockingTransport(asyncio.WriteTransport):
    """Writes straight to a file descriptor that is not a pipe (a regular file, /dev/null)."""

    def __init__(self, stream: IO[bytes], protocol: WriteProtocol) -> None:
        super().__init__()
        self._stream = stream
        self._protocol = protocol
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing:
            return
        try:
            self._stream.write(data)
            self._stream.flush()
        except OSError:
            self._closing = True
            self._protocol.connection_lost(None)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        if not self._closing:
            self._closing = True
            with contextlib.suppress(OSError):
                self._stream.flush()
            self._protocol.connection_lost(None)

    def abort(self) -> None:
        self.close()

    def can_write_eof(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0


class GatheringTransport(asyncio.WriteTransport):
    def __init__(self, inner: asyncio.WriteTransport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._inner = inner
        self._loop = loop
        self._pending: list[bytes] = []
        self._size = 0
        self._timer: asyncio.TimerHandle | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._pending.append(bytes(data))
        self._size += len(data)
        if self._size >= GATHER_BYTES:
            self.flush()
        elif self._timer is None:
            self._timer = self._loop.call_later(GATHER_SECONDS, self.flush)

    def flush(self) -> None:
        """Hand what is held to the real transport now."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pending and not self._inner.is_closing():
            self._inner.write(b"".join(self._pending))
        self._pending.clear()
        self._size = 0

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def close(self) -> None:
        self.flush()
        self._inner.close()

    def abort(self) -> None:
        self._pending.clear()
        self._size = 0
        self._inner.abort()

    def is_closing(self) -> bool:
        return self._inner.is_closing()

    def can_write_eof(self) -> bool:
        return self._inner.can_write_eof()

    def write_eof(self) -> None:
        self.flush()
        self._inner.write_eof()

    def get_write_buffer_size(self) -> int:
        return self._inner.get_write_buffer_size() + self._size

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._inner.set_write_buffer_limits(high, low)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._inner.get_extra_info(name, default)
