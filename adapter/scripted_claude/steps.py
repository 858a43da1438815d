"""The vocabulary of the scripted Claude: steps, turn scripts and scenarios.

Theory of operation: a `Scenario` is a tuple of turn scripts; the k-th user turn of a session
plays script k, and every turn after the last script plays `SUCCESS_TURN`. A turn script is a
tuple of steps, each a frozen value naming one thing the real CLI can do on its stdout (or to its
own process). The values are pure data: `player.py` gives them meaning, `frames.py` builds the
wire frames. Every turn implicitly opens with a `system/init` frame (as the real CLI's turns do)
and ends without a `result` unless the script holds a `Result` step.

The conversation's steps live here; the failure reports (`failure_steps.py`) and the process
faults (`process_steps.py`) live beside it and are re-exported, so `Step` is one union.

This module is imported by the fake CLI at startup, so it uses only the standard library.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

from adapter.scripted_claude.failure_steps import (
    ApiRetry,
    AssistantError,
    LimitMessage,
    ModelRefusalFallback,
    NoResponse,
    RateLimitEvent,
    Refusal,
    Synthetic,
    UsageLimitGate,
    WorkerShuttingDown,
)
from adapter.scripted_claude.hook_steps import FireHook
from adapter.scripted_claude.process_steps import (
    CloseStdout,
    DieAtPrompt,
    Exit,
    Garbage,
    Hang,
    IgnoreSigterm,
    KillSelf,
    RawFrame,
    Sleep,
    StartupFailure,
    Stderr,
)

__all__ = [
    "DEFAULT_MODEL",
    "SUCCESS_TURN",
    "SYNTHETIC_MODEL",
    "ApiRetry",
    "AssistantError",
    "BrokenStream",
    "CloseStdout",
    "DieAtPrompt",
    "Exit",
    "FireHook",
    "Garbage",
    "Hang",
    "IgnoreSigterm",
    "KillSelf",
    "LimitMessage",
    "McpElicitation",
    "ModelRefusalFallback",
    "NoResponse",
    "Permission",
    "Question",
    "RateLimitEvent",
    "RawFrame",
    "Refusal",
    "Rename",
    "Reply",
    "Result",
    "Scenario",
    "Sleep",
    "StartupFailure",
    "Stderr",
    "Step",
    "Synthetic",
    "Text",
    "Thinking",
    "ToolProgress",
    "ToolResult",
    "ToolUse",
    "TurnScript",
    "UsageLimitGate",
    "WorkerShuttingDown",
]

DEFAULT_MODEL = "claude-sonnet-4-5"
# What the real CLI writes as `message.model` on messages it made up itself (API errors,
# usage-limit and login notices): the SDK-side detection keys on it.
SYNTHETIC_MODEL = "<synthetic>"


@dataclass(frozen=True, slots=True, kw_only=True)
class Text:
    """An assistant frame with one text block from the real model (`model=None`: the session's
    model, "claude-sonnet-4-5" unless `set_model` changed it)."""

    text: str
    model: str | None = None
    # With partial messages on: the number of deltas (None: a few words each), the pause
    # before each, and the Task call whose subagent says it (None: the main answer).
    deltas: int | None = None
    pace: float = 0.0
    parent: str | None = None
    # The text is `text` repeated this many times: a message of many MiB without a constant
    # of that size in every scripted Claude's memory.
    repeat: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """Like `Text`, but the text echoes the turn's prompt: "Scripted reply to: <prompt>".

    Lets a test tell turns apart without a scenario per prompt.
    """

    model: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Rename:
    """`/rename <name>` typed in the chat, as Claude Code runs it without the model: the name
    after the command becomes the session's custom title in its transcript (what
    `session/list` shows); `Result` then says "Session renamed to: <name>"."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Thinking:
    """An assistant frame with one thinking block."""

    thinking: str
    signature: str = "c2NyaXB0ZWQtc2lnbmF0dXJl"
    pace: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolUse:
    """An assistant `tool_use` block, then the CLI's `user` frame with its `tool_result`.

    `result` is the result's content: text, or a list of blocks (text, image). None: no result
    yet (a later `ToolResult` step gives it, as for a Task whose subagent works meanwhile).
    `tool_use_result` is the frame's structured `tool_use_result` (Edit's `originalFile`…);
    `id` fixes the call's id so other steps can name it; `parent` is the subagent's Task.
    With partial messages on, `pieces` are the exact `input_json_delta` texts (None: the
    input's JSON in four), and `unfinished` stops the stream after them: no block stop, no
    finished message, no result (a request that broke off while Claude wrote the call).
    """

    name: str
    input: Mapping[str, object]
    result: str | tuple[Mapping[str, object], ...] | None
    is_error: bool = False
    tool_use_result: Mapping[str, object] | None = None
    id: str | None = None
    parent: str | None = None
    pieces: tuple[str, ...] | None = None
    unfinished: bool = False
    # A text `result` is repeated this many times: a result of many MiB without a constant of
    # that size in every scripted Claude process.
    repeat: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """The `tool_result` of the earlier call `id` (see `ToolUse` with `result=None`)."""

    id: str
    result: str
    is_error: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolProgress:
    """`tool_progress`: the running call `id` (a `ToolUse` with `result=None`) is still at
    work after `elapsed` seconds; `parent` is the Agent call whose subagent runs it."""

    id: str
    tool_name: str
    elapsed: float
    parent: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokenStream:
    """A model message whose stream breaks off after `deltas` text deltas of `text`: no
    `message_stop`, no finished message (the request failed mid-stream). Only meaningful with
    partial messages on; a retry usually follows."""

    text: str
    deltas: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Permission:
    """A tool that needs permission: `tool_use`, the `can_use_tool` round trip, the tool result
    (or the denial), then a text saying "<tool> was allowed." or "<tool> was denied: <why>".

    Without `--permission-prompt-tool stdio` the fake denies on its own, as the real CLI does
    when nobody can be asked; under `bypassPermissions` it allows without asking.
    """

    tool_name: str
    input: Mapping[str, object]
    result: str
    # Claude Code's `permission_suggestions` for this call (rule or mode updates it offers).
    suggestions: tuple[Mapping[str, object], ...] = ()
    # Keys the request also carries: the CLI's hints (`default_to_no`, `matched_ask_rule`, ...).
    hints: Mapping[str, object] | None = None
    # An allowed Edit or Write is carried out on disk, its result saying what changed
    # (`file_edits.apply_edit`).
    applies: bool = False
    # The Agent call whose subagent asks (its `agent_id` goes in `hints`, as Claude Code sends
    # it): the call, its result and the line after it are the subagent's.
    parent: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Question:
    """Claude asks the user (the AskUserQuestion tool): `tool_use`, the `can_use_tool` round
    trip, the tool result, then a text saying what Claude heard ("You answered: ..."). Where
    Claude Code was started with `--disallowedTools AskUserQuestion` Claude asks in its reply
    instead (`fallback`), as the model does when it lacks the tool.
    """

    input: Mapping[str, object]
    fallback: str


@dataclass(frozen=True, slots=True, kw_only=True)
class McpElicitation:
    """Claude calls an MCP server's tool and the server asks the user (MCP elicitation), as
    Claude Code runs it: the `Elicitation` hooks first (a `hook_callback` control request to
    the host for each registered callback), whose `{action, content}` answers the server; with
    no hook answer, the CLI's own `elicitation` control request. The tool result and Claude's
    next text then say what the server heard ("The deploy server heard: accept {...}").
    A `mode: "url"` request carries `url` and `elicitation_id`; once it is accepted the server
    says the user is done, and Claude Code writes its `system` `elicitation_complete` frame
    (whatever it heard when `confirms_anyway`: the user signed in some other way).
    """

    server: str
    tool: str
    message: str
    requested_schema: Mapping[str, object]
    mode: str = "form"
    url: str | None = None
    elicitation_id: str | None = None
    confirms_anyway: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """The turn's `result` frame.

    `result=None` means the last assistant text of the turn, as the real CLI does. The `result`
    key is only written for subtype "success" (`SDKResultError` has none); `errors` only when
    given.
    """

    subtype: str = "success"
    is_error: bool = False
    result: str | None = None
    errors: tuple[str, ...] | None = None
    api_error_status: int | None = None
    terminal_reason: str | None = "completed"
    stop_reason: str | None = "end_turn"


Step: TypeAlias = (
    Text
    | ToolResult
    | ToolProgress
    | BrokenStream
    | Reply
    | Rename
    | Thinking
    | ToolUse
    | Permission
    | Question
    | McpElicitation
    | ApiRetry
    | RateLimitEvent
    | LimitMessage
    | UsageLimitGate
    | AssistantError
    | Synthetic
    | Refusal
    | ModelRefusalFallback
    | WorkerShuttingDown
    | Result
    | Sleep
    | Hang
    | IgnoreSigterm
    | Garbage
    | Stderr
    | Exit
    | KillSelf
    | CloseStdout
    | RawFrame
    | DieAtPrompt
    | FireHook
    | StartupFailure
)
TurnScript: TypeAlias = tuple[Step, ...]

SUCCESS_TURN: TurnScript = (Reply(), Result())


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """A named session script.

    `before_handshake` runs before stdin is read at all (only `Stderr`, `Garbage`, `Sleep`,
    `Exit` and `KillSelf` make sense there).
    """

    name: str
    description: str
    turns: tuple[TurnScript, ...] = ()
    before_handshake: TurnScript = ()
    # A fresh context after a plan exit (`plan_scenarios`): what it plays before its
    # handshake, and its answer to "Implement the following plan:" (empty: no such answer).
    fresh_start: TurnScript = ()
    continuation: TurnScript = ()
    # What a person types in another client once Remote Control is on (`remote_control`
    # control request): echoed at once as Claude Code echoes it (None: nobody does).
    remote_message: str | None = None

    def script_for(self, turn_index: int) -> TurnScript:
        """The script of the `turn_index`-th (0-based) user turn of the session."""
        if 0 <= turn_index < len(self.turns):
            return self.turns[turn_index]
        return SUCCESS_TURN
