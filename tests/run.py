#!/usr/bin/env python3
"""The project's whole check, from a fresh clone: `python3 tests/run.py [pytest args...]`.

Creates `.venv` beside the project when it is missing, (re)installs the project with its test
extra whenever `pyproject.toml` changed, then runs ruff, mypy --strict, the diagram freshness
check and pytest, each under a heading, and ends with a summary of the stages. It stops at the
first stage that fails. Uses only the standard library, so it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
import venv
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"
STAMP = VENV / ".claude-acp-installed"


def run(*argv: str | Path) -> None:
    print("+", " ".join(str(a) for a in argv), flush=True)
    subprocess.run([str(a) for a in argv], cwd=ROOT, check=True, env=_environment())


def _environment() -> dict[str, str]:
    # The suite starts a few thousand Python processes (workers, demos, adapters, the scripted
    # Claude): with PYTHONDONTWRITEBYTECODE each would compile the project (and pytest rewrite
    # every test module) again. Bytecode goes where Python keeps it by default (`__pycache__`,
    # ignored by git), beside what pip compiled at install: a cache prefix would make every
    # process of a fresh run compile acp, pydantic and the SDK again until one had written them
    # there (about a minute more on a fresh clone).
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def ensure_environment() -> None:
    if not PYTHON.exists():
        print(f"creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text(encoding="utf-8") == wanted:
        print(".venv is up to date with pyproject.toml: nothing to install", flush=True)
        return
    print("installing the project with its test extra (a minute or two the first time)", flush=True)
    run(PYTHON, "-m", "pip", "install", "--disable-pip-version-check", "-e", ".[test]")
    STAMP.write_text(wanted, encoding="utf-8")


# Four workers: most end-to-end time is waiting on child processes, not CPU. (How the tests are
# shared out among them: tests/conftest.py.) `--deep`: the core's volume and randomized tests at
# their full budgets (tests/support/depth.py); a bare `pytest tests/core` plays the quick ones.
PYTEST = ("-n", "4", "--deep")


def stages(pytest_args: list[str]) -> list[tuple[str, str, Callable[[], None]]]:
    """(name, what it checks, how) for every stage, in order."""
    return [
        ("install", "the project and its test extra in .venv", ensure_environment),
        ("ruff", "lint", lambda: run(PYTHON, "-m", "ruff", "check", ".")),
        ("mypy", "types, --strict", lambda: run(PYTHON, "-m", "mypy")),
        ("diagrams", "fresh drawings", lambda: run(PYTHON, "-m", "fsm.diagrams", "--check")),
        ("pytest", "the test suite", lambda: run(PYTHON, "-m", "pytest", *PYTEST, *pytest_args)),
    ]  # fmt: skip


def main(pytest_args: list[str]) -> int:
    plan = stages(pytest_args)
    outcomes: list[tuple[str, str, float]] = []
    status = 0
    for number, (name, what, action) in enumerate(plan, start=1):
        print(f"\n===== [{number}/{len(plan)}] {name}: {what} =====", flush=True)
        started = time.monotonic()
        try:
            action()
        except subprocess.CalledProcessError as exc:
            status = exc.returncode or 1
        outcomes.append((name, "ok" if status == 0 else "FAILED", time.monotonic() - started))
        if status != 0:
            break
    print("\n===== summary =====")
    for name, _, _ in plan:
        result, seconds = next(((r, s) for n, r, s in outcomes if n == name), ("not run", None))
        took = "" if seconds is None else f"{seconds:8.1f} s"
        print(f"  {name:<9} {result:<8}{took}")
    print("all checks passed" if status == 0 else f"failed (exit status {status})", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
