"""Whether Claude Code is signed in, in its own words (`claude auth status`).

Theory of operation: `authenticate` must not say ok while the user is still signed out (an editor
would loop: sign in, ok, prompt, sign-in needed). Sign-in happens outside the adapter (the
client's terminal method runs `claude-acp login`, or the user sets a key), so the adapter asks the
Claude Code it runs: `claude auth status --json`, which answers `{"loggedIn": true|false, ...}`
(exit status 1 when signed out) from its local credentials and environment. `check_signed_in`
answers nothing when signed in, and raises `-32000` with the hint that names what works from an
editor when not. When Claude Code cannot tell (it does not start, does not answer in time, or
answers something else), the answer is `-32603` naming which: never a false ok
(docs/decisions.md#sign-in-that-leads-somewhere). What Claude Code
printed goes to our log only (it may name private paths). The run itself is
`adapter.claude.auth_command`'s.
"""

from __future__ import annotations

import json
import logging

from acp import RequestError

from adapter.claude.auth_command import AUTH_TIMEOUT_SECONDS, run_auth
from adapter.claude.runtime_settings import RuntimeSettings
from fsm import AUTH_REQUIRED_MESSAGE, SIGN_IN_HINT

__all__ = ["AUTH_STATUS_TIMEOUT_SECONDS", "check_signed_in", "not_signed_in"]

log = logging.getLogger(__name__)

# `auth status` reads local credentials only: a CLI that takes longer has hung.
AUTH_STATUS_TIMEOUT_SECONDS = AUTH_TIMEOUT_SECONDS


def not_signed_in() -> RequestError:
    """ACP's "authentication required", with what to do from an editor."""
    return RequestError(-32000, AUTH_REQUIRED_MESSAGE)


def _unknown(why: str) -> RequestError:
    return RequestError(-32603, f"Could not check the sign-in to Claude: {why}")


async def check_signed_in(settings: RuntimeSettings) -> str:
    """Claude Code's answer (what it printed) when it says the user is signed in; else -32000
    (signed out) or -32603 (Claude Code could not say)."""
    timeout = AUTH_STATUS_TIMEOUT_SECONDS
    done = await run_auth("status", "--json", settings=settings, timeout=timeout, failure=_unknown)
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        answer = None
    signed_in = answer.get("loggedIn") if isinstance(answer, dict) else None
    if signed_in is True:
        return done.stdout
    if signed_in is False:
        log.warning("Claude Code is not signed in. %s", SIGN_IN_HINT)
        raise not_signed_in()
    log.info(
        "claude auth status (exit status %s) said: %s %s",
        done.returncode,
        done.stdout.strip()[:500],
        done.stderr.strip()[:500],
    )
    raise _unknown(f"Claude Code's answer was not understood (exit status {done.returncode})")
