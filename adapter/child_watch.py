"""Claude's processes waited for without a thread each (Python 3.11 on Linux).

On Python 3.11 asyncio waits for every child process with a thread of its own
(`ThreadedChildWatcher`): each session's Claude costs one more OS thread, started in the event
loop when Claude is spawned and blocked in `waitpid` until it exits (measured: 51 threads in the
agent after 50 `session/new`, issue 15). Python 3.12 and later watch children through pid file
descriptors by default on Linux; `watch_children_with_pidfds` does the same on 3.11 when the
kernel offers them (Linux 5.3+), and leaves the default alone everywhere else.

The watcher is the one Python 3.12 ships, written with the loop's public `add_reader`: each
child is watched on the loop that spawned it, so it serves any loop of the process.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVarTuple

__all__ = ["watch_children_with_pidfds"]

log = logging.getLogger(__name__)
Ts = TypeVarTuple("Ts")


def _pidfds_work() -> bool:
    if not hasattr(os, "pidfd_open"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:  # a kernel without pidfd_open (before 5.3), or a sandbox that forbids it
        return False
    return True


# Only defined where it is used: the base class is deprecated in 3.12 and gone in 3.14.
if sys.version_info < (3, 12):

    class _PidfdWatcher(asyncio.AbstractChildWatcher):
        """Python 3.12's `PidfdChildWatcher`: a child's exit makes its pidfd readable."""

        def add_child_handler(
            self, pid: int, callback: Callable[[int, int, *Ts], object], *args: *Ts
        ) -> None:
            loop = asyncio.get_running_loop()
            pidfd = os.pidfd_open(pid)
            loop.add_reader(pidfd, self._do_wait, loop, pid, pidfd, callback, args)

        @staticmethod
        def _do_wait(
            loop: asyncio.AbstractEventLoop,
            pid: int,
            pidfd: int,
            callback: Callable[..., object],
            args: tuple[Any, ...],
        ) -> None:
            loop.remove_reader(pidfd)
            try:
                _, status = os.waitpid(pid, 0)
            except ChildProcessError:  # already reaped by someone else
                returncode = 255
                log.warning("child process %d: its exit status was already read", pid)
            else:
                returncode = os.waitstatus_to_exitcode(status)
            os.close(pidfd)
            callback(pid, returncode, *args)

        def remove_child_handler(self, pid: int) -> bool:
            return True  # asyncio never calls this for subprocess transports

        def attach_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
            return None  # each child is watched on the loop that spawned it

        def close(self) -> None:
            return None

        def is_active(self) -> bool:
            return True

        def __enter__(self) -> _PidfdWatcher:
            return self

        def __exit__(self, *exc: object) -> None:
            return None


def watch_children_with_pidfds() -> bool:
    """On Python 3.11 with pidfds: install the pidfd watcher (True). Else change nothing."""
    if sys.version_info >= (3, 12) or sys.platform != "linux" or not _pidfds_work():
        return False
    policy = asyncio.get_event_loop_policy()
    if not isinstance(policy.get_child_watcher(), _PidfdWatcher):
        policy.set_child_watcher(_PidfdWatcher())
    return True
