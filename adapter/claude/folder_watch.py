"""Knowing when Claude Code writes in its project folders without looking every second: Linux's
inotify, reached through the C library (`ctypes`, no dependency), as the reference adapter
watches them with `fs.watch` (docs/decisions.md#session-index).

`FolderWatch.open()` gives a watch, or None where inotify is not to be had (another system, no
C library, the watch limit reached): the caller then looks on a timer as before. A folder that
does not exist yet is watched through its parent (the projects folder), so a new project's
first transcript is seen too. `changed()` waits until something changed in a watched folder
since the last call (a file written, created, removed or renamed), and reads every event
waiting, so a burst of writes is one change.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import anyio

__all__ = ["FolderWatch"]

log = logging.getLogger(__name__)

_IN_MODIFY = 0x2
_IN_ATTRIB = 0x4
_IN_CLOSE_WRITE = 0x8
_IN_MOVED_FROM = 0x40
_IN_MOVED_TO = 0x80
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_ONLYDIR = 0x01000000
_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_ONLYDIR
)
_READ = 64 * 1024


class FolderWatch:
    """One inotify instance and the folders it watches."""

    def __init__(self, libc: ctypes.CDLL, fd: int) -> None:
        self._libc = libc
        self._fd = fd
        self._watches: dict[Path, int] = {}

    @classmethod
    def open(cls) -> FolderWatch | None:
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            fd = int(libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC))
        except (OSError, AttributeError):
            return None
        if fd < 0:
            log.info("no inotify (errno %d): the session list looks on a timer", ctypes.get_errno())
            return None
        return cls(libc, fd)

    def watch(self, folders: Iterable[Path]) -> bool:
        """Watch exactly `folders` (each, or its parent while it does not exist); False when
        one could not be watched (the caller looks on a timer then)."""
        wanted: set[Path] = set()
        for folder in folders:
            wanted.add(folder if folder.is_dir() else folder.parent)
        complete = True
        for gone in set(self._watches) - wanted:
            self._libc.inotify_rm_watch(self._fd, self._watches.pop(gone))
        for folder in wanted - set(self._watches):
            descriptor = int(self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _MASK))
            if descriptor < 0:
                complete = False
                continue
            self._watches[folder] = descriptor
        return complete

    async def changed(self) -> None:
        """Wait until a watched folder changed, and take every event waiting."""
        while True:
            await anyio.wait_readable(self._fd)
            if self._drain():
                return

    def _drain(self) -> bool:
        read = False
        while True:
            try:
                chunk = os.read(self._fd, _READ)
            except BlockingIOError:
                return read
            except OSError:
                return True  # something is wrong with the watch: let the caller look
            if not chunk:
                return read
            read = True

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
            self._watches.clear()
