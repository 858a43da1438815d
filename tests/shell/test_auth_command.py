"""`claude auth …` as the adapter runs it (`adapter/claude/auth_command.py`), in process: the one
run that `authenticate`, `logout` and `claude-acp doctor` share. A small fake CLI answers from
the environment it was given, so each test sees what Claude Code would have seen: placeholder
credentials dropped, the session's extra variables passed, and each way the run cannot happen
(no Claude Code, one that cannot start, one that hangs) named for a person."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import anyio
import pytest
from acp import RequestError

from adapter.app.doctor import FAIL, OK, run_checks
from adapter.claude import auth_command
from adapter.claude.auth_command import AuthCommandFailed, run_auth
from adapter.claude.auth_status import check_signed_in
from adapter.claude.credential_env import CREDENTIAL_VARIABLES
from adapter.claude.logout import logout
from adapter.claude.runtime_settings import RuntimeSettings

pytestmark = pytest.mark.anyio
PLACEHOLDER = {"CLAUDE_CODE_OAUTH_TOKEN": "CLAUDE_CODE_OAUTH_TOKEN"}

# Signed in exactly when it was given an OAuth token or an API key, as Claude Code would say;
# `auth logout` fails when told to; `--version` for the doctor.
FAKE_CLI = """\
import json, os, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("9.9.9 (Claude Code)")
elif args[:2] == ["auth", "status"]:
    token = "CLAUDE_CODE_OAUTH_TOKEN" in os.environ or "ANTHROPIC_API_KEY" in os.environ
    print(json.dumps({"loggedIn": token, "authMethod": "oauth_token" if token else "none"}))
    sys.exit(0 if token else 1)
elif args[:2] == ["auth", "logout"]:
    sys.exit(3 if os.environ.get("FAKE_LOGOUT_FAILS") else 0)
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _settings(claude: str, env: dict[str, str]) -> RuntimeSettings:
    return RuntimeSettings(executable=claude, env=dict(env))


def _program(tmp_path: Path, body: str, name: str = "claude") -> str:
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


async def test_placeholder_credentials_never_reach_claude_auth(tmp_path: Path) -> None:
    claude = _program(tmp_path, FAKE_CLI)
    base = {"PATH": "/usr/bin:/bin"}
    # The editor's unfilled preset is dropped, wherever it came from: Claude Code sees no token.
    for env, extra in ((base | PLACEHOLDER, {}), (base, PLACEHOLDER)):
        answer = await run_auth("status", "--json", settings=_settings(claude, extra), base=env)
        assert (answer.returncode, '"loggedIn": false' in answer.stdout) == (1, True), answer
    # A real value, and the session's own variables, are passed on.
    real = {"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-real-token"}
    answer = await run_auth("status", "--json", settings=_settings(claude, real), base=base)
    assert (answer.returncode, '"loggedIn": true' in answer.stdout) == (0, True), answer


async def test_a_missing_claude_code_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auth_command, "claude_executable", lambda: None)
    with pytest.raises(AuthCommandFailed) as failed:
        await run_auth("status")
    assert failed.value.why == "Claude Code was not found"


async def test_a_claude_code_that_cannot_start_is_named(tmp_path: Path) -> None:
    not_a_program = tmp_path / "claude"
    not_a_program.write_text("not a program\n", encoding="utf-8")  # not executable
    with pytest.raises(AuthCommandFailed) as failed:
        await run_auth("logout", executable=str(not_a_program))
    assert failed.value.why == "Claude Code could not be started"


async def test_a_claude_code_that_hangs_is_given_up_on(tmp_path: Path) -> None:
    # It sleeps far past the bound: only the bound can end the wait.
    hangs = _program(tmp_path, "import time\ntime.sleep(600)\n")
    with anyio.fail_after(120), pytest.raises(AuthCommandFailed) as failed:
        await run_auth("status", executable=hangs, timeout=1.0)
    assert failed.value.why == "Claude Code did not answer in time"


async def test_authenticate_and_logout_run_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in CREDENTIAL_VARIABLES:  # they run in this process's environment
        monkeypatch.delenv(name, raising=False)
    claude = _program(tmp_path, FAKE_CLI)
    # `authenticate`: a placeholder is no sign-in (-32000); a real key is.
    with pytest.raises(RequestError) as signed_out:
        await check_signed_in(RuntimeSettings(executable=claude, env=dict(PLACEHOLDER)))
    assert signed_out.value.code == -32000
    await check_signed_in(RuntimeSettings(executable=claude, env={"ANTHROPIC_API_KEY": "sk-x"}))
    # `authenticate` when Claude Code cannot be run: -32603 with the reason.
    broken = RuntimeSettings(executable=str(tmp_path / "nowhere"))
    with pytest.raises(RequestError) as unknown:
        await check_signed_in(broken)
    assert unknown.value.code == -32603
    assert "Claude Code could not be started" in str(unknown.value)
    # `logout`: ok, or the exit status; an unrunnable one says why.
    await logout(RuntimeSettings(executable=claude))
    with pytest.raises(RequestError) as failed:
        await logout(RuntimeSettings(executable=claude, env={"FAKE_LOGOUT_FAILS": "1"}))
    assert (failed.value.code, str(failed.value)) == (
        -32603,
        "claude auth logout failed: it exited with status 3",
    )
    with pytest.raises(RequestError) as unrunnable:
        await logout(broken)
    assert str(unrunnable.value) == "claude auth logout failed: Claude Code could not be started"


def _sign_in_line(tmp_path: Path, environ: dict[str, str]) -> tuple[str, str]:
    [line] = [c for c in run_checks(environ, tmp_path) if c.name == "signed in"]
    return line.mark, line.text


def test_doctor_drops_placeholder_credentials_as_a_session_would(tmp_path: Path) -> None:
    claude = _program(tmp_path, FAKE_CLI)
    environ = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "config"),
        "CLAUDE_CODE_EXECUTABLE": claude,
    }
    # The placeholder would have looked like a sign-in to Claude Code; a session never passes it.
    mark, text = _sign_in_line(tmp_path, environ | PLACEHOLDER)
    assert mark == FAIL and text.startswith("no: "), text
    mark, text = _sign_in_line(tmp_path, environ | {"ANTHROPIC_API_KEY": "sk-ant-api03-doctor"})
    assert mark == OK and text.startswith("yes, with oauth_token"), text


def test_doctor_names_a_claude_code_that_hangs_on_auth_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--version` answers, `auth status` never does: the doctor's line says so, no traceback.
    claude = _program(
        tmp_path,
        "import sys, time\nif sys.argv[1:] == ['--version']:\n    print('9.9.9')\n"
        "else:\n    time.sleep(600)\n",
    )
    monkeypatch.setattr("adapter.app.doctor.CLAUDE_TIMEOUT", 2.0)
    environ = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_CODE_EXECUTABLE": claude}
    mark, text = _sign_in_line(tmp_path, environ)
    assert (mark, text) == (
        FAIL,
        "unknown: `claude auth status`: Claude Code did not answer in time",
    )
