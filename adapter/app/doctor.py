"""`claude-acp doctor`: can claude-acp work here, and if not, what to do about it.

One line per check, for a person to read: the versions (claude-acp, Python, the SDKs), the
Claude Code that claude-acp runs (found, executable, starting, its version), whether that Claude
Code is signed in (its own `claude auth status`) and how to sign in, the config folder, the
settings and MCP files Claude Code reads for a session started in this folder (and whether each
parses), where logs and the wire trace go, and then a Zed configuration ready to paste.

A line starts with `ok`, `FAIL` (claude-acp cannot work until it is fixed), `warn` (it works,
but not as configured) or `--` (a fact, nothing to do). The exit status is 1 when any line
says FAIL, else 0. Nothing raises out of here: a check that breaks says so on its line. What
Claude Code prints and every error text are masked as log lines are
(`adapter/app/log_masking.py`): no key, token or secret-named environment value is printed.
Paths under the home folder are shown as `~/...`, except the command in the editor
configuration, which the editor needs whole.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Any

import anyio

from adapter.app.log_masking import mask_log_text
from adapter.app.logs import LOG_FILE_ENV, LOG_LEVEL_ENV
from adapter.claude.executable import claude_executable

__all__ = ["Check", "main", "run_checks", "zed_configuration"]

TRACE_FILE_ENV = "CLAUDE_ACP_TRACE_FILE"
EXECUTABLE_ENV = "CLAUDE_CODE_EXECUTABLE"
# How long Claude Code may take to print its version or its sign-in status (it starts in about
# a second; a cold disk or a scanner can make that much longer).
CLAUDE_TIMEOUT = 60.0

OK, FAIL, WARN, INFO = "ok", "FAIL", "warn", "--"

HELP = """usage: claude-acp doctor

Check whether claude-acp can work here: Claude Code found and starting, signed in, the config
folder, the settings and MCP files that apply to a session started in this folder, where logs
and traces go; then print a Zed configuration to paste. Exit status 1 when something must be
fixed first (the FAIL lines say what and how), else 0."""

SIGN_IN_HOW = (
    "run `claude-acp login` in a terminal (a Claude.ai subscription: `claude-acp login "
    "--claudeai`; Console API billing: `claude-acp login --console`), or give the editor "
    "ANTHROPIC_API_KEY in the agent's environment"
)
BUNDLED_HOW = "reinstall claude-acp (its claude-agent-sdk dependency bundles Claude Code)"


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the report: its mark, what was checked, and what was found (with the fix)."""

    mark: str
    name: str
    text: str

    def line(self) -> str:
        return f"{self.mark:<5} {self.name:<17} {self.text}"


class _Shown:
    """Text as doctor prints it: home as `~`, secrets masked, on one line."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        home = environ.get("HOME") or str(Path.home())
        self._home = home.rstrip("/") if len(home.rstrip("/")) > 1 else ""

    def path(self, path: Path | str) -> str:
        text = str(path)
        if self._home and (text == self._home or text.startswith(self._home + "/")):
            text = "~" + text[len(self._home) :]
        return self.text(text)

    def text(self, text: str) -> str:
        # `~/...` is not a home path to the masking, so only secrets and controls change.
        return mask_log_text(text)


def _dist(name: str) -> str:
    try:
        return dist_version(name)
    except PackageNotFoundError:
        return "not installed"


def _versions(shown: _Shown) -> Check:
    text = (
        f"claude-acp {_dist('claude-acp')} on Python {platform.python_version()} "
        f"({shown.path(sys.executable)}); claude-agent-sdk {_dist('claude-agent-sdk')}, "
        f"agent-client-protocol {_dist('agent-client-protocol')}"
    )
    return Check(OK, "versions", text)


@dataclass(frozen=True, slots=True)
class _Claude:
    """The Claude Code found, how it was chosen, and whether it can be started."""

    path: str | None
    origin: str
    problem: str | None


def _find_claude(environ: Mapping[str, str], shown: _Shown) -> _Claude:
    configured = environ.get(EXECUTABLE_ENV)
    if configured:
        origin = f"{EXECUTABLE_ENV}={shown.path(configured)}"
        fix = (
            f"point {EXECUTABLE_ENV} at Claude Code's `claude` program, or unset it to use "
            "the Claude Code bundled with claude-acp"
        )
        target = Path(configured)
        try:
            mode = target.stat().st_mode
        except FileNotFoundError:
            return _Claude(configured, origin, f"{origin} does not exist: {fix}")
        except OSError as exc:
            return _Claude(configured, origin, f"{origin} cannot be read ({exc.strerror}): {fix}")
        if stat.S_ISDIR(mode):
            return _Claude(configured, origin, f"{origin} is a folder, not a program: {fix}")
        if not os.access(target, os.X_OK) or not mode & 0o111:
            return _Claude(
                configured,
                origin,
                f"{origin} is not executable: make it so (chmod +x) or {fix[0].lower()}{fix[1:]}",
            )
        return _Claude(configured, origin, None)
    found = claude_executable()
    if found is None:
        return _Claude(None, "bundled", f"Claude Code was not found: {BUNDLED_HOW}")
    bundled = "_bundled" in Path(found).parts
    origin = "bundled with claude-agent-sdk" if bundled else "`claude` on PATH"
    return _Claude(found, origin, None)


def _run_claude(path: str, args: list[str], environ: Mapping[str, str]) -> tuple[int, str, str]:
    done = subprocess.run(
        [path, *args],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=CLAUDE_TIMEOUT,
        check=False,
        stdin=subprocess.DEVNULL,
        env=dict(environ),
    )
    return done.returncode, done.stdout, done.stderr


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _claude_code(claude: _Claude, environ: Mapping[str, str], shown: _Shown) -> Check:
    if claude.problem is not None or claude.path is None:
        return Check(FAIL, "Claude Code", claude.problem or "not found")
    where = shown.path(claude.path)
    fix = (
        f"unset {EXECUTABLE_ENV} to use the bundled one"
        if claude.origin.startswith(EXECUTABLE_ENV)
        else BUNDLED_HOW
    )
    try:
        status, out, err = _run_claude(claude.path, ["--version"], environ)
    except subprocess.TimeoutExpired:
        return Check(FAIL, "Claude Code", f"{where} did not start within {CLAUDE_TIMEOUT:.0f} s")
    except OSError as exc:
        return Check(FAIL, "Claude Code", f"{where} does not start ({exc.strerror}): {fix}")
    if status != 0:
        said = _first_line(err) or _first_line(out) or f"exit status {status}"
        return Check(FAIL, "Claude Code", f"{where} does not start ({shown.text(said)}): {fix}")
    version = _first_line(out) or "version not printed"
    return Check(OK, "Claude Code", f"{shown.text(version)}, {claude.origin}: {where}")


def _sign_in(claude: _Claude, environ: Mapping[str, str], shown: _Shown) -> Check:
    if claude.problem is not None or claude.path is None:
        return Check(FAIL, "signed in", "unknown until Claude Code starts (see above)")
    # As `authenticate` asks it: placeholder credentials dropped, as a session would drop them.
    from adapter.claude.auth_command import AuthCommandFailed, run_auth

    try:
        done = anyio.run(
            functools.partial(
                run_auth,
                "status",
                "--json",
                executable=claude.path,
                base=environ,
                timeout=CLAUDE_TIMEOUT,
            )
        )
    except AuthCommandFailed as exc:
        return Check(FAIL, "signed in", f"unknown: `claude auth status`: {exc.why}")
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or not isinstance(answer.get("loggedIn"), bool):
        status = f"exit status {done.returncode}"
        said = _first_line(done.stderr) or _first_line(done.stdout) or status
        return Check(FAIL, "signed in", f"unknown: `claude auth status` said {shown.text(said)!r}")
    if not answer["loggedIn"]:
        return Check(FAIL, "signed in", f"no: {SIGN_IN_HOW}")
    return Check(OK, "signed in", shown.text(_how_signed_in(answer)))


def _how_signed_in(answer: Mapping[str, Any]) -> str:
    """`yes, with ...` from `claude auth status --json` (method, key source, provider)."""
    method = answer.get("authMethod")
    parts = [f"yes, with {method}" if isinstance(method, str) and method else "yes"]
    source = answer.get("apiKeySource")
    if isinstance(source, str) and source:
        parts.append(f"from {source}")
    provider = answer.get("apiProvider")
    if isinstance(provider, str) and provider and provider != "firstParty":
        parts.append(f"through {provider}")
    return " ".join(parts) + " (in this terminal's environment; the editor's may differ)"


def _config_home(environ: Mapping[str, str]) -> Path:
    configured = environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured)
    home = environ.get("HOME")
    return (Path(home) if home else Path.home()) / ".claude"


def _config_dir(config: Path, environ: Mapping[str, str], shown: _Shown) -> Check:
    where = shown.path(config)
    source = "CLAUDE_CONFIG_DIR" if environ.get("CLAUDE_CONFIG_DIR") else "the default"
    fix = "point CLAUDE_CONFIG_DIR at a folder you own, or unset it to use ~/.claude"
    try:
        mode = config.stat().st_mode
    except FileNotFoundError:
        return Check(OK, "config dir", f"{where} ({source}): not there yet; signing in makes it")
    except OSError as exc:
        return Check(
            FAIL, "config dir", f"{where} ({source}) cannot be read: {exc.strerror}; {fix}"
        )
    if not stat.S_ISDIR(mode):
        return Check(FAIL, "config dir", f"{where} ({source}) is not a folder: {fix}")
    try:
        next(iter(os.scandir(config)), None)
        writable = os.access(config, os.W_OK | os.X_OK)
    except OSError as exc:
        return Check(
            FAIL,
            "config dir",
            f"{where} ({source}) cannot be read: {exc.strerror}; give yourself access "
            f"(chmod u+rwx) or {fix[0].lower()}{fix[1:]}",
        )
    if not writable:
        return Check(
            FAIL,
            "config dir",
            f"{where} ({source}) is read-only: Claude Code keeps sessions there; give yourself "
            f"write access (chmod u+rwx) or {fix[0].lower()}{fix[1:]}",
        )
    return Check(OK, "config dir", f"{where} ({source})")


def _managed_settings() -> Path:
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode/managed-settings.json")
    return Path("/etc/claude-code/managed-settings.json")


def _json_file(
    path: Path, shown: _Shown, *, name: str, what: str, summary: Callable[[Any], str]
) -> Check:
    """A settings or MCP file: absent, parsing (with `summary` of it), or broken and how."""
    where = shown.path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Check(INFO, name, f"{where}: not present")
    except IsADirectoryError:
        return Check(WARN, name, f"{where} is a folder, not a file: Claude Code ignores it")
    except OSError as exc:
        return Check(
            WARN,
            name,
            f"{where} cannot be read ({exc.strerror}): Claude Code skips it; fix its "
            "permissions (chmod u+r)",
        )
    try:
        data = json.loads(raw)
    except UnicodeDecodeError:
        problem = "not UTF-8 text"
    except ValueError as exc:
        # The parser's message names only the place (line, column), never the file's text.
        problem = f"not valid JSON ({getattr(exc, 'msg', 'invalid')} at line "
        problem += f"{getattr(exc, 'lineno', '?')}, column {getattr(exc, 'colno', '?')})"
    else:
        if not isinstance(data, dict):
            problem = "not a JSON object"
        else:
            return Check(OK, name, f"{where}: parses{summary(data)}")
    return Check(
        WARN, name, f"{where} is {problem}: Claude Code cannot use its {what}; fix or remove it"
    )


def _no_summary(_data: Any) -> str:
    return ""


def _servers(data: Any, cwd: Path | None = None) -> str:
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    count = len(servers) if isinstance(servers, dict) else 0
    if cwd is not None:  # `~/.claude.json` also holds servers added for one project
        projects = data.get("projects") if isinstance(data, dict) else None
        project = projects.get(str(cwd)) if isinstance(projects, dict) else None
        local = project.get("mcpServers") if isinstance(project, dict) else None
        count += len(local) if isinstance(local, dict) else 0
    return f", {count} MCP server{'s' if count != 1 else ''} for this folder"


def _files(config: Path, cwd: Path, environ: Mapping[str, str], shown: _Shown) -> list[Check]:
    """Claude Code's settings and MCP files for a session started in `cwd`."""
    checks = [
        _json_file(path, shown, name=f"{scope} settings", what="settings", summary=_no_summary)
        for scope, path in (
            ("managed", _managed_settings()),
            ("user", config / "settings.json"),
            ("project", cwd / ".claude" / "settings.json"),
            ("local", cwd / ".claude" / "settings.local.json"),
        )
    ]
    # Claude Code keeps user and per-project MCP servers in `.claude.json`: inside the config
    # folder when CLAUDE_CONFIG_DIR is set, else beside `~/.claude`.
    user_state = (
        config / ".claude.json"
        if environ.get("CLAUDE_CONFIG_DIR")
        else config.parent / ".claude.json"
    )
    checks.append(
        _json_file(
            user_state,
            shown,
            name="user MCP",
            what="MCP servers",
            summary=lambda data: _servers(data, cwd),
        )
    )
    checks.append(
        _json_file(
            cwd / ".mcp.json", shown, name="project MCP", what="MCP servers", summary=_servers
        )
    )
    return checks


def _logs(environ: Mapping[str, str], shown: _Shown) -> list[Check]:
    level = (environ.get(LOG_LEVEL_ENV) or "WARNING").upper()
    log_file = environ.get(LOG_FILE_ENV)
    stderr = f"stderr at {level} ({LOG_LEVEL_ENV}), which the editor keeps"
    if log_file:
        logs = Check(INFO, "logs", f"{stderr}, and {shown.path(log_file)} ({LOG_FILE_ENV})")
    else:
        logs = Check(
            INFO, "logs", f"{stderr}; for a file, set {LOG_FILE_ENV} or pass --log-file FILE"
        )
    trace_file = environ.get(TRACE_FILE_ENV)
    if trace_file:
        trace = Check(
            INFO, "wire trace", f"{shown.path(trace_file)} ({TRACE_FILE_ENV}; it holds prompts)"
        )
    else:
        trace = Check(
            INFO, "wire trace", f"off; set {TRACE_FILE_ENV} or pass --trace FILE to record one"
        )
    return [logs, trace]


def run_checks(environ: Mapping[str, str], cwd: Path) -> Iterator[Check]:
    """Every check, in the order a person reads them; a check that breaks becomes a FAIL line."""
    shown = _Shown(environ)
    config = _config_home(environ)
    steps: list[tuple[str, Callable[[], list[Check]]]] = [
        ("versions", lambda: [_versions(shown)]),
    ]
    claude: list[_Claude] = []

    def claude_checks() -> list[Check]:
        claude.append(_find_claude(environ, shown))
        return [_claude_code(claude[0], environ, shown), _sign_in(claude[0], environ, shown)]

    steps += [
        ("Claude Code", claude_checks),
        ("config dir", lambda: [_config_dir(config, environ, shown)]),
        ("files", lambda: _files(config, cwd, environ, shown)),
        ("logs", lambda: _logs(environ, shown)),
    ]
    for name, step in steps:
        try:
            yield from step()
        except Exception as exc:  # a check of ours that broke: say so, check the rest
            yield Check(FAIL, name, f"could not be checked ({type(exc).__name__}); please report")


def _self_command() -> list[str]:
    """How an editor starts this claude-acp: its console script's absolute path if it has one,
    else this Python with `-m adapter`."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if Path(argv0).name == "claude-acp":
        found = shutil.which(argv0) if os.sep not in argv0 else argv0
        if found:
            return [os.path.abspath(found)]
    beside = Path(sys.executable).with_name("claude-acp")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    on_path = shutil.which("claude-acp")
    if on_path:
        return [os.path.abspath(on_path)]
    return [sys.executable, "-m", "adapter"]


def zed_configuration(command: list[str]) -> str:
    """Zed's `agent_servers` entry for `command`, as JSON to paste into its settings.json."""
    entry = {"type": "custom", "command": command[0], "args": command[1:], "env": {}}
    return json.dumps({"agent_servers": {"Claude (claude-acp)": entry}}, indent=2)


def main(args: list[str], environ: Mapping[str, str] | None = None) -> int:
    """`claude-acp doctor`: print the checks and the editor configuration; 1 if any FAIL."""
    if args and args[0] in ("-h", "--help"):
        print(HELP)
        return 0
    if args:
        print(f"claude-acp doctor takes no arguments (got {args[0]!r})", file=sys.stderr)
        return 2
    env = os.environ if environ is None else environ
    try:
        cwd = Path.cwd()
    except OSError:  # the folder we were started in is gone
        cwd = Path(env.get("PWD") or "/")
    where = _Shown(env).path(cwd)
    print(f"claude-acp doctor: can claude-acp work for a session started in {where}?")
    failed = False
    for check in run_checks(env, cwd):
        failed = failed or check.mark == FAIL
        print(check.line(), flush=True)
    print("\nZed: paste into settings.json (other editors: the README's editor section)")
    print(zed_configuration(_self_command()))
    if failed:
        print("\nclaude-acp cannot work here yet: fix the FAIL lines above, then run doctor again.")
        return 1
    print("\nclaude-acp can work here.")
    return 0
