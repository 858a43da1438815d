"""The tripwire that keeps the tier on loopback, shown to catch the bundled CLI: run once with
`NO_PROXY` unset, the CLI sends its traffic through `HTTP(S)_PROXY`, so the tripwire every other
test relies on would catch an escape. The double itself is checked without a CLI in
`tests/shell/test_api_double.py`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.real_claude.api_double import MessagesApiDouble
from tests.real_claude.support import BUNDLED, cli_env

pytestmark = pytest.mark.real_claude


def test_the_bundled_cli_sends_its_traffic_through_the_proxy(tmp_path: Path) -> None:
    """Without the NO_PROXY exemption, even the CLI's calls to the double go to the tripwire:
    the proxy variables are on its path, so an escape anywhere else would be caught too."""
    assert BUNDLED is not None
    with MessagesApiDouble() as own:
        env = cli_env(own, tmp_path, NO_PROXY="", no_proxy="", CLAUDE_CODE_MAX_RETRIES="0")
        env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
        env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "config")
        done = subprocess.run(
            [str(BUNDLED), "-p", "hello", "--output-format", "stream-json", "--verbose"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert own.requests == []
        assert own.escapes, done.stdout[-2000:]
        assert all(f"{own.base_url}/v1/messages" in line for line in own.escapes)
        assert done.returncode != 0
