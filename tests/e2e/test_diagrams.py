"""The command a developer and CI run, `python -m fsm.diagrams --check`, passes on the committed
diagrams and decision tables (the house rule: drawings are generated). What the check finds
stale, and what the drawings say rule for rule, is `tests/core/test_diagrams.py`, in process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _diagrams(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fsm.diagrams", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_committed_diagrams_are_fresh() -> None:
    checked = _diagrams("--check")
    assert (checked.returncode, checked.stderr) == (0, "")
