"""Why Claude Code would not start, as it says it: the reason and words of its start-up
failure result, turned into the JSON-RPC error that answers the request that started it.

Claude Code started with `CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1` writes, before it exits on a
known start-up failure, an `error_during_execution` result with `startup_failure_reason`
(`proxy_invalid`, `org_pin_mismatch`, `gateway_signin_required`, `cwd_unavailable`, ...) and
its own message in `errors` ("Invalid proxy URL in HTTPS_PROXY: ... Fix or unset HTTPS_PROXY
and restart Claude Code."). As the reference adapter sorts them: a failure that signing in
again (or with another account) can fix (`SIGN_IN`, which the shell answers as ACP's
auth-required error), a working folder Claude Code cannot use (`FOLDER`, invalid params), any
other (`OTHER`, internal); the message is Claude Code's own and the reason goes with it.

Unlike the reference, the message is scrubbed first (docs/decisions.md#titles,
docs/decisions.md#secrets, docs/decisions.md#startup-failure-words): credentials and private
values masked, every URL and `user:password@host` replaced by `…` (Claude Code quotes the
proxy setting it could not read, which may hold a password), one line, at most
`MESSAGE_LIMIT` characters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import NamedTuple

from fsm.records import redact
from fsm.visible_text import visible

__all__ = ["MESSAGE_LIMIT", "StartFailure", "StartFailureKind", "start_failure"]

MESSAGE_LIMIT = 1000
# Reasons that signing in again, or with another account, can fix.
_SIGN_IN_REASONS = frozenset({"gateway_signin_required", "org_pin_mismatch", "org_config_refused"})
_CWD_REASONS = frozenset({"cwd_unavailable"})
# Claude Code's reasons are snake_case words; anything else is not one.
_REASON = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
# A URL, up to the first space or quote, and a `user:password@host` without a scheme (a proxy
# setting may be written so): whatever they hold, a message never shows them.
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>]*")
_USER_INFO = re.compile(r"[^\s\"'<>]*:[^\s\"'<>]*@[^\s\"'<>]*")


class StartFailureKind(StrEnum):
    """What would fix it; the shell maps each to the protocol's error code."""

    SIGN_IN = "sign_in"  # signing in again, or with another account
    FOLDER = "folder"  # another working folder
    OTHER = "other"


class StartFailure(NamedTuple):
    kind: StartFailureKind
    message: str  # Claude Code's words, scrubbed
    reason: str  # `startup_failure_reason`, for `data.startupFailureReason`


def start_failure(result: object, private: tuple[str, ...] = ()) -> StartFailure | None:
    """The error for Claude Code's start-up failure `result` frame; None when it is not one
    (no reason: an older Claude Code, or a failure it gives no cause for) or says nothing."""
    if not isinstance(result, Mapping) or result.get("type", "result") != "result":
        return None
    reason = result.get("startup_failure_reason")
    if not isinstance(reason, str) or not _REASON.match(reason):
        return None
    errors = result.get("errors")
    texts = [e.strip() for e in errors if isinstance(e, str)] if isinstance(errors, list) else []
    said = " ".join(t for t in texts if t)
    message = _scrubbed(said, private)
    if not message:
        return None
    if reason in _SIGN_IN_REASONS:
        kind = StartFailureKind.SIGN_IN
    elif reason in _CWD_REASONS:
        kind = StartFailureKind.FOLDER
    else:
        kind = StartFailureKind.OTHER
    return StartFailure(kind=kind, message=message, reason=reason)


def _scrubbed(text: str, private: tuple[str, ...]) -> str:
    line = " ".join(visible(redact(text, private)).split())
    line = _USER_INFO.sub("…", _URL.sub("…", line))
    if len(line) > MESSAGE_LIMIT:
        line = line[: MESSAGE_LIMIT - 1].rstrip() + "…"
    return line
