"""The installed command as a new user starts it: the console script's version, one hint
line on a terminal, and silence on an editor's pipe. The in-process checks of the version flag,
the licence and the changelog are in `tests/shell/test_project_files.py`.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from adapter.app.cli import TERMINAL_HINT
from tests.support.harness import ROOT

# The adapter's own settings from the developer's shell (a log level, a log file) stay out.
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_ACP_")}


def test_version_from_the_console_script() -> None:
    script = Path(sys.executable).with_name("claude-acp")
    done = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"claude-acp {version('claude-acp')}\n"


def _serve_on_a_terminal() -> tuple[bytes, bytes, int]:
    """`python -m adapter` with a pty as stdin; ends it with the terminal's end-of-file."""
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "adapter"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=CLEAN_ENV,
        )
        os.close(slave)
        slave = -1
        try:
            assert process.stderr is not None
            # Wait for the hint before typing Ctrl-D, so the EOF reaches a reading adapter.
            first = process.stderr.readline()
            os.write(master, b"\x04")
            out, rest = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        return out, first + rest, process.returncode
    finally:
        os.close(master)
        if slave != -1:
            os.close(slave)


def test_a_terminal_gets_one_hint_line_on_stderr_and_nothing_on_stdout() -> None:
    out, err, status = _serve_on_a_terminal()
    assert out == b""
    lines = err.decode().splitlines()
    assert lines == [TERMINAL_HINT.format(version=version("claude-acp"))]
    assert "claude-acp demo" in lines[0] and "--help" in lines[0] and "editor" in lines[0]
    assert status == 0  # end-of-file on stdin: the client went away


def test_an_editor_pipe_gets_no_hint() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "adapter"],
        input=b"",
        capture_output=True,
        cwd=ROOT,
        env=CLEAN_ENV,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
