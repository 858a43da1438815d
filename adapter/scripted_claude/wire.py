"""The scripted Claude's two ends of the pipe: a locked frame writer and a thread-safe inbox.

Theory of operation: the fake runs two threads. The reader thread (see `runtime.py`) parses
stdin and files what it reads into the `Inbox`: user turns, answers to our `can_use_tool`
requests, interrupts, EOF. The main thread plays one turn at a time and blocks only inside
`Inbox` waits, which wake on an interrupt, so an interrupt ends a turn at once even while it
sleeps, hangs or waits for a permission answer. Both threads write through one `FrameWriter`,
whose lock keeps every frame on its own line.
"""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from adapter.scripted_claude.frames import Frame

__all__ = ["FrameWriter", "Inbox", "UserTurn"]


class FrameWriter:
    """Writes NDJSON frames to a file descriptor, one `os.write` per frame, unbuffered.

    Once the reader of the pipe is gone (or `close()` was called) further frames are dropped:
    nobody can see them, and the fake should still finish its script (e.g. exit with a code).
    """

    def __init__(self, fd: int = 1) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self._closed = False

    def write(self, frame: Frame) -> None:
        self.write_line(json.dumps(frame, ensure_ascii=False, separators=(",", ":")))

    def write_line(self, line: str) -> None:
        # A lone surrogate (`"\udcff"`) is written as the raw byte it escapes: how a script makes
        # Claude emit invalid UTF-8.
        data = (line + "\n").encode("utf-8", "surrogateescape")
        with self._lock:
            if self._closed:
                return
            try:
                while data:
                    written = os.write(self._fd, data)
                    data = data[written:]
            except OSError:
                # EPIPE or EBADF: the SDK went away. Keep playing, silently.
                self._closed = True

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                os.close(self._fd)


@dataclass(frozen=True, slots=True, kw_only=True)
class UserTurn:
    """One `user` line from the SDK."""

    uuid: str | None
    content: Any
    raw: Frame


class Inbox:
    """What the reader thread hands the player, guarded by one condition variable."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._turns: deque[UserTurn] = deque()
        self._responses: dict[str, Frame] = {}
        self._interrupts: list[str] = []
        self._playing = False
        self._eof = False
        # User messages whose `queued` was said as they came (a turn was playing).
        self._said_queued: set[str] = set()

    # -- reader side -------------------------------------------------------------------------

    def push_turn(self, turn: UserTurn, say_queued: Callable[[str], None]) -> None:
        """Queue `turn`. While a turn plays, the real CLI says at once that it queued a message
        that has a uuid (`say_queued`, under the lock, so the player reads it as said); between
        turns it says so as the message's turn begins (`queued_unsaid`)."""
        with self._cond:
            self._turns.append(turn)
            if self._playing and turn.uuid is not None:
                self._said_queued.add(turn.uuid)
                say_queued(turn.uuid)
            self._cond.notify_all()

    def push_response(self, request_id: str, response: Frame) -> None:
        with self._cond:
            self._responses[request_id] = response
            self._cond.notify_all()

    def push_interrupt(self, request_id: str) -> bool:
        """File an interrupt for the playing turn. False when no turn is playing: the caller
        answers the request itself. True: the player answers it once the turn has ended."""
        with self._cond:
            if not self._playing:
                return False
            self._interrupts.append(request_id)
            self._cond.notify_all()
            return True

    def close(self) -> None:
        """Stdin reached EOF."""
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    # -- player side -------------------------------------------------------------------------

    @property
    def eof(self) -> bool:
        with self._cond:
            return self._eof

    @property
    def interrupted(self) -> bool:
        with self._cond:
            return bool(self._interrupts)

    def next_turn(self) -> UserTurn | None:
        """Block until a turn is queued (and mark it playing), or return None at EOF."""
        with self._cond:
            self._cond.wait_for(lambda: bool(self._turns) or self._eof)
            if not self._turns:
                return None
            self._playing = True
            return self._turns.popleft()

    def queued_unsaid(self, uuid: str) -> bool:
        """The message `uuid` (taken up now) came between turns: its `queued` is still to say."""
        with self._cond:
            if uuid in self._said_queued:
                self._said_queued.discard(uuid)
                return False
            return True

    def withdraw(self, uuid: str) -> bool:
        """Drop the queued user turn `uuid` (Claude Code's `cancel_async_message`); False when
        it is not waiting (already taken up, or never came)."""
        with self._cond:
            for turn in self._turns:
                if turn.uuid == uuid:
                    self._turns.remove(turn)
                    self._said_queued.discard(uuid)
                    return True
            return False

    def has_queued(self) -> bool:
        """A user message waits to be taken up (read under the lock `wait` holds)."""
        with self._cond:
            return bool(self._turns)

    def take_queued(self) -> UserTurn | None:
        """The user message that waits first, taken up now if Claude Code takes it mid-turn: one
        with no `priority` (or `next`), which the real CLI attaches at the next tool boundary.
        A steer (`now`, `later`) is left for the player's end of the turn."""
        with self._cond:
            if self._turns and self._turns[0].raw.get("priority") in (None, "next"):
                return self._turns.popleft()
            return None

    def steer_waiting(self) -> bool:
        """A steer (a user message with a `priority`) came while the turn played: Claude Code
        runs it at once, in the same busy stretch (one idle after both)."""
        with self._cond:
            return bool(self._turns) and self._turns[0].raw.get("priority") in ("now", "later")

    def finish_turn(self) -> list[str]:
        """Mark the turn over; return the interrupt requests still owed an answer."""
        with self._cond:
            self._playing = False
            owed, self._interrupts = self._interrupts, []
            return owed

    def wait(self, timeout: float | None, until: Callable[[], bool]) -> bool:
        """Wait until interrupted, `until()` holds, or the timeout; True if interrupted.

        `until` runs under the (reentrant) lock, so it may read `eof`.
        """
        with self._cond:
            self._cond.wait_for(lambda: bool(self._interrupts) or until(), timeout)
            return bool(self._interrupts)

    def wait_response(self, request_id: str) -> Frame | None:
        """Wait for the SDK's answer to our control request; None if interrupted or at EOF."""
        with self._cond:
            self._cond.wait_for(
                lambda: request_id in self._responses or bool(self._interrupts) or self._eof
            )
            return self._responses.pop(request_id, None)
