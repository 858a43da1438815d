"""What a randomized turn draws from: the endings and their weights, the API errors and limits,
the broken frames, the tool calls, and the endings that draw nothing. Pure data, split from
`randomized.py`, which does the drawing. Imported by the fake CLI when it plays `random:<seed>`:
standard library only.
"""

from __future__ import annotations

from adapter.scripted_claude.steps import (
    CloseStdout,
    Exit,
    Garbage,
    KillSelf,
    Permission,
    Refusal,
    Reply,
    Result,
    Sleep,
    Text,
    ToolUse,
    TurnScript,
    WorkerShuttingDown,
)
from adapter.scripted_claude.texts import TEXTS

__all__ = [
    "API_ERRORS",
    "BROKEN_FRAMES",
    "ENDINGS",
    "FIXED_ENDINGS",
    "HOSTILE_HOME",
    "LIMITS",
    "PERMISSION_CALL",
    "TOOL_CALL",
]

# The `$HOME` the hostile text names (a private path: it must be masked like any other).
HOSTILE_HOME = "/home/alice"

# (ending, weight). The weights favour results, so sessions also get to later turns.
ENDINGS: tuple[tuple[str, float], ...] = (
    ("success", 5.0),
    ("api_error", 3.0),
    ("hostile_error", 1.0),
    ("limit", 1.0),
    ("refusal", 0.5),
    ("kill", 1.0),
    ("exit_1", 0.7),
    ("exit_0", 0.7),
    ("die_at_prompt", 0.5),
    ("die_after_result", 0.5),
    ("worker_shutdown", 0.5),
    ("idle", 0.7),
    ("hang", 1.0),
    ("close_stdout", 0.4),
    ("truncated_line", 0.4),
    ("large_message", 0.4),
)

# (error kind, text, HTTP status) for synthetic API-error messages.
API_ERRORS: tuple[tuple[str, str, int | None], ...] = (
    ("rate_limit", TEXTS["rate_limit"], 429),
    ("rate_limit", TEXTS["usage_limit"], 429),
    ("authentication_failed", TEXTS["authentication_failed"], 401),
    ("billing_error", TEXTS["billing_error"], 400),
    ("invalid_request", TEXTS["invalid_request"], 400),
    ("server_error", TEXTS["overloaded"], 529),
    ("server_error", TEXTS["server_error"], 500),
    ("max_output_tokens", TEXTS["max_output_tokens"], None),
    ("verification_required", TEXTS["verification_required"], 403),
    ("quantum_flux", TEXTS["unknown_error"], None),
)

LIMITS: tuple[tuple[str, str, str], ...] = (
    ("error_max_turns", TEXTS["turn_limit"], "max_turns"),
    ("error_max_budget_usd", TEXTS["budget_limit"], "budget_exhausted"),
    ("error_max_structured_output_retries", TEXTS["structured_output_retries"], "x"),
)

# Frames the SDK or the adapter cannot take as they are (see faults.py for each shape).
BROKEN_FRAMES: tuple[dict[str, object], ...] = (
    {"type": "hologram", "payload": [1, 2, 3]},
    {"type": "system", "subtype": "api_retry", "attempt": "x", "max_retries": 10},
    {"type": "system", "subtype": "api_retry", "attempt": 0, "max_retries": 10},
    {
        "type": "assistant",
        "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": "hi"},
    },
    {"type": "rate_limit_event", "uuid": "u", "session_id": "s"},
    {
        "type": "result",
        "is_error": True,
        "duration_ms": 1,
        "duration_api_ms": 1,
        "num_turns": 1,
        "session_id": "s",
    },
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": 42}],
        },
    },
    {"type": "assistant", "message": "oops"},
    {"type": "rate_limit_event", "rate_limit_info": "rejected", "uuid": "u", "session_id": "s"},
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": 7, "name": "Bash", "input": "ls"}],
        },
    },
    {"type": "system", "subtype": "session_state_changed", "state": ["idle"]},
    {"type": None},
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_x", "name": None, "input": {}}],
        },
    },
    {
        "type": "system",
        "subtype": "api_retry",
        "attempt": 1,
        "max_retries": 10,
        "error_status": 529,
        "error": "overloaded",
        "retry_delay_ms": 10**400,
    },
)

TOOL_CALL = ToolUse(name="Bash", input={"command": "ls"}, result="README.md\nsrc")
PERMISSION_CALL = Permission(tool_name="Write", input={"file_path": "notes.txt"}, result="written")

# The endings that draw nothing from the turn's random stream.
FIXED_ENDINGS: dict[str, TurnScript] = {
    "success": (Reply(), Result()),
    "refusal": (Refusal(explanation=TEXTS["refusal"]), Result(stop_reason="refusal")),
    "kill": (KillSelf(),),
    "exit_1": (Exit(code=1),),
    "exit_0": (Exit(code=0),),
    "die_after_result": (Reply(), Result(), KillSelf()),
    "worker_shutdown": (WorkerShuttingDown(), Exit(code=0)),
    "idle": (),
    # 320 KiB of text: over the limit the fault run sets, far under the default one.
    "large_message": (Text(text="0123456789abcdef", repeat=20 * 1024), Result()),
    "close_stdout": (CloseStdout(), Sleep(seconds=0.1), Exit(code=0)),
    "truncated_line": (Garbage(line='{"type":"result","subtype":"succ'), Reply(), Result()),
}
