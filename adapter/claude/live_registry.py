"""The live Claude Code processes on this machine, from Claude Code's own registry: each running
CLI writes `<config>/sessions/<pid>.json` (its session id, kind, entrypoint, status), as the
reference adapter reads it (docs/reference-adapter.md#live-registry). The session index's
`state` reads it (`fsm.air.session_index.row_state`); nothing is refused for it.

Only `<pid>.json` files are read (never a `.key` file), none is written or removed; one that
does not parse is read once more, then skipped. Whether a process lives is `kill(pid, 0)`
(EPERM counts as alive); its start time comes from one `ps -o pid=,lstart=` call, in the form
Claude Code records (`LC_ALL=C TZ=UTC`). The rules are `fsm.air.session_index.registry_candidates`
and `live_sessions`. A snapshot serves for 5 seconds (`$CLAUDE_ACP_LIVE_REGISTRY_SECONDS`
changes it: 0 reads the registry on every look).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from adapter.claude.settings_files import config_home
from fsm import LiveRecord, live_sessions, registry_candidates

__all__ = ["LiveRegistry"]

log = logging.getLogger(__name__)

SNAPSHOT_SECONDS = 5.0
SNAPSHOT_ENV = "CLAUDE_ACP_LIVE_REGISTRY_SECONDS"
_PS_SECONDS = 1.0
_MAX_RECORD = 64 * 1024


def _pid_domain() -> str:
    """The pid domain Claude Code records: the machine id and pid namespace on Linux, the
    platform elsewhere (the host name on Windows)."""
    if sys.platform == "win32":
        import socket

        return f"win32:{socket.gethostname().lower()}"
    if not sys.platform.startswith("linux"):
        return sys.platform
    try:
        machine = Path("/etc/machine-id").read_text(encoding="utf-8").strip()
    except OSError:
        machine = ""
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = ""
    return f"linux:{machine}:{namespace}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except (OSError, OverflowError):
        return False
    return True


def _starts(pids: list[int]) -> dict[int, str]:
    """The start times of `pids` (`ps` exits 1 when one is gone; its output still holds the
    live ones)."""
    if not pids or sys.platform == "win32":
        return {}
    env = {**os.environ, "LC_ALL": "C", "TZ": "UTC"}
    try:
        done = subprocess.run(
            ["ps", "-o", "pid=,lstart=", "-p", ",".join(map(str, pids))],
            capture_output=True,
            text=True,
            timeout=_PS_SECONDS,
            env=env,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    found: dict[int, str] = {}
    for line in done.stdout.splitlines():
        pid, _, start = line.strip().partition(" ")
        if pid.isdigit() and start.strip():
            found[int(pid)] = " ".join(start.split())
    return found


def _seconds(raw: str | None) -> float:
    try:
        seconds = float(raw) if raw is not None else SNAPSHOT_SECONDS
    except ValueError:
        log.warning("ignoring %s=%r", SNAPSHOT_ENV, raw)
        return SNAPSHOT_SECONDS
    return seconds if seconds >= 0 else SNAPSHOT_SECONDS


def _read(path: Path) -> object:
    for _ in range(2):  # Claude Code may be rewriting it: once more
        try:
            with path.open("rb") as file:
                text = file.read(_MAX_RECORD)
        except OSError:
            return None
        try:
            return json.loads(text)
        except ValueError:
            continue
    return None


class LiveRegistry:
    """The live registry entries of one config folder, by session id."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._folder = config_home(env) / "sessions"
        self._domain: str | None = None
        self._snapshot: tuple[float, dict[str, LiveRecord]] | None = None
        self._serves = _seconds(os.environ.get(SNAPSHOT_ENV))

    def snapshot(self) -> dict[str, LiveRecord]:
        """The live entries now (at most 5 seconds old); none when the registry is unreadable.
        Blocking: call it off the event loop."""
        now = time.monotonic()
        if self._snapshot is not None and now - self._snapshot[0] < self._serves:
            return self._snapshot[1]
        live = self._read()
        self._snapshot = (now, live)
        return live

    def _read(self) -> dict[str, LiveRecord]:
        try:
            names = [entry.name for entry in os.scandir(self._folder)]
        except OSError:
            return {}
        if self._domain is None:
            self._domain = _pid_domain()
        files = {name: _read(self._folder / name) for name in names if name.endswith(".json")}
        candidates = registry_candidates(files, self._domain)
        alive = {record.pid for record in candidates if _alive(record.pid)}
        starts = _starts(sorted(r.pid for r in candidates if r.pid in alive and r.proc_start))
        return live_sessions(candidates, alive, starts, time.time() * 1000)
