"""`claude-acp --trace FILE`: the JSON-RPC wire log of one connection, for a bug report.

Theory of operation: the agent's stdin reader and stdout writer are wrapped (`traced`) so that
every byte the agent reads from the client or writes to it also passes through a
`WireTrace`, which cuts it into lines and writes one JSON object per line:

    {"time": "2026-11-30T23:59:59.123Z", "direction": "client_to_agent", "message": {...}}

`direction` names the peers ("client_to_agent" / "agent_to_client"), so `claude-acp conformance
FILE` reads the trace as it is, with no `--agent-side`. `message` is the frame as parsed JSON; a
line that is not JSON is kept as the string it was (the checker reports it as unparseable, which
is what it was on the wire). Tracing wraps the byte streams under the input guard
(`guard.py`) rather than the parsed messages, so a malformed or oversized line the guard
answers itself still shows in the log.

Each line is flushed as it is written, so a trace survives the adapter being killed. The trace
holds everything the editor and the agent said, prompts and file contents included: read it
before attaching it anywhere. For the same reason the file is opened by
`private_files.open_private` (created 0600, never through a link, never another user's file).
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import IO, Any

from adapter.wire.stdio import ChunkReader

__all__ = ["AGENT_TO_CLIENT", "CLIENT_TO_AGENT", "WireTrace", "traced"]

CLIENT_TO_AGENT = "client_to_agent"
AGENT_TO_CLIENT = "agent_to_client"


class WireTrace:
    """Writes complete lines of both directions to `out` as JSON log entries."""

    def __init__(self, out: IO[str], *, limit: int = 50 * 1024 * 1024) -> None:
        self._out = out
        # A line longer than this is not kept whole (the input guard refuses it anyway): the
        # trace must not undo the guard's bound on memory.
        self._limit = limit
        self._partial: dict[str, bytes] = {CLIENT_TO_AGENT: b"", AGENT_TO_CLIENT: b""}
        self._skipping: dict[str, bool] = {CLIENT_TO_AGENT: False, AGENT_TO_CLIENT: False}

    def record(self, direction: str, data: bytes) -> None:
        """Take `data` seen in `direction`; every line it completes is written out."""
        *lines, rest = (self._partial[direction] + data).split(b"\n")
        for line in lines:
            if self._skipping[direction]:
                self._skipping[direction] = False
                self._write(direction, f"(a line over {self._limit} bytes, not traced)".encode())
            else:
                self._write(direction, line)
        if len(rest) > self._limit:
            self._skipping[direction], rest = True, b""
        self._partial[direction] = rest

    def close(self) -> None:
        """Write what is left of an unterminated last line, then close the file."""
        for direction, rest in self._partial.items():
            if rest.strip():
                self._write(direction, rest)
            self._partial[direction] = b""
        self._out.close()

    def _write(self, direction: str, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace").strip()
        if not text:
            return
        try:
            message: Any = json.loads(text)
        except ValueError:
            message = text
        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        entry = {"time": now, "direction": direction, "message": message}
        self._out.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._out.flush()


class _TracedReader(ChunkReader):
    """The client's stream as the guard reads it, each chunk also given to the trace.

    A `ChunkReader` only by type: its own buffer is never used, every read goes to `inner`.
    """

    def __init__(self, inner: ChunkReader, trace: WireTrace) -> None:
        super().__init__()
        self._inner = inner
        self._trace = trace

    async def read(self) -> bytes:
        chunk = await self._inner.read()
        self._trace.record(CLIENT_TO_AGENT, chunk)
        return chunk

    def stop(self) -> None:
        self._inner.stop()


class _TracedWriter(asyncio.StreamWriter):
    """The agent's output stream: every write also goes to the trace, then to the pipe."""

    def __init__(self, inner: asyncio.StreamWriter, trace: WireTrace) -> None:
        super().__init__(
            inner.transport,
            inner._protocol,  # type: ignore[attr-defined]  # the SDK's flow-control protocol
            None,
            asyncio.get_running_loop(),
        )
        # The SDK's writer closes the pipe when it is garbage collected: keep it alive.
        self._inner = inner
        self._trace = trace

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._trace.record(AGENT_TO_CLIENT, bytes(data))
        super().write(data)

    def writelines(self, data: Any) -> None:
        for chunk in data:
            self.write(chunk)


def traced(
    reader: ChunkReader, writer: asyncio.StreamWriter, trace: WireTrace
) -> tuple[ChunkReader, asyncio.StreamWriter]:
    """The same streams, with everything read and written also recorded in `trace`."""
    return _TracedReader(reader, trace), _TracedWriter(writer, trace)
