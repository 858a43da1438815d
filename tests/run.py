#!/usr/bin/env python3
"""The project's whole check, from a fresh clone: `python3 tests/run.py [pytest args...]`.

Creates `.venv` beside the project when it is missing, (re)installs the project with its test extra
whenever `pyproject.toml` changed, then runs ruff (lint and layout), mypy --strict, the diagram
freshness check and pytest (the whole suite, with the pytest args given), each under a heading, and
ends with a summary of the stages. Then the other supported Pythons: the in-process tiers (`-m "not
e2e"`) on Python 3.12 and 3.13, each in its own `.venv-3.12` / `.venv-3.13` made from the
interpreter already on the machine (pyenv's, or a `python3.12` on PATH; never downloaded: a missing
one fails its stage and says so). Last the wheel, as editor users install it: built, installed with
`uv tool install` into a temporary tool folder, and its `claude-acp --version` and `claude-acp
doctor` run from outside the checkout (`tests/installed_wheel.py`). It stops at the first stage that
fails. Uses only the standard library, so it runs before anything is installed."""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import shutil
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
# The other Pythons the project supports (pyproject.toml's classifiers); the default python3
# runs everything, these run the in-process tiers.
OTHER_PYTHONS = ("3.12", "3.13")


class StageFailed(Exception):
    """A stage that cannot run or did not pass, with what to tell the reader."""


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


def _reports_version(python: str, version: str) -> bool:
    try:
        done = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() == version


def find_python(version: str) -> Path:
    """The machine's Python `version` (`3.12`): pyenv's install of it, else `pythonX.Y` on
    PATH. Never downloads one: raises `StageFailed` saying what is missing and how to add it."""
    pyenv_root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    candidates = sorted(
        glob.glob(str(pyenv_root / "versions" / f"{version}.*" / "bin" / f"python{version}")),
        key=lambda path: [int(p) if p.isdigit() else 0 for p in Path(path).parts[-3].split(".")],
        reverse=True,
    )
    on_path = shutil.which(f"python{version}")
    for candidate in [*candidates, *([on_path] if on_path else [])]:
        if _reports_version(candidate, version):
            return Path(candidate)
    raise StageFailed(
        f"Python {version} is NOT on this machine (looked in {pyenv_root}/versions/{version}.* "
        f"and for python{version} on PATH): the project supports it, so this check fails rather "
        f"than skip it. Install it (`pyenv install {version}`) and run again."
    )


def ensure_other_environment(version: str) -> Path:
    """`.venv-X.Y` made with the machine's Python X.Y and the project installed in it (again
    whenever pyproject.toml changed); returns its python."""
    python = find_python(version)
    where = ROOT / f".venv-{version}"
    inside = where / "bin" / "python"
    stamp = where / ".claude-acp-installed"
    if not inside.exists():
        print(f"creating {where} with {python}", flush=True)
        run(python, "-m", "venv", "--clear", where)
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text(encoding="utf-8") == wanted:
        print(f"{where.name} is up to date with pyproject.toml: nothing to install", flush=True)
        return inside
    print(f"installing the project with its test extra into {where.name}", flush=True)
    run(inside, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", ".[test]")
    stamp.write_text(wanted, encoding="utf-8")
    return inside


def in_process_tiers_on(version: str) -> None:
    # The core's quick budgets: this stage is about the interpreter, and the deep volumes
    # already ran on the default python3 in the `pytest` stage.
    run(ensure_other_environment(version), "-m", "pytest", "-q", "-n", "4", "-m", "not e2e")


# Four workers: most end-to-end time is waiting on child processes, not CPU. (How the tests are
# shared out among them: tests/conftest.py.) `--deep`: the core's volume and randomized tests at
# their full budgets (tests/support/depth.py); a bare `pytest tests/core` plays the quick ones.
PYTEST = ("-n", "4", "--deep")


def stages(pytest_args: list[str]) -> list[tuple[str, str, Callable[[], None]]]:
    """(name, what it checks, how) for every stage, in order."""
    return [
        ("install", "the project and its test extra in .venv", ensure_environment),
        ("ruff", "lint", lambda: run(PYTHON, "-m", "ruff", "check", ".")),
        ("format", "ruff's layout", lambda: run(PYTHON, "-m", "ruff", "format", "--check", ".")),
        ("mypy", "types, --strict", lambda: run(PYTHON, "-m", "mypy")),
        ("diagrams", "fresh drawings", lambda: run(PYTHON, "-m", "fsm.diagrams", "--check")),
        ("pytest", "the test suite", lambda: run(PYTHON, "-m", "pytest", *PYTEST, *pytest_args)),
        *(
            (f"py{v}", f"in-process tiers on Python {v}", functools.partial(in_process_tiers_on, v))
            for v in OTHER_PYTHONS
        ),
        ("wheel", "the built wheel, installed with uv tool install",
            lambda: run(PYTHON, ROOT / "tests" / "installed_wheel.py")),
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
        except StageFailed as failed:
            print(f"\n!!!!! {name} FAILED: {failed}", flush=True)
            status = 1
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
