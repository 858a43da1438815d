"""Stdio for the agent, whatever stdin and stdout are: pipes, sockets, a terminal, a regular
file or /dev/null.

asyncio's pipe transports take only pipes, sockets and character devices, and /dev/null is a
character device that epoll refuses (the agent used to log an error and hang on it). So:

- stdin that can be polled (a pipe, a socket) is read by a pipe transport; anything else (a
  terminal, a regular file, /dev/null) by one thread doing blocking reads. Either way it arrives as
  chunks through a small bounded buffer (`ChunkReader`): reading pauses while the agent is busy,
  so a huge input never piles up in memory.
- stdout that is a pipe or socket gets the pipe transport (with its flow control); anything else
  gets blocking writes, which never wait long on a file.

The `acp` sender writes every JSON-RPC frame with its own `write` system call. A replayed session
of 100,000 transcript lines is about 125,000 frames, and profiling showed a third of the
adapter's time in those calls. `_GatheringTransport` holds what is written for a fraction of a
millisecond, or until `GATHER_BYTES` are held, and hands it to the real transport in one write;
frames stay whole and in order, and flow control stays the real transport's. The byte bound
matters: a replay may write for seconds without yielding to the event loop, and without it
everything it wrote waited in memory for the timer (a 100,000-line replay to a client that had
not opted in to records grew the agent by 580 MB).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import stat
import sys
import threading
from types import ModuleType
from typing import IO, Any

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

__all__ = ["CHUNK_BYTES", "GATHER_BYTES", "GATHER_SECONDS", "ChunkReader", "open_stdio"]

# Long enough to gather a burst, far below anything a person or an editor could notice.
GATHER_SECONDS = 0.0005
# A pipe's capacity: more is handed on at once, so flow control sees it.
GATHER_BYTES = 64 * 1024
# The stdout pipe buffer asked for (Linux's default per-user limit allows up to 1 MiB).
_PIPE_BYTES = 1024 * 1024
# How much stdin is read at a time, and how much may wait unread before reading pauses.
CHUNK_BYTES = 64 * 1024
_BUFFERED_CHUNKS = 4


def _pollable(stream: IO[Any]) -> bool:
    """Whether asyncio's pipe transports (epoll) should take this stream: pipes and sockets.
    A terminal is left to blocking I/O: a pipe transport would make it non-blocking, and with
    it the terminal's other end (stdin and stdout usually share one open file)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class ChunkReader:
    """Stdin as chunks of bytes; `read` returns b"" once at end of input (and after)."""

    def __init__(self) -> None:
        self._chunks: collections.deque[bytes] = collections.deque()
        self._eof = False
        self._ready = asyncio.Event()
        self._room = threading.Event()  # the reading thread waits on it (files only)
        self._room.set()
        self._transport: asyncio.ReadTransport | None = None
        self._loop = asyncio.get_running_loop()

    async def read(self) -> bytes:
        while not self._chunks:
            if self._eof:
                return b""
            self._ready.clear()
            await self._ready.wait()
        chunk = self._chunks.popleft()
        if len(self._chunks) < _BUFFERED_CHUNKS:
            self._room.set()
            if self._transport is not None and not self._transport.is_closing():
                self._transport.resume_reading()
        return chunk

    def stop(self) -> None:
        """Read no more: what is buffered is dropped and `read` reports the end of input."""
        self._chunks.clear()
        self.feed(b"")
        if self._transport is not None:
            self._transport.close()

    def feed(self, chunk: bytes) -> None:
        """Called on the loop: one more chunk (b"" for end of input)."""
        if not chunk:
            self._eof = True
        elif not self._eof:
            self._chunks.append(chunk)
            if len(self._chunks) >= _BUFFERED_CHUNKS:
                self._room.clear()
                if self._transport is not None:
                    self._transport.pause_reading()
        self._ready.set()

    # --- a pipe, socket or terminal -------------------------------------------------------

    async def connect_pipe(self, stream: IO[Any]) -> None:
        reader = self

        class _Protocol(asyncio.Protocol):
            def data_received(self, data: bytes) -> None:
                reader.feed(data)

            def eof_received(self) -> bool | None:
                reader.feed(b"")
                return None

            def connection_lost(self, exc: Exception | None) -> None:
                reader.feed(b"")

        transport, _ = await self._loop.connect_read_pipe(_Protocol, stream)
        self._transport = transport

    # --- a regular file, /dev/null, anything epoll refuses --------------------------------

    def start_thread(self, fd: int) -> None:
        def pump() -> None:
            chunk = b"x"
            while chunk:
                self._room.wait()
                try:
                    chunk = os.read(fd, CHUNK_BYTES)
                except OSError:
                    chunk = b""
                try:
                    self._loop.call_soon_threadsafe(self.feed, chunk)
                except RuntimeError:  # the loop is closed: the agent is exiting
                    return

        # A daemon: a read that never returns must not keep the agent alive at exit.
        threading.Thread(target=pump, name="claude-acp-stdin", daemon=True).start()


class _WriteProtocol(asyncio.BaseProtocol):
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


class _BlockingTransport(asyncio.WriteTransport):
    """Writes straight to a file descriptor that is not a pipe (a regular file, /dev/null)."""

    def __init__(self, stream: IO[bytes], protocol: _WriteProtocol) -> None:
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


class _GatheringTransport(asyncio.WriteTransport):
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
            self._flush()
        elif self._timer is None:
            self._timer = self._loop.call_later(GATHER_SECONDS, self._flush)

    def _flush(self) -> None:
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
        self._flush()
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
        self._flush()
        self._inner.write_eof()

    def get_write_buffer_size(self) -> int:
        return self._inner.get_write_buffer_size() + self._size

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._inner.set_write_buffer_limits(high, low)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._inner.get_extra_info(name, default)


def _widen_pipe(fd: int) -> None:
    """Ask Linux for a 1 MiB pipe buffer on stdout (64 KiB by default): a replay's bulk then
    goes out in a few writes instead of one per 64 KiB the client has read. Elsewhere, or
    above the system's limit, the pipe stays as it is."""
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
    if fcntl is None or set_size is None:
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, set_size, _PIPE_BYTES)


async def open_stdio() -> tuple[ChunkReader, asyncio.StreamWriter, asyncio.Event]:
    """The agent's stdin as chunks, its stdout as a gathering writer, and an event set when
    the client closes its end of stdout."""
    loop = asyncio.get_running_loop()
    reader = ChunkReader()
    if _pollable(sys.stdin):
        await reader.connect_pipe(sys.stdin)
    else:
        reader.start_thread(sys.stdin.fileno())
    protocol = _WriteProtocol()
    inner: asyncio.WriteTransport
    if _pollable(sys.stdout):
        _widen_pipe(sys.stdout.fileno())
        inner, _ = await loop.connect_write_pipe(lambda: protocol, sys.stdout)
    else:
        inner = _BlockingTransport(sys.stdout.buffer, protocol)
    writer = asyncio.StreamWriter(_GatheringTransport(inner, loop), protocol, None, loop)
    return reader, writer, protocol.closed
