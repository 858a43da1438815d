"""The agent's output as the tests of its wire layer see it: a stream writer that records each
write, a wire guard in front of it, and an `acp` connection whose typed senders must not be
used (the updates under test go out through the guard's bulk sender)."""

from __future__ import annotations

from typing import Any

from adapter.wire.guard import GuardedTransport
from adapter.wire.stdio import ChunkReader

__all__ = ["NoTypedSends", "RecordingWriter", "guarded"]


class RecordingWriter:
    """The stream writer's surface the transport uses, recording each write."""

    def __init__(self, *, closing: bool = False) -> None:
        self.writes: list[bytes] = []
        self.closing = closing

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    async def drain(self) -> None:
        return None

    def is_closing(self) -> bool:
        return self.closing


async def _no_eof() -> None:
    return None


def guarded(writer: RecordingWriter) -> GuardedTransport:
    """The wire guard writing to `writer`."""
    fake: Any = writer
    return GuardedTransport(ChunkReader(), fake, limit=1 << 20, on_eof=_no_eof)


class NoTypedSends:
    """An `acp` connection whose typed senders fail the test when used."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        raise AssertionError("not through acp's typed sender and its envelope model")

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("not asked here")
