"""Facts about the machine and the software a benchmark ran on."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

__all__ = ["machine_facts"]

_PACKAGES = ("claude-acp", "agent-client-protocol", "claude-agent-sdk", "pydantic", "anyio")


def _first(path: str, key: str) -> str:
    try:
        for line in Path(path).read_text(encoding="ascii", errors="replace").splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def _tool(*argv: str) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return "not installed"
    return done.stdout.strip() or done.stderr.strip() or "?"


def _pkg(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def machine_facts() -> list[tuple[str, str]]:
    mem_kib = _first("/proc/meminfo", "MemTotal").split()[0]
    memory = f"{int(mem_kib) / 1024 / 1024:.1f} GiB" if mem_kib.isdigit() else "?"
    facts = [
        ("date (UTC)", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")),
        ("CPU", _first("/proc/cpuinfo", "model name")),
        ("cores (os.cpu_count)", str(os.cpu_count())),
        ("memory", memory),
        ("kernel", platform.release()),
        ("Python", platform.python_version()),
        ("node", _tool("node", "--version")),
        ("npm", _tool("npm", "--version")),
    ]
    facts.extend((f"{name} (PyPI)", _pkg(name)) for name in _PACKAGES)
    return facts
