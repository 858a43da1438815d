"""Suite-wide set-up: whatever a test's child processes leave in the temp directory stays in
pytest's own temporary tree (which pytest prunes), never in the system's `/tmp`.

A process killed by a test (SIGKILL leaves a `tempfile.TemporaryDirectory` behind) used to leave
`claude-acp-*` folders in the system temp directory; children inherit `TMPDIR` from here, and
`tests.harness.spawn_adapter` passes it explicitly to the adapters it spawns.

The real-Claude-Code tier's banner lives here too, in the conftest every pytest process loads
(the controller of a `pytest -n N` run collects nothing and never loads `tests/real_claude/`'s
own conftest): where the bundled CLI is missing, the summary says loudly that the tier did not
run.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest

from tests.real_claude.banner import pytest_terminal_summary

__all__ = ["contained_temp_dir", "pytest_terminal_summary"]


@pytest.fixture(scope="session", autouse=True)
def contained_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = str(tmp_path_factory.mktemp("tmpdir"))
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = folder
    yield folder
    if saved is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = saved
    tempfile.tempdir = None
