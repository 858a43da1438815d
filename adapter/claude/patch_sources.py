"""A file read as the old or new side of a git patch (`adapter.view.git_patch`).

`read_patch_source` tells a file that is not there (an Edit or Write creates it) from one that
cannot be a patch's side: not a regular file, larger than the patch limit, binary (a NUL in its
first 8000 bytes, git's test), not UTF-8, or holding a CR (Claude Code rewrites line endings,
so a patch of the bytes would not be the change it makes); the caller then keeps the plain
diff. Opened `O_NONBLOCK`, so a FIFO at the path cannot hang a question; checked and read
through one descriptor.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass

from fsm import MAX_PATCH_BYTES

__all__ = ["PatchSource", "read_patch_source"]

_BINARY_SNIFF = 8000


@dataclass(frozen=True, slots=True)
class PatchSource:
    text: str | None  # None: missing, or unusable as a patch side
    missing: bool = False


def read_patch_source(path: str) -> PatchSource:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        return PatchSource(None, missing=exc.errno == errno.ENOENT)
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_PATCH_BYTES:
            return PatchSource(None)
        chunks = []
        left = MAX_PATCH_BYTES + 1  # one byte more tells a file that grew since the check
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return PatchSource(None)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_PATCH_BYTES or b"\0" in data[:_BINARY_SNIFF]:
        return PatchSource(None)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return PatchSource(None)
    return PatchSource(None if "\r" in text else text)
