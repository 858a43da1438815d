"""Running `claude auth …`: how the adapter asks the Claude Code it runs about its sign-in.

Theory of operation: `authenticate` (`claude auth status --json`), `logout` (`claude auth logout`)
and `claude-acp doctor` all run the same CLI the same way: the configured executable (or the one
bundled with the SDK), with stdin closed, the adapter's environment plus the session's extra
variables, and a bound on how long it may take (these commands read or clear local credentials
only: a CLI that takes longer has hung). The environment has its placeholder credentials dropped
(`adapter.claude.credential_env`), as every Claude Code process the adapter starts does, so that
the answer is about the sign-in a session would really use. `run_auth` returns what the CLI said
and its exit status, whatever they are; what they mean is the caller's. When the CLI cannot be
run at all it raises `AuthCommandFailed` with a reason a person can read (no path, no output:
what the CLI or the OS said goes to the log only).
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import anyio

from adapter.claude.credential_env import drop_placeholders
from adapter.claude.executable import claude_executable
from adapter.claude.runtime_settings import RuntimeSettings

__all__ = [
    "AUTH_TIMEOUT_SECONDS",
    "AuthAnswer",
    "AuthCommandFailed",
    "auth_command_line",
    "run_auth",
]

log = logging.getLogger(__name__)

# `claude auth status` and `logout` touch local credentials only.
AUTH_TIMEOUT_SECONDS = 30.0


class AuthCommandFailed(Exception):
    """`claude auth …` could not be run; `why` says so for a person."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass(frozen=True, slots=True)
class AuthAnswer:
    """What `claude auth …` printed and how it exited."""

    returncode: int
    stdout: str
    stderr: str


def auth_command_line(
    args: Sequence[str],
    settings: RuntimeSettings | None = None,
    executable: str | None = None,
    base: Mapping[str, str] | None = None,
) -> tuple[list[str], dict[str, str]] | None:
    """The argv and environment of `claude auth *args` as `run_auth` runs it; None when no
    Claude Code was found."""
    if settings is not None:
        executable = settings.executable or executable
    executable = executable or claude_executable()
    if executable is None:
        return None
    extra = settings.env if settings is not None else {}
    environ = {**(os.environ if base is None else base), **extra}
    drop_placeholders(environ, "the environment of `claude auth`")
    return [executable, "auth", *args], environ


async def run_auth(
    *args: str,
    settings: RuntimeSettings | None = None,
    executable: str | None = None,
    base: Mapping[str, str] | None = None,
    timeout: float = AUTH_TIMEOUT_SECONDS,
    failure: Callable[[str], Exception] = AuthCommandFailed,
) -> AuthAnswer:
    """Run `claude auth *args` with the Claude Code of `settings` (else `executable`, else the
    one found), in `base` (default: this process's environment) plus the settings' extra
    variables, placeholder credentials dropped. When it cannot be run: `failure(why)`."""
    line = auth_command_line(args, settings, executable, base)
    if line is None:
        raise failure("Claude Code was not found")
    argv, environ = line
    command = " ".join(["claude auth", *args[:1]])
    try:
        with anyio.fail_after(timeout):
            done = await anyio.run_process(
                argv,
                env=environ,
                stdin=subprocess.DEVNULL,
                check=False,
            )
    except TimeoutError as exc:
        raise failure("Claude Code did not answer in time") from exc
    except OSError as exc:
        log.info("%s could not start: %s", command, exc)
        raise failure("Claude Code could not be started") from exc
    return AuthAnswer(
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )
