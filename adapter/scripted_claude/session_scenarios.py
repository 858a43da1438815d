"""Scenarios for the everyday session features: modes, plans, permission rules, commands.

Theory of operation: like `faults.py`, a table of named scenarios registered beside the shipped
ones. Each plays what the real CLI does for one feature: `plan_mode` enters plan mode by
itself (EnterPlanMode) and then asks to leave it (ExitPlanMode, a permission request whose
answer may switch the mode); `permission_rules` asks about a Bash command and offers Claude
Code's own "don't ask again" suggestion (kept in the local settings file when chosen), on every
turn, so a second session shows whether the rule held; `commands_changed` reports a new
command mid-session; `edit_permission` asks about an Edit (allowed without asking under
acceptEdits); `model_typed` is `/model opus` typed in the chat (Claude Code switches its model
and fires `PostModelSwitch`, source `command`, then answers the command without the model);
`model_fallback_local` falls back in a side question only (`scope: local`), which leaves the
session's model alone; `reloaded_history` keeps in its transcript what Claude Code keeps
around a turn (a reminder, a task's notice, a custom command as markers) beside a typed
`/model` (markers and output, as every scenario keeps it), for a load to replay without them;
`remote_control` answers Claude Code's `remote_control` request with the session's claude.ai
address, and then echoes what a person types on their phone.
"""

from __future__ import annotations

from adapter.scripted_claude.handshake import COMMANDS
from adapter.scripted_claude.steps import (
    FireHook,
    ModelRefusalFallback,
    Permission,
    RawFrame,
    Rename,
    Reply,
    Result,
    Scenario,
    Text,
    ToolUse,
    TurnScript,
)

__all__ = ["DEPLOY", "PLAN", "SESSION_SCENARIOS", "TEST_RULE"]

PLAN = "1. Read the code\n2. Fix the bug\n3. Run the tests"
# Claude Code's suggestion for `npm test`: a prefix rule, kept in the local settings file.
TEST_RULE = {
    "type": "addRules",
    "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}],
    "behavior": "allow",
    "destination": "localSettings",
}

_RUN_TESTS = Permission(
    tool_name="Bash",
    input={"command": "npm test", "description": "Run the tests"},
    result="12 passing",
    suggestions=(TEST_RULE,),
)
_EDIT = Permission(
    tool_name="Edit",
    input={"file_path": "src/app.py", "old_string": "x = 1", "new_string": "x = 2"},
    result="The file src/app.py has been updated.",
)


# A command that appears mid-session (a skill or `.claude/commands` file added meanwhile).
DEPLOY = {"name": "deploy", "description": "Deploy the current branch", "argumentHint": "<env>"}
_COMMANDS_CHANGED = RawFrame(
    frame={
        "type": "system",
        "subtype": "commands_changed",
        "commands": [*(dict(c) for c in COMMANDS), DEPLOY],
    }
)


def _user_entry(uuid: str, content: object, **extra: object) -> dict[str, object]:
    """A user entry of the transcript as Claude Code keeps it (none of the conversation's own)."""
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": content}, **extra}


# What Claude Code keeps in its transcript around a turn: a reminder it added, a background
# task's notice, and a custom command the user ran (`/review the diff`), stored as markers.
_TURN_KEPT = (
    _user_entry(
        "7b0c2a51-0d5e-4c1e-9a52-6f1d3c2b9e03",
        [
            {
                "type": "text",
                "text": "<system-reminder>The user's date is 2026-12-04.</system-reminder>",
            }
        ],
    ),
    _user_entry(
        "7b0c2a51-0d5e-4c1e-9a52-6f1d3c2b9e04",
        "<task-notification><task-id>b1</task-id><status>completed</status>"
        "<summary>Background command finished</summary></task-notification>",
    ),
    _user_entry(
        "7b0c2a51-0d5e-4c1e-9a52-6f1d3c2b9e05",
        "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
        "<command-args>the diff</command-args>",
    ),
)
# A frame of no consequence to carry the kept entries (Claude Code reports its state).
_STATUS = {"type": "system", "subtype": "status", "status": None}


def _repeat(turn: TurnScript, times: int = 8) -> tuple[TurnScript, ...]:
    return tuple(turn for _ in range(times))


SESSION_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="plan_mode",
        description="Claude enters plan mode by itself, then asks to leave it with a plan.",
        turns=(
            (
                ToolUse(name="EnterPlanMode", input={}, result="Entered plan mode."),
                Text(text="I will look around first."),
                Result(),
            ),
            (
                Permission(tool_name="ExitPlanMode", input={"plan": PLAN}, result="Plan approved"),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="permission_rules",
        description="Every turn asks to run `npm test`, suggesting a local allow rule for it.",
        turns=_repeat((_RUN_TESTS, Result())),
    ),
    Scenario(
        name="commands_changed",
        description="Claude reports a new slash command during the first turn.",
        turns=((_COMMANDS_CHANGED, Reply(), Result()),),
    ),
    Scenario(
        name="edit_permission",
        description="Every turn asks to edit a file (allowed without asking under acceptEdits).",
        turns=_repeat((_EDIT, Reply(), Result())),
    ),
    Scenario(
        name="model_typed",
        description="`/model opus` typed in the chat: PostModelSwitch (command), no model turn.",
        turns=(
            (
                FireHook(
                    event="PostModelSwitch",
                    input={"from_model": "default", "to_model": "opus", "source": "command"},
                ),
                Result(result="Set model to Opus (claude-opus-4-1)"),
            ),
        ),
    ),
    Scenario(
        name="rename_typed",
        description="A turn, then `/rename <name>` typed in the chat (no model turn), then turns.",
        turns=(
            (Reply(), Result()),
            (Rename(), Result(result="Session renamed")),
            *_repeat((Reply(), Result()), 4),
        ),
    ),
    Scenario(
        name="reloaded_history",
        description="A session reloaded: Claude Code's command markers, command output and "
        "reminders in its history are not shown.",
        turns=(
            (
                FireHook(
                    event="PostModelSwitch",
                    input={"from_model": "default", "to_model": "opus", "source": "command"},
                ),
                Result(result="Set model to Opus (claude-opus-4-1)"),
            ),
            (
                Text(text="Tidied: the notes are grouped by topic now."),
                RawFrame(frame=_STATUS, kept=_TURN_KEPT),
                Result(),
            ),
        ),
    ),
    Scenario(
        name="remote_control",
        description="`/remote-control` answered with the session's claude.ai address, then "
        "someone types on their phone.",
        remote_message="What did the last test run say?",
    ),
    Scenario(
        name="model_fallback_local",
        description="A side question's model refused and fell back there only (scope local).",
        turns=(
            (
                ModelRefusalFallback(
                    original_model="claude-opus-4-1",
                    fallback_model="claude-haiku-4-5",
                    content="Opus declined; Haiku answered the side question.",
                    scope="local",
                ),
                Reply(),
                Result(),
            ),
        ),
    ),
)
