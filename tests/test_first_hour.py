"""A new user's first hour: the version, the licence, the changelog (issue 16)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

from adapter.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag_prints_the_installed_version(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([flag])
    assert exited.value.code == 0
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    assert capsys.readouterr().out == f"claude-acp {declared}\n"
    assert version("claude-acp") == declared


@pytest.mark.e2e
def test_version_from_the_console_script() -> None:
    script = Path(sys.executable).with_name("claude-acp")
    done = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"claude-acp {version('claude-acp')}\n"


def test_licence_file_is_the_declared_apache_2() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["license"]
    assert declared == {"text": "Apache-2.0"}
    text = (ROOT / "LICENSE").read_text("utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    # The whole standard text, not a stub: its nine sections and the appendix.
    assert "9. Accepting Warranty or Additional Liability." in text
    assert "END OF TERMS AND CONDITIONS" in text and len(text.splitlines()) > 190


def test_changelog_keeps_an_unreleased_section_above_the_first_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text("utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    assert headings[0] == "## [Unreleased]"
    assert any(h.startswith(f"## [{declared}] - ") for h in headings)
