"""Python code run in a fresh interpreter (nothing this test process imported is there), from
the project's root: what its last line printed, read as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import adapter

ROOT = Path(adapter.__file__).resolve().parent.parent


def printed_json(code: str, env: dict[str, str] | None = None) -> Any:
    """Run `code` with `python -c` (in `env` if given, else this process's environment); it
    must succeed, and its last line of output is JSON."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])
