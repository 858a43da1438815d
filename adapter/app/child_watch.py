"""Claude's processes waited for without a thread each (Python 3.11 on Linux).

On Python 3.11 asyncio waits for every child process with a thread of its own
(`ThreadedChildWatcher`): each session's Claude costs one more OS thread, started in the event
loop when Claude is spawned and blocked in `waitpid` until it exits (measured: 51 threads in the
agent after 50 `session/new`). Python 3.12 and later watch children through pid file
descriptors by default on Linux; `watch_children_with_pidfds` installs the standard library's
own `asyncio.PidfdChildWatcher` on 3.11 when the kernel offers pidfds (Linux 5.3+), attached
to the one loop the adapter serves on, and leaves the default alone everywhere else.
"""

from __future__ import annotations

import asyncio
import os
import sys
import warnings

__all__ = ["watch_children_with_pidfds"]


def _pidfds_work() -> bool:
    if not hasattr(os, "pidfd_open"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:  # a kernel without pidfd_open (before 5.3), or a sandbox that forbids it
        return False
    return True


def watch_children_with_pidfds(loop: asyncio.AbstractEventLoop) -> bool:
    """On Python 3.11 with pidfds: watch `loop`'s children through pidfds (True). Else change
    nothing (False)."""
    if sys.version_info >= (3, 12) or sys.platform != "linux" or not _pidfds_work():
        return False
    with warnings.catch_warnings():  # the child watcher API is deprecated from 3.12 on
        warnings.simplefilter("ignore", DeprecationWarning)
        watcher = asyncio.PidfdChildWatcher()
        watcher.attach_loop(loop)
        asyncio.set_child_watcher(watcher)
    return True
