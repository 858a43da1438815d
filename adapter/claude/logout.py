"""Signing out: `claude auth logout` through the Claude Code the adapter runs.

As the reference adapter does, the adapter runs the CLI's own
non-interactive sign-out; Claude Code clears its credential store itself. A failure is -32603
with a fixed message: the CLI's stderr may name private paths, so it goes to our log only.
"""

from __future__ import annotations

import logging
import os
import subprocess

import anyio
from acp import RequestError

from adapter.claude.executable import claude_executable
from adapter.claude.runtime_settings import RuntimeSettings

__all__ = ["LOGOUT_TIMEOUT_SECONDS", "logout"]

log = logging.getLogger(__name__)

# Signing out only clears local credentials: a CLI that takes longer has hung.
LOGOUT_TIMEOUT_SECONDS = 30.0


def _failed(why: str) -> RequestError:
    return RequestError(-32603, f"claude auth logout failed: {why}")


async def logout(settings: RuntimeSettings) -> None:
    executable = settings.executable or claude_executable()
    if executable is None:
        raise _failed("Claude Code was not found")
    try:
        with anyio.fail_after(LOGOUT_TIMEOUT_SECONDS):
            done = await anyio.run_process(
                [executable, "auth", "logout"],
                env={**os.environ, **settings.env},
                stdin=subprocess.DEVNULL,
                check=False,
            )
    except TimeoutError as exc:
        raise _failed("it did not finish in time") from exc
    except OSError as exc:
        log.info("claude auth logout could not start: %s", exc)
        raise _failed("Claude Code could not be started") from exc
    if done.returncode != 0:
        log.info("claude auth logout: %s", done.stderr.decode("utf-8", "replace").strip())
        raise _failed(f"it exited with status {done.returncode}")
