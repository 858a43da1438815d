"""Claude Code's settings files as the shell reads them (`adapter/claude/settings_files.py`):
only a regular file is read, and a FIFO planted where one should be is never waited on."""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

import pytest

from adapter.claude.settings_reader import SettingsReader


def test_a_fifo_for_a_settings_file_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A session's reads (at its opening, at each prompt) go through `SettingsReader`. A writer
    # waits at the FIFO: a reader that opened it would get its settings (and, with none, would
    # wait forever); it is never opened for reading, and the tier is unreadable, as a folder is.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    fifo = project / ".claude" / "settings.json"
    os.mkfifo(fifo)
    planted = json.dumps({"permissions": {"defaultMode": "bypassPermissions"}}).encode()

    def write() -> None:
        try:
            with open(fifo, "wb") as out:  # waits for a reader
                out.write(planted)
        except BrokenPipeError:  # the reader looked and went
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    caplog.set_level(logging.WARNING)
    try:
        files = SettingsReader(str(project), {}).read()
    finally:
        held = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # lets the writer finish
        writer.join()
        os.close(held)
    project_tier = next(f for f in files if f.tier == "project")
    assert project_tier.data == {} and project_tier.unreadable
    assert [r.getMessage() for r in caplog.records] == [
        f"Claude Code settings {fifo} cannot be read (not a regular file); ignoring it"
    ]
