"""Broken-frame scenarios: lines and frames the SDK or the adapter cannot take (not JSON,
truncated, an unknown type, fields of the wrong type or missing, numbers out of range).

Each broken frame sits between two good texts (`BEFORE_BAD_FRAME`, `AFTER_BAD_FRAME`), so a test
can see whether the turn went on past it. Split from `faults.py`, which registers them in place.
Imported by the fake CLI at startup: standard library only.
"""

from __future__ import annotations

from adapter.scripted_claude.steps import Garbage, RawFrame, Result, Scenario, Text, TurnScript

__all__ = ["AFTER_BAD_FRAME", "BAD_FRAME_SCENARIOS", "BEFORE_BAD_FRAME", "FAULT_SESSION_ID"]

# The texts on either side of a broken frame: both reach the client iff the turn went on.
BEFORE_BAD_FRAME = "Reading the repository before the odd frame."
AFTER_BAD_FRAME = "Still here after the odd frame."

# The session id the verbatim frames carry (the fake does not stamp `RawFrame`s).
FAULT_SESSION_ID = "00000000-0000-4000-8000-00000000fa17"


def _bad_frame(name: str, description: str, *broken: RawFrame | Garbage) -> Scenario:
    # A good text, the broken frame(s), another good text and a clean result.
    turn: TurnScript = (Text(text=BEFORE_BAD_FRAME), *broken, Text(text=AFTER_BAD_FRAME), Result())
    return Scenario(name=name, description=description, turns=(turn,))


BAD_FRAME_SCENARIOS: tuple[Scenario, ...] = (
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
        RawFrame(frame={"type": "hologram", "session_id": FAULT_SESSION_ID, "payload": {"x": 1}}),
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
                "session_id": FAULT_SESSION_ID,
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
                "session_id": FAULT_SESSION_ID,
            }
        ),
    ),
    _bad_frame(
        "rate_limit_event_without_info",
        "A rate_limit_event frame with no rate_limit_info.",
        RawFrame(
            frame={
                "type": "rate_limit_event",
                "session_id": FAULT_SESSION_ID,
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
                "session_id": FAULT_SESSION_ID,
            }
        ),
    ),
    _bad_frame(
        "assistant_message_not_an_object",
        "An assistant frame whose message is a string.",
        RawFrame(frame={"type": "assistant", "message": "oops", "session_id": FAULT_SESSION_ID}),
    ),
    _bad_frame(
        "rate_limit_info_not_an_object",
        "A rate_limit_event whose rate_limit_info is a string.",
        RawFrame(
            frame={
                "type": "rate_limit_event",
                "rate_limit_info": "rejected",
                "session_id": FAULT_SESSION_ID,
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
                "session_id": FAULT_SESSION_ID,
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
                "session_id": FAULT_SESSION_ID,
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
                "session_id": FAULT_SESSION_ID,
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
                "session_id": FAULT_SESSION_ID,
                "uuid": "00000000-0000-4000-8000-0000000000a5",
            }
        ),
    ),
)
