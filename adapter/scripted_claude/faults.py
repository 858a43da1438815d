"""Fault scenarios: Claude's process dying at every point of a turn, and frames that are broken.

Theory of operation: like `scenarios.py`, each entry is data. The deaths walk through a turn in
order (at the prompt before any frame, after an assistant error but before the result, right
after the result; `crash_mid_turn` and `no_result` in `scenarios.py` cover mid-stream); the
broken frames each sit between two good texts, so a test can see whether the turn went on past
them. Turn 2 and later play the plain success turn, except in `rate_limit_every_turn`.

`hostile_text` is Claude error prose full of things that must never reach a title (keys, tokens,
a URL with a password, private paths, the value of `$HOME`); the `hostile_error` scenario plays
it with the `$HOME` of the fake's own environment, which is the adapter's.

Imported by the fake CLI at startup: standard library only.
"""

from __future__ import annotations

import os

from adapter.scripted_claude.steps import (
    AssistantError,
    DieAtPrompt,
    Exit,
    Garbage,
    Hang,
    IgnoreSigterm,
    KillSelf,
    RawFrame,
    Reply,
    Result,
    Scenario,
    Text,
    TurnScript,
)
from adapter.scripted_claude.texts import TEXTS

__all__ = [
    "AFTER_BAD_FRAME",
    "BEFORE_BAD_FRAME",
    "FAULT_SCENARIOS",
    "HOSTILE_SECRETS",
    "hostile_text",
]

# The texts on either side of a broken frame: both reach the client iff the turn went on.
BEFORE_BAD_FRAME = "Reading the repository before the odd frame."
AFTER_BAD_FRAME = "Still here after the odd frame."

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


def _bad_frame(name: str, description: str, *broken: RawFrame | Garbage) -> Scenario:
    # A good text, the broken frame(s), another good text and a clean result.
    turn: TurnScript = (Text(text=BEFORE_BAD_FRAME), *broken, Text(text=AFTER_BAD_FRAME), Result())
    return Scenario(name=name, description=description, turns=(turn,))


def _one(name: str, description: str, turn: TurnScript) -> Scenario:
    return Scenario(name=name, description=description, turns=(turn,))


_SESSION = "00000000-0000-4000-8000-00000000fa17"

_RESULT_WITHOUT_SUBTYPE = {
    "type": "result",
    "is_error": False,
    "duration_ms": 5,
    "duration_api_ms": 5,
    "num_turns": 1,
    "result": "Done.",
    "session_id": _SESSION,
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

FAULT_SCENARIOS: tuple[Scenario, ...] = (
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
    # --- lines and frames the SDK or the adapter cannot take ---------------------------------
    _bad_frame(
        "non_json_line",
        "A line that is not JSON in the middle of a turn, which then goes on.",
        Garbage(line="[SandboxDebug] sandbox ready, this line is not JSON"),
    ),
    _bad_frame(
        "truncated_json_line",
        "A JSON line cut off mid-object in the middle of a turn.",
        Garbage(line='{"type":"assistant","message":{"role":"assistant","content":[{"ty'),
    ),
    _bad_frame(
        "unknown_frame_type",
        "A frame of a type no SDK knows, in the middle of a turn.",
        RawFrame(frame={"type": "hologram", "session_id": _SESSION, "payload": {"x": 1}}),
    ),
    _bad_frame(
        "retry_attempt_not_a_number",
        'An api_retry whose attempt is "x".',
        RawFrame(
            frame={
                "type": "system",
                "subtype": "api_retry",
                "attempt": "x",
                "max_retries": 10,
                "retry_delay_ms": 500,
                "error_status": 529,
                "error": "overloaded",
                "session_id": _SESSION,
                "uuid": "00000000-0000-4000-8000-0000000000a2",
            }
        ),
    ),
    _bad_frame(
        "assistant_content_not_a_list",
        "An assistant frame whose message.content is a string, not a list of blocks.",
        RawFrame(
            frame={
                "type": "assistant",
                "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": "hi"},
                "parent_tool_use_id": None,
                "session_id": _SESSION,
            }
        ),
    ),
    _bad_frame(
        "rate_limit_event_without_info",
        "A rate_limit_event frame with no rate_limit_info.",
        RawFrame(
            frame={
                "type": "rate_limit_event",
                "session_id": _SESSION,
                "uuid": "00000000-0000-4000-8000-0000000000a3",
            }
        ),
    ),
    _bad_frame(
        "text_block_not_a_string",
        "An assistant text block whose text is a number.",
        RawFrame(
            frame={
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": 42}],
                },
                "parent_tool_use_id": None,
                "session_id": _SESSION,
            }
        ),
    ),
    _bad_frame(
        "assistant_message_not_an_object",
        "An assistant frame whose message is a string.",
        RawFrame(frame={"type": "assistant", "message": "oops", "session_id": _SESSION}),
    ),
    _bad_frame(
        "rate_limit_info_not_an_object",
        "A rate_limit_event whose rate_limit_info is a string.",
        RawFrame(
            frame={
                "type": "rate_limit_event",
                "rate_limit_info": "rejected",
                "session_id": _SESSION,
                "uuid": "00000000-0000-4000-8000-0000000000a4",
            }
        ),
    ),
    _bad_frame(
        "tool_use_with_wrong_types",
        "An assistant tool_use block whose id is a number and whose input is a string.",
        RawFrame(
            frame={
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": 7, "name": "Bash", "input": "ls"}],
                },
                "parent_tool_use_id": None,
                "session_id": _SESSION,
            }
        ),
    ),
    _bad_frame(
        "tool_use_without_name",
        "An assistant tool_use block whose name is null.",
        RawFrame(
            frame={
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": "toolu_x", "name": None, "input": {}}],
                },
                "parent_tool_use_id": None,
                "session_id": _SESSION,
            }
        ),
    ),
    _bad_frame(
        "tool_result_with_wrong_types",
        "A tool_result (user frame) whose tool_use_id is a number.",
        RawFrame(
            frame={
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": 7, "content": "x"}],
                },
                "parent_tool_use_id": None,
                "session_id": _SESSION,
            }
        ),
    ),
    _bad_frame(
        "retry_delay_out_of_range",
        "An api_retry whose retry_delay_ms is an integer too large for a float (10**400).",
        RawFrame(
            frame={
                "type": "system",
                "subtype": "api_retry",
                "attempt": 1,
                "max_retries": 10,
                "retry_delay_ms": 10**400,
                "error_status": 529,
                "error": "overloaded",
                "session_id": _SESSION,
                "uuid": "00000000-0000-4000-8000-0000000000a5",
            }
        ),
    ),
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
