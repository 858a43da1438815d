"""`claude-acp doctor` with the real Claude Code bundled in the SDK, signed out (an empty config
folder, no key): it finds and starts that CLI, reads its `claude auth status`, says the user is
not signed in and how to sign in, and exits 1. `claude auth status` asks no server; the tier's
API double and proxy tripwire still stand guard."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.real_claude.api_double import MessagesApiDouble
from tests.real_claude.support import BUNDLED, CLI_VERSION, cli_env
from tests.support.harness import ROOT


def test_doctor_with_the_bundled_cli_signed_out_says_so_and_exits_1(
    double: MessagesApiDouble, tmp_path: Path
) -> None:
    env = cli_env(double, tmp_path, CLAUDE_CONFIG_DIR=str(tmp_path / "empty-config"))
    del env["ANTHROPIC_API_KEY"]
    env.update(PATH=os.environ["PATH"], PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "adapter", "doctor"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=180,
        check=False,
    )
    assert "Traceback" not in done.stdout + done.stderr
    lines = done.stdout.splitlines()
    claude = next(line for line in lines if line[6:].startswith("Claude Code "))
    assert claude.startswith("ok ") and f"{CLI_VERSION} (Claude Code)" in claude
    assert "bundled with claude-agent-sdk" in claude and BUNDLED is not None
    signed = next(line for line in lines if line[6:].startswith("signed in "))
    assert signed.startswith("FAIL  signed in") and "no: run `claude-acp login`" in signed
    assert "cannot work here yet" in lines[-1]
    assert done.returncode == 1
