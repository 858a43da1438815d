"""Memory of a process tree, read from /proc (Linux only).

`VmHWM` is the kernel's own high-water mark of a process's resident set: exact, and free to
read, with no sampling. The agent's own peak is its `VmHWM`. Its children (the scripted Claude
processes) are found through `/proc/<pid>/task/<tid>/children` and reported apart, so the
agent's figure never includes the fake Claude it drives.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TreeMemory", "cpu_seconds", "descendants", "load_average", "status_kib", "tree_memory"]

_PROC = Path("/proc")
_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time the process (all its threads) has used so far, or None.

    Contention on a busy machine stretches wall-clock times but hardly CPU time, so this is
    the steadier figure when the machine is shared (10 ms resolution)."""
    try:
        text = (_PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = text.rpartition(")")[2].split()
    try:
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (IndexError, ValueError):
        return None


def load_average() -> float:
    """The one-minute load average."""
    return os.getloadavg()[0]


def status_kib(pid: int, field: str) -> int | None:
    """One `kB` field of `/proc/<pid>/status` (e.g. VmHWM, VmRSS), or None if it is gone."""
    try:
        text = (_PROC / str(pid) / "status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    prefix = field + ":"
    for line in text.splitlines():
        if line.startswith(prefix):
            parts = line.split()
            with contextlib.suppress(IndexError, ValueError):
                return int(parts[1])
    return None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = list((_PROC / str(pid) / "task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            text = (task / "children").read_text(encoding="ascii")
        except OSError:
            continue
        found.extend(int(p) for p in text.split())
    return found


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid`, parents before children."""
    out: list[int] = []
    queue = _children(pid)
    while queue:
        child = queue.pop(0)
        out.append(child)
        queue.extend(_children(child))
    return out


@dataclass(frozen=True, slots=True)
class TreeMemory:
    agent_hwm_kib: int  # the agent process's own peak RSS
    children_hwm_kib: int  # the sum of its live descendants' peaks (the scripted Claudes)
    children: int  # how many descendants were alive

    @property
    def tree_hwm_kib(self) -> int:
        """An upper bound of the tree's peak: the peaks may not have been simultaneous."""
        return self.agent_hwm_kib + self.children_hwm_kib


def tree_memory(pid: int) -> TreeMemory:
    kids = descendants(pid)
    return TreeMemory(
        agent_hwm_kib=status_kib(pid, "VmHWM") or 0,
        children_hwm_kib=sum(status_kib(k, "VmHWM") or 0 for k in kids),
        children=len(kids),
    )
