"""Signing out: `claude auth logout` through the Claude Code the adapter runs.

As the reference adapter does (docs/reference-adapter.md#auth-status), the adapter runs the
CLI's own non-interactive sign-out; Claude Code clears its credential store itself. A failure
is -32603 with a fixed message: the CLI's stderr may name private paths, so it goes to our log
only.
"""

from __future__ import annotations

import logging

from acp import RequestError

from adapter.claude.auth_command import AUTH_TIMEOUT_SECONDS, run_auth
from adapter.claude.runtime_settings import RuntimeSettings

__all__ = ["LOGOUT_TIMEOUT_SECONDS", "logout"]

log = logging.getLogger(__name__)

# Signing out only clears local credentials: a CLI that takes longer has hung.
LOGOUT_TIMEOUT_SECONDS = AUTH_TIMEOUT_SECONDS


def _failed(why: str) -> RequestError:
    return RequestError(-32603, f"claude auth logout failed: {why}")


async def logout(settings: RuntimeSettings) -> None:
    done = await run_auth(
        "logout", settings=settings, timeout=LOGOUT_TIMEOUT_SECONDS, failure=_failed
    )
    if done.returncode != 0:
        log.info("claude auth logout: %s", done.stderr.strip())
        raise _failed(f"it exited with status {done.returncode}")
