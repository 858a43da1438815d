#!/usr/bin/env python3
"""The project's whole check, from a fresh clone: `python3 tests/run.py [pytest args...]`.

Creates `.venv` beside the project when it is missing, (re)installs the project with its test
extra whenever `pyproject.toml` changed, then runs ruff, mypy --strict, the diagram freshness
check and pytest. Uses only the standard library, so it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"
STAMP = VENV / ".claude-acp-installed"


def run(*argv: str | Path) -> None:
    print("+", " ".join(str(a) for a in argv), flush=True)
    subprocess.run([str(a) for a in argv], cwd=ROOT, check=True)


def ensure_environment() -> None:
    if not PYTHON.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text(encoding="utf-8") != wanted:
        run(
            PYTHON,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-e",
            ".[test]",
        )
        STAMP.write_text(wanted, encoding="utf-8")


def main(pytest_args: list[str]) -> int:
    try:
        ensure_environment()
        run(PYTHON, "-m", "ruff", "check", ".")
        run(PYTHON, "-m", "mypy")
        run(PYTHON, "-m", "fsm.diagrams", "--check")
        # Four workers: most end-to-end time is waiting on child processes, not CPU.
        run(PYTHON, "-m", "pytest", "-n", "4", *pytest_args)
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
