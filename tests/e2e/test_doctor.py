"""`claude-acp doctor` as a person runs it, against the scripted Claude (signed in, signed out)
and bad input: a broken settings or MCP file, a config folder that is not one, a
`CLAUDE_CODE_EXECUTABLE` that is missing or not executable. Each bad input is named with its
fix, the exit status says whether claude-acp can work, and no traceback or secret is printed.
The real bundled Claude Code, signed out, is in `tests/real_claude/test_doctor.py`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from adapter.scripted_claude import write_launcher
from tests.support.harness import ROOT

SECRET = "sk-ant-api03-doctor-must-never-print-this-0123456789"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CLAUDE_", "ANTHROPIC_")) and k not in ("HOME", "PYTHONPATH")
    }
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(tmp_path / "config"), PYTHONPATH=str(ROOT))
    env.update(extra)
    return env


def _scripted(tmp_path: Path) -> str:
    return str(write_launcher(tmp_path / "bin"))


def _doctor(env: dict[str, str], cwd: Path) -> tuple[int, list[str], str]:
    done = subprocess.run(
        [sys.executable, "-m", "adapter", "doctor"],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stdout + done.stderr
    return done.returncode, done.stdout.splitlines(), done.stderr


def _line(lines: list[str], name: str) -> str:
    found = [line for line in lines if line[6:].startswith(name + " ")]
    assert len(found) == 1, (name, lines)
    return found[0]


def test_signed_in_scripted_claude_can_work(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = _env(tmp_path, CLAUDE_CODE_EXECUTABLE=_scripted(tmp_path), ANTHROPIC_API_KEY=SECRET)
    status, lines, err = _doctor(env, project)
    out = "\n".join(lines)
    assert status == 0, out
    assert SECRET not in out + err
    assert _line(lines, "versions").startswith("ok ")
    assert "Python " in _line(lines, "versions")
    claude = _line(lines, "Claude Code")
    assert claude.startswith("ok ") and "2.1.332 (Claude Code)" in claude
    assert "CLAUDE_CODE_EXECUTABLE=" in claude
    signed = _line(lines, "signed in")
    assert signed.startswith("ok ") and "api_key from ANTHROPIC_API_KEY" in signed
    assert _line(lines, "config dir").startswith("ok ") and "CLAUDE_CONFIG_DIR" in out
    assert "not present" in _line(lines, "project MCP")
    assert "CLAUDE_ACP_LOG_FILE" in _line(lines, "logs")
    assert lines[-1] == "claude-acp can work here."
    # The Zed block parses and starts this claude-acp.
    block = out[out.index("{") : out.rindex("}") + 1]
    entry = json.loads(block)["agent_servers"]["Claude (claude-acp)"]
    assert entry["type"] == "custom" and Path(entry["command"]).is_absolute()
    assert entry["command"] in (sys.executable, str(Path(sys.executable).with_name("claude-acp")))


def test_signed_out_scripted_claude_says_how_to_sign_in_and_exits_1(tmp_path: Path) -> None:
    env = _env(
        tmp_path, CLAUDE_CODE_EXECUTABLE=_scripted(tmp_path), CLAUDE_ACP_SCRIPTED_AUTH="signed-out"
    )
    status, lines, _ = _doctor(env, tmp_path)
    assert status == 1
    signed = _line(lines, "signed in")
    assert signed.startswith("FAIL ") and "claude-acp login" in signed
    assert "ANTHROPIC_API_KEY" in signed
    assert "cannot work here yet" in lines[-1]


def test_broken_settings_and_mcp_files_are_named_with_the_fix(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    config = tmp_path / "config"
    config.mkdir()
    # Broken JSON holding a secret: the place of the fault is shown, never the text.
    (config / "settings.json").write_text('{"env": {"ANTHROPIC_API_KEY": "' + SECRET + '",}')
    (project / ".mcp.json").write_text('{"mcpServers": {"tracker": ')
    (project / ".claude" / "settings.local.json").write_text('["not", "an", "object"]')
    (project / ".claude" / "settings.json").write_text('{"permissions": {}}')
    env = _env(tmp_path, CLAUDE_CODE_EXECUTABLE=_scripted(tmp_path))
    status, lines, err = _doctor(env, project)
    out = "\n".join(lines)
    assert SECRET not in out + err
    user = _line(lines, "user settings")
    assert user.startswith("warn ") and "settings.json is not valid JSON" in user
    assert "line 1, column" in user and "fix or remove it" in user
    mcp = _line(lines, "project MCP")
    assert mcp.startswith("warn ") and ".mcp.json is not valid JSON" in mcp
    assert "MCP servers" in mcp and "fix or remove it" in mcp
    local = _line(lines, "local settings")
    assert local.startswith("warn ") and "not a JSON object" in local
    assert _line(lines, "project settings").startswith("ok ")
    # Claude Code skips a broken file and still works: a warning, not a failure.
    assert status == 0


def test_a_config_dir_that_is_not_a_folder_fails_with_the_fix(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "config-file"
    not_a_folder.write_text("x")
    env = _env(
        tmp_path,
        CLAUDE_CODE_EXECUTABLE=_scripted(tmp_path),
        CLAUDE_CONFIG_DIR=str(not_a_folder),
    )
    status, lines, _ = _doctor(env, tmp_path)
    config = _line(lines, "config dir")
    assert config.startswith("FAIL ") and "is not a folder" in config
    assert "point CLAUDE_CONFIG_DIR at a folder you own" in config
    assert status == 1


def test_a_config_dir_below_a_file_cannot_be_read(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    env = _env(
        tmp_path,
        CLAUDE_CODE_EXECUTABLE=_scripted(tmp_path),
        CLAUDE_CONFIG_DIR=str(blocker / "claude"),
    )
    status, lines, _ = _doctor(env, tmp_path)
    config = _line(lines, "config dir")
    assert config.startswith("FAIL ") and "cannot be read: Not a directory" in config
    assert "CLAUDE_CONFIG_DIR" in config
    assert status == 1


def test_an_executable_that_is_not_executable_is_named_with_the_fix(tmp_path: Path) -> None:
    program = tmp_path / "claude"
    program.write_text("#!/bin/sh\necho 1.0\n")
    program.chmod(0o644)
    env = _env(tmp_path, CLAUDE_CODE_EXECUTABLE=str(program))
    status, lines, _ = _doctor(env, tmp_path)
    claude = _line(lines, "Claude Code")
    assert claude.startswith("FAIL ") and "is not executable" in claude
    assert "chmod +x" in claude and "unset it to use the Claude Code bundled" in claude
    assert _line(lines, "signed in").startswith("FAIL ")
    assert status == 1


def test_a_missing_executable_and_a_folder_are_named(tmp_path: Path) -> None:
    for target, said in (
        (tmp_path / "nowhere" / "claude", "does not exist"),
        (tmp_path, "is a folder"),
    ):
        env = _env(tmp_path, CLAUDE_CODE_EXECUTABLE=str(target))
        status, lines, _ = _doctor(env, tmp_path)
        claude = _line(lines, "Claude Code")
        assert claude.startswith("FAIL ") and said in claude and "CLAUDE_CODE_EXECUTABLE" in claude
        assert status == 1


def test_a_claude_that_does_not_start_is_said_with_what_it_printed(tmp_path: Path) -> None:
    program = tmp_path / "claude"
    program.write_text(f"#!/bin/sh\necho 'cannot start: token {SECRET}' >&2\nexit 3\n")
    program.chmod(0o755)
    env = _env(tmp_path, CLAUDE_CODE_EXECUTABLE=str(program))
    status, lines, err = _doctor(env, tmp_path)
    claude = _line(lines, "Claude Code")
    assert (
        claude.startswith("FAIL ") and "does not start (cannot start: token sk-ant-***)" in claude
    )
    assert SECRET not in "\n".join(lines) + err
    assert status == 1


def test_doctor_refuses_arguments_and_has_help(tmp_path: Path) -> None:
    env = _env(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "adapter", "doctor", "--what"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "takes no arguments" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "adapter", "doctor", "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: claude-acp doctor")
