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

Stdout's writer, its flow control and the gathering of small writes are in
`stdout_transports.py`.
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

from adapter.wire.stdout_transports import (
    GATHER_BYTES,
    GATHER_SECONDS,
    BlockingTransport,
    GatheringTransport,
    WriteProtocol,
)

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

__all__ = ["CHUNK_BYTES", "GATHER_BYTES", "GATHER_SECONDS", "ChunkReader", "open_stdio"]

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

    def buffered(self) -> bool:
        """Whether input is waiting to be read."""
        return bool(self._chunks)

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
    protocol = WriteProtocol()
    inner: asyncio.WriteTransport
    if _pollable(sys.stdout):
        _widen_pipe(sys.stdout.fileno())
        inner, _ = await loop.connect_write_pipe(lambda: protocol, sys.stdout)
    else:
        inner = BlockingTransport(sys.stdout.buffer, protocol)
    writer = asyncio.StreamWriter(GatheringTransport(inner, loop), protocol, None, loop)
    return reader, writer, protocol.closed
