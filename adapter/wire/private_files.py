"""Files the agent writes that hold the user's words: the trace, the log file, session markers.

Theory of operation: each such file is opened the way a careful tool on a shared machine opens
one (a world-writable `/tmp` with other users in it is the case that matters):

- never through a symbolic link (`O_NOFOLLOW`): a link planted at the path would otherwise make
  the agent write the user's prompts into whatever file it points at, or create its target;
- never a file another user owns (checked on the opened descriptor, `fstat`, so nothing can be
  swapped in between the check and the write), nor one with a second hard link (the same file
  under another name somebody else chose);
- only a regular file (opened `O_NONBLOCK` so a FIFO at the path cannot hang the open);
- readable and writable by the user alone: created `0600`, tightened with `fchmod` when it
  already existed, and only then truncated (`O_TRUNC` would empty a file before the checks).

A refusal is `UnsafeFile`, with one plain sentence of why; the caller says it on stderr and goes
on without the file. Any other failure to open stays the `OSError` it was.

Reading is guarded too (`open_regular`): a transcript or a marker is read only when it is a
regular file, checked on the descriptor opened `O_NONBLOCK`, so a FIFO, a device or a socket
planted where one should be is skipped instead of hanging `session/list` or `session/load`.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path
from typing import IO, BinaryIO

__all__ = ["NotRegular", "UnsafeFile", "open_private", "open_regular", "private_folder"]

PRIVATE_MODE = 0o600


class UnsafeFile(Exception):
    """A path the agent will not write to, with the reason (`str(exc)`, one sentence)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def open_private(path: Path, *, append: bool) -> IO[str]:
    """`path` opened for text writing, private to this user (appending or rewritten).

    Raises `UnsafeFile` when the path is a link, not a regular file, or someone else's.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    if append:
        flags |= os.O_APPEND
    try:
        fd = os.open(path, flags, PRIVATE_MODE)
    except OSError as exc:
        raise _refusal(path, exc) or exc from None
    try:
        _check(path, os.fstat(fd))
        os.fchmod(fd, PRIVATE_MODE)
        if not append:
            os.ftruncate(fd, 0)
        # Writes block as usual from here on: the file is known to be a regular one.
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "a" if append else "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


class NotRegular(OSError):
    """A path that is a FIFO, a device, a socket or a folder: never read."""


def open_regular(path: Path | str) -> BinaryIO:
    """`path` opened for binary reading, only when it is a regular file (links followed, as
    for any file the user keeps); `NotRegular` otherwise, without ever blocking on it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", str(path))
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def private_folder(path: Path) -> None:
    """Make `path` (and its missing parents) as folders only this user can enter; an existing
    one is left as it is unless it is a link or someone else's (then `UnsafeFile`)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    found = os.lstat(path)
    if stat.S_ISLNK(found.st_mode):
        raise UnsafeFile(path, "it is a symbolic link")
    if found.st_uid != os.geteuid():
        raise UnsafeFile(path, "it belongs to another user")


def _check(path: Path, found: os.stat_result) -> None:
    if not stat.S_ISREG(found.st_mode):
        raise UnsafeFile(path, "it is not a regular file")
    if found.st_uid != os.geteuid():
        raise UnsafeFile(path, "it belongs to another user")
    if found.st_nlink > 1:
        raise UnsafeFile(path, "it has another name (a hard link)")


def _refusal(path: Path, exc: OSError) -> UnsafeFile | None:
    """The refusal an `os.open` failure stands for, or None when it is an ordinary failure."""
    if exc.errno == errno.ELOOP and path.is_symlink():
        return UnsafeFile(path, "it is a symbolic link")
    if exc.errno == errno.ENXIO:  # a FIFO with no reader, or a socket: nothing to write to
        return UnsafeFile(path, "it is not a regular file")
    return None
