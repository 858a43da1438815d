"""Fault scenarios: Claude's process dying at every point of a turn, and frames that are broken.

Theory of operation: like `scenarios.py`, each entry is data. The deaths walk through a turn in
order (at the prompt before any frame, after an assistant error but before the result, right
after the result; `crash_mid_turn` and `no_result` in `scenarios.py` cover mid-stream); the
broken frames (`broken_frames.py`, registered here in order) each sit between two good texts.
Turn 2 and later play the plain success turn, except in `rate_limit_every_turn`.

`hostile_text` is Claude error prose full of things that must never reach a title (keys, tokens,
a URL with a password, private paths, the value of `$HOME`); the `hostile_error` scenario plays
it with the `$HOME` of the fake's own environment, which is the adapter's.

Imported by the fake CLI at startup: standard library only.
"""

from __future__ import annotations

import os

from adapter.scripted_claude.broken_frames import BAD_FRAME_SCENARIOS, FAULT_SESSION_ID
from adapter.scripted_claude.steps import (
    AssistantError,
    DieAtPrompt,
    Exit,
    Hang,
    IgnoreSigterm,
    KillSelf,
    RawFrame,
    Reply,
    Result,
    Scenario,
    StartupFailure,
    Text,
    TurnScript,
)
from adapter.scripted_claude.texts import TEXTS

__all__ = [
    "FAULT_SCENARIOS",
    "HOSTILE_SECRETS",
    "STARTUP_FAILURES",
    "hostile_text",
]

# Credential shapes planted in `hostile_text` (the `$HOME` value is added per environment).
HOSTILE_SECRETS: tuple[str, ...] = (
    "sk-ant-api03-Xq9vT2mB7nK4pL8sR1wE6yU3iO0aZ5cV-hostileKEY_42AA",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLWhvc3RpbGU",
    "alice:hunter2-hostile@",
    "hunter2-hostile",
    "/home/alice/project/.env",
    "/root/.claude/credentials.json",
)


def hostile_text(home: str, api_key: str = "") -> str:
    """Claude error prose carrying every secret in `HOSTILE_SECRETS`, and `home` (a `$HOME`)
    and, when given, `api_key` (an `$ANTHROPIC_API_KEY` of no known shape)."""
    echoed = f"with key {api_key} " if api_key else ""
    return (
        f"API Error: 500 upstream rejected the key {echoed}"
        "sk-ant-api03-Xq9vT2mB7nK4pL8sR1wE6yU3iO0aZ5cV-hostileKEY_42AA sent with "
        "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSJ9."
        "c2lnbmF0dXJlLWhvc3RpbGU via https://alice:hunter2-hostile@proxy.example.test/v1/messages "
        "after reading /home/alice/project/.env and /root/.claude/credentials.json "
        f"in {home} today. Please try again later."
    )


def _one(name: str, description: str, turn: TurnScript) -> Scenario:
    return Scenario(name=name, description=description, turns=(turn,))


_RESULT_WITHOUT_SUBTYPE = {
    "type": "result",
    "is_error": False,
    "duration_ms": 5,
    "duration_api_ms": 5,
    "num_turns": 1,
    "result": "Done.",
    "session_id": FAULT_SESSION_ID,
    "uuid": "00000000-0000-4000-8000-0000000000a1",
}

_RATE_LIMITED: TurnScript = (
    AssistantError(error="rate_limit", text=TEXTS["rate_limit"], api_error_status=429),
    Result(
        is_error=True,
        result=TEXTS["rate_limit"],
        api_error_status=429,
        terminal_reason="api_error",
        stop_reason="stop_sequence",
    ),
)

# The fake's environment is the adapter's: its $HOME, and its own API key when it has one.
_HOSTILE = hostile_text(os.environ.get("HOME", "/root"), os.environ.get("ANTHROPIC_API_KEY", ""))

# Start-up failures Claude Code explains (with CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1), in the
# real CLI 2.1.332's words where a test has seen them (proxy_invalid), else in its manner.
STARTUP_FAILURES = {
    "proxy_invalid": (
        'Invalid proxy URL in HTTPS_PROXY: "http://proxyuser:hunter2secret@" cannot be parsed '
        "as a URL.\nProxy settings must be a complete URL including the scheme, e.g. "
        '"http://proxy.example.com:8080".\nFix or unset HTTPS_PROXY and restart Claude Code.'
    ),
    "gateway_signin_required": (
        "The Cloud gateway ended this sign-in. Sign in again to keep using Claude Code."
    ),
    "org_pin_mismatch": (
        "This machine is pinned to another organization. Sign in with an account of that "
        "organization."
    ),
    "cwd_unavailable": "The working directory was deleted or moved. Open another folder.",
}


def _startup_failure(reason: str) -> Scenario:
    return Scenario(
        name=f"startup_{reason}",
        description=f"Claude Code will not start ({reason}) and says why, then exits 1.",
        before_handshake=(
            StartupFailure(reason=reason, message=STARTUP_FAILURES[reason]),
            Exit(code=1),
        ),
    )


FAULT_SCENARIOS: tuple[Scenario, ...] = (
    *(_startup_failure(reason) for reason in STARTUP_FAILURES),
    # --- the process dies, at every point of a turn ------------------------------------------
    _one(
        "die_at_prompt",
        "SIGKILL the moment the prompt arrives, before any frame of the turn.",
        (DieAtPrompt(),),
    ),
    _one(
        "exit_zero_at_prompt",
        "Exit 0 the moment the prompt arrives, before any frame of the turn (no result).",
        (DieAtPrompt(code=0),),
    ),
    _one(
        "die_after_error",
        "The synthetic rate-limit error message, then exit 1 before the result.",
        (
            Text(text="Let me check that."),
            AssistantError(error="rate_limit", text=TEXTS["rate_limit"], api_error_status=429),
            Exit(code=1),
        ),
    ),
    _one(
        "idle_at_prompt",
        "The turn opens (running, system/init) and goes idle at once: no message, no result.",
        (),
    ),
    _one(
        "die_after_result",
        "A complete successful turn, then SIGKILL right after the result.",
        (Reply(), Result(), KillSelf()),
    ),
    # --- lines and frames the SDK or the adapter cannot take: broken_frames.py --------------
    *BAD_FRAME_SCENARIOS,
    _one(
        "result_missing_subtype",
        "A text, then a result frame without `subtype`; the turn then goes idle.",
        (Reply(), RawFrame(frame=_RESULT_WITHOUT_SUBTYPE)),
    ),
    # --- large messages, and a Claude that will not stop ------------------------------------
    _one(
        "large_message",
        "One 6 MiB assistant text (a big file read, a screenshot echoed back), then a result.",
        (Text(text="0123456789abcdef", repeat=6 * 1024 * 1024 // 16), Result()),
    ),
    _one(
        "ignore_sigterm",
        "A text, then nothing until stdin closes, with SIGTERM ignored (only SIGKILL works).",
        (IgnoreSigterm(), Text(text="Working, and not stopping for SIGTERM."), Hang()),
    ),
    # --- many turns ---------------------------------------------------------------------------
    Scenario(
        name="rate_limit_every_turn",
        description="Every turn (the first 5,000) fails with a 429 rate_limit error.",
        turns=(_RATE_LIMITED,) * 5_000,
    ),
    # --- hostile Claude text -----------------------------------------------------------------
    _one(
        "hostile_error",
        "A server_error whose text carries keys, tokens, a password URL, paths and $HOME.",
        (
            AssistantError(
                error="server_error",
                text=_HOSTILE,
                api_error_status=500,
            ),
            Result(
                is_error=True,
                result=_HOSTILE,
                api_error_status=500,
                terminal_reason="api_error",
                stop_reason="stop_sequence",
            ),
        ),
    ),
)
