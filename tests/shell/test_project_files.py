"""What a new user meets first, checked in process: the version flag, the licence, the
changelog, the README and the troubleshooting page against the real options and variables, and
the check script's stages. The console script and the terminal hint, which need a process, are in
`tests/e2e/test_console_script.py`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import subprocess
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from adapter.app.cli import _parser, main
from tests.support.harness import ROOT


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


def test_licence_file_is_the_declared_apache_2() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["license"]
    assert declared == "Apache-2.0"
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


def _section(text: str, heading: str) -> str:
    section = text[text.index(heading) :]
    end = section.find("\n## ", 1)
    return section if end == -1 else section[:end]


def test_troubleshooting_covers_the_five_problems_with_options_that_exist() -> None:
    page = (ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
    for problem in (
        "Not signed in",
        "Claude Code not found",
        "A proxy or a gateway",
        "The editor shows nothing",
        "A stuck turn",
    ):
        assert f"**{problem}.**" in page
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", page)) - {"--version"}
    assert flags == {"--log-file", "--trace"}
    options = {o for a in _parser()._actions for o in a.option_strings}
    assert flags <= options


def test_the_readme_says_what_to_do_when_something_goes_wrong_and_links_the_rest() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = _section(readme, "## When something goes wrong")
    bullets = [line for line in section.splitlines() if line.startswith("- ")]
    assert 4 <= len(bullets) <= 7
    assert "(docs/troubleshooting.md)" in section
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", section))
    assert flags <= {o for a in _parser()._actions for o in a.option_strings}
    # A user's page: read in two minutes, every link to docs/ pointing at a file that exists.
    assert len(readme.splitlines()) <= 300
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / target).is_file(), target


def test_the_readme_environment_table_is_what_the_adapter_reads() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    table = _section(readme, "## Environment")
    documented = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)`", table, re.M))
    documented |= set(re.findall(r"^\| `[A-Z0-9_]+`, `([A-Z][A-Z0-9_]+)`", table, re.M))
    assert {"CLAUDE_ACP_LOG_FILE", "CLAUDE_ACP_TRACE_FILE", "CLAUDE_CODE_EXECUTABLE"} <= documented
    # The product's own code, not the test double that stands in for Claude's process.
    product = [p for p in (ROOT / "adapter").rglob("*.py") if "scripted_claude" not in p.parts]
    source = "".join(p.read_text("utf-8") for p in product)
    assert {v for v in documented if f'"{v}"' not in source} == set()
    # ... and every variable of the adapter's own namespace is in the table.
    own = set(re.findall(r'"(CLAUDE_ACP_[A-Z_]+)"', source))
    assert own - documented == set()


def _load_run_py() -> Any:
    spec = importlib.util.spec_from_file_location("tests_run", ROOT / "tests" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_check_script_heads_every_stage_and_ends_with_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run_py = _load_run_py()
    # A private stamp: the install stage runs, without touching the real .venv.
    monkeypatch.setattr(run_py, "STAMP", tmp_path / "stamp")
    commands: list[str] = []

    def fake_run(*argv: str | Path) -> None:
        commands.append(" ".join(str(a) for a in argv[1:]))
        if argv[1:3] == ("-m", "mypy"):
            raise subprocess.CalledProcessError(3, [str(a) for a in argv])

    monkeypatch.setattr(run_py, "run", fake_run)
    assert run_py.main(["-x"]) == 3
    out = capsys.readouterr().out
    assert commands == [
        "-m pip install --disable-pip-version-check -e .[test]",
        "-m ruff check .",
        "-m ruff format --check .",
        "-m mypy",
    ]
    headings = [line for line in out.splitlines() if line.startswith("===== [")]
    assert [h.split("]")[1].split(":")[0].strip() for h in headings] == [
        "install",
        "ruff",
        "format",
        "mypy",
    ]
    assert "installing the project with its test extra" in out
    summary = out[out.index("===== summary =====") :].splitlines()
    assert [line.split()[:2] for line in summary[1:10]] == [
        ["install", "ok"],
        ["ruff", "ok"],
        ["format", "ok"],
        ["mypy", "FAILED"],
        ["diagrams", "not"],
        ["pytest", "not"],
        ["py3.12", "not"],
        ["py3.13", "not"],
        ["wheel", "not"],
    ]
    assert summary[-1] == "failed (exit status 3)"
    # Installed once: the next run says so instead of reinstalling, runs pytest with its args,
    # then the in-process tiers on 3.12 and 3.13 (in their own venvs), then the wheel.
    commands.clear()
    monkeypatch.setattr(run_py, "run", lambda *argv: commands.append(" ".join(map(str, argv))))
    monkeypatch.setattr(
        run_py, "ensure_other_environment", lambda version: Path(f"/v{version}/bin/python")
    )
    assert run_py.main(["-x"]) == 0
    python = str(run_py.PYTHON)
    assert commands[-4:] == [
        f"{python} -m pytest -n 4 --deep -x",
        "/v3.12/bin/python -m pytest -q -n 4 -m not e2e",
        "/v3.13/bin/python -m pytest -q -n 4 -m not e2e",
        f"{python} {ROOT / 'tests' / 'installed_wheel.py'}",
    ]
    assert not any("pip" in c for c in commands)
    out = capsys.readouterr().out
    assert "nothing to install" in out and out.rstrip().endswith("all checks passed")


def test_a_missing_python_fails_its_stage_loudly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run_py = _load_run_py()
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(run_py.StageFailed, match=r"Python 3\.12 is NOT on this machine"):
        run_py.find_python("3.12")
    # In a run: the stage fails (never skipped), says why, and the summary says so.
    monkeypatch.setattr(run_py, "STAMP", tmp_path / "stamp")
    (tmp_path / "stamp").write_text(
        hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    )
    monkeypatch.setattr(run_py, "run", lambda *argv: None)
    assert run_py.main([]) == 1
    out = capsys.readouterr().out
    assert "py3.12 FAILED: Python 3.12 is NOT on this machine" in out
    assert "pyenv install 3.12" in out
    summary = out[out.index("===== summary =====") :].splitlines()
    assert summary[7].split()[:2] == ["py3.12", "FAILED"]
    assert summary[8].split()[:2] == ["py3.13", "not"]
    assert summary[9].split()[:2] == ["wheel", "not"]


def test_the_machine_s_pythons_are_found_where_pyenv_keeps_them() -> None:
    run_py = _load_run_py()
    for wanted in run_py.OTHER_PYTHONS:
        found = run_py.find_python(wanted)
        done = subprocess.run(
            [str(found), "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert done.stdout.strip() == str(tuple(int(p) for p in wanted.split(".")))
