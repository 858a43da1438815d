"""Claude SDK messages in, core events out (their session updates: `adapter.view.turn_view`).

`read_frame` is the one step every frame of Claude's takes on its way in: it says which core
events the frame makes, in order, what the live view does with it, and what Claude Code changed
by itself that the session's controls follow (`Reading`), and
`adapter.session.claude_side.ClaudeSide.on_message` performs that: the controls, the view, the
core, its effects. It keeps nothing between frames; what one frame means for a later one (a
refusal's explanation said ahead of it) is the core's to keep.

The SDK's dataclasses pass strings through unchecked, and `SystemMessage.data` is the raw frame,
so every field read here is checked for its type: a frame of the wrong shape is skipped (the
caller logs it), never allowed to crash the reader.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    RateLimitEvent,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolUseBlock,
    UserMessage,
)

from adapter.claude import local_time
from adapter.claude.unparsed import UnparsedFrame
from fsm import (
    SERVER_BLOCKS,
    AnswerStreamStarted,
    AssistantMessageReceived,
    BackgroundTaskSettled,
    BackgroundTasksListed,
    BackgroundTaskStarted,
    ClaudeEvent,
    FsmError,
    LimitWindow,
    McpServersPolled,
    McpServersReported,
    McpServerStatus,
    ModelFellBack,
    PromptEchoed,
    PromptEnded,
    PromptFate,
    PromptQueued,
    PromptStarted,
    RateLimitReported,
    RefusalExplained,
    ResultReceived,
    RetryAttempted,
    TurnWentBusy,
    TurnWentIdle,
    WorkerShuttingDown,
    fallback_moves_session,
    reports_unanswered,
)

__all__ = [
    "NO_CHANGES",
    "FastMode",
    "OwnChanges",
    "Reading",
    "Shown",
    "echo_for",
    "event_for",
    "own_changes",
    "polled_servers",
    "read_frame",
    "refusal_explanation",
]


class Shown(enum.Enum):
    """What the live view does with a frame of Claude's (`ClaudeSide.on_message` performs it)."""

    STREAM = "stream"  # a streamed delta: drawn as it comes
    UNPARSED = "unparsed"  # a frame the SDK does not parse: a tool's progress, a goal
    MALFORMED = "malformed"  # fields that make no sense: skipped, and logged
    SYSTEM = "system"  # compaction, tasks, Claude Code's side messages
    ASSISTANT = "assistant"  # its usage counted; the message goes out as the core's effect
    RESULT = "result"  # the turn's usage, its cards closed
    RATE_LIMIT = "rate_limit"  # the limit windows on a `usage_update`
    ECHO = "echo"  # Claude took a user message up (typed here, or in another client)
    TOOL_RESULTS = "tool_results"  # a user frame of tool results
    NOTHING = "nothing"  # a message of a kind the view does not show


@dataclass(frozen=True, slots=True)
class FastMode:
    """Claude Code's fast mode as a frame says it (`fast_mode_state` `on` or `off`; `cooldown`
    says nothing to follow), and why it is off: Claude Code's `fast_mode_disabled_reason`,
    None when it gives none (the controls explain the reasons they know)."""

    on: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class OwnChanges:
    """What a frame says Claude Code changed by itself, for the session's controls to follow
    (`adapter.controls.session_controls.SessionControls.follow`); the defaults change nothing.

    `mode`: the permission mode it is in now (`system/init` or `status` name it, an
    EnterPlanMode call is `plan`); `init`: a `system/init` (the first makes the controls read
    the skill files); `terminal_only`: the commands its init marks as bound to its terminal,
    without their `/`; `commands_changed`: a `commands_changed` frame, whose list is `commands`
    as Claude Code wrote it (None when it is not a list); `fast`: its fast mode, on `system/init`;
    `model`: the model a refusal's fallback moved the session to for good
    (`fsm.fallback_moves_session`); `elicitation_completed`: the id of an MCP server's URL
    request it says is done (`elicitation_complete`); `reports_unanswered`: its init lists
    `ask_user_question_unanswered_v1` (`fsm.reports_unanswered`).
    """

    mode: str | None = None
    init: bool = False
    terminal_only: frozenset[str] | None = None
    commands_changed: bool = False
    commands: tuple[Any, ...] | None = None
    fast: FastMode | None = None
    model: str | None = None
    elicitation_completed: str | None = None
    reports_unanswered: bool = False


NO_CHANGES = OwnChanges()


@dataclass(frozen=True, slots=True)
class Reading:
    """One frame of Claude's, read (`read_frame`).

    `shown`: what the view does with it; `events`: for the core, in order; `measured`: the
    view's measure of the context goes to the core ahead of them (the idle compaction reads it
    when the turn ends); `taken_up`: the user message Claude took up (`Shown.ECHO`);
    `message`: the message the view and the core's effects are to see in place of the one the
    SDK parsed (an assistant message with the server blocks the SDK dropped put back), None
    when that one will do; `changes`: what Claude Code changed by itself, for the controls
    (read from every frame but a streamed delta and one the SDK does not parse, a malformed
    one too). A streamed delta, the bulk of a turn, is read without a new `Reading` made
    (`_STREAMED`).
    """

    shown: Shown
    events: tuple[ClaudeEvent, ...] = ()
    measured: bool = False
    taken_up: str | None = None
    message: Any = None
    changes: OwnChanges = NO_CHANGES

    def shown_message(self, parsed: Any) -> Any:
        """What the view and the core's effects are to see of `parsed`, the SDK's message."""
        return parsed if self.message is None else self.message


_STREAMED = Reading(Shown.STREAM)


def read_frame(message: object, raw: object, epoch: str, *, now: float, wall: float) -> Reading:
    """One frame from Claude's process `epoch`: `message` as the SDK parsed it, `raw` as Claude
    Code wrote it, heard at `now` (monotonic seconds) and `wall` (epoch seconds). Pure: it reads
    the frame and keeps nothing."""
    if isinstance(message, StreamEvent):
        started = _answer_stream_started(message, epoch)
        return _STREAMED if started is None else Reading(Shown.STREAM, (started,))
    if isinstance(message, UnparsedFrame):
        fate = lifecycle_for(message.data, epoch)
        return Reading(Shown.UNPARSED, () if fate is None else (fate,))
    changes = own_changes(message, raw)
    try:
        event = event_for(message, epoch)
    except (FsmError, TypeError, ValueError):
        return Reading(Shown.MALFORMED, changes=changes)
    events = () if event is None else (event,)
    if isinstance(message, AssistantMessage) and isinstance(event, AssistantMessageReceived):
        if event.stop_reason == "refusal":
            # docs/decisions.md#refusal-explanation: the SDK's parsed message drops
            # `stop_details`.
            event = dataclasses.replace(event, refusal_explanation=refusal_explanation(raw))
        shown = _with_server_blocks(message, raw)
        return Reading(Shown.ASSISTANT, (event,), message=shown, changes=changes)
    if isinstance(message, ResultMessage) and isinstance(event, ResultReceived):
        # The fast mode it says, which the SDK's result drops: the core's to pass on
        # (`ShowResult`), for a prompt's result only (docs/decisions.md#result-owner).
        fast = _fast_mode(raw)
        if fast is not None:
            event = dataclasses.replace(event, fast_on=fast.on, fast_reason=fast.reason)
        return Reading(Shown.RESULT, (event,), measured=True, changes=changes)
    if isinstance(message, ResultMessage):
        return Reading(Shown.RESULT, events, measured=True, changes=changes)
    if isinstance(message, SystemMessage):
        measured = message.subtype == "compact_boundary"
        return Reading(Shown.SYSTEM, events, measured=measured, changes=changes)
    if isinstance(message, RateLimitEvent) and isinstance(event, RateLimitReported):
        # Claude's reset times are wall-clock times; the core's deadlines monotonic.
        stamped = dataclasses.replace(event, now=now, wall=wall)
        return Reading(Shown.RATE_LIMIT, (stamped,), changes=changes)
    if isinstance(message, UserMessage):
        echo = echo_for(raw, epoch)
        if echo is None:
            return Reading(Shown.TOOL_RESULTS, changes=changes)
        return Reading(Shown.ECHO, (echo,), taken_up=echo.turn_id, changes=changes)
    return Reading(Shown.NOTHING, events, changes=changes)


def own_changes(message: object, raw: object) -> OwnChanges:
    """What `message` (as the SDK parsed it; `raw` as Claude Code wrote it: the SDK's result
    drops the fast mode) says Claude Code changed by itself. Pure, and any shape is read: what
    makes no sense changes nothing."""
    if isinstance(raw, Mapping) and raw.get("type") == "result":
        return NO_CHANGES  # its fast mode is the core's to pass on (`ResultReceived`)
    fast = _fast_mode(raw)
    if isinstance(message, SystemMessage):
        return _system_changes(message.subtype, message.data, fast)
    if isinstance(message, AssistantMessage) and _enters_plan_mode(message.content):
        return OwnChanges(mode="plan", fast=fast)
    return NO_CHANGES if fast is None else OwnChanges(fast=fast)


def _enters_plan_mode(content: object) -> bool:
    return isinstance(content, list) and any(
        isinstance(block, ToolUseBlock) and block.name == "EnterPlanMode" for block in content
    )


def _system_changes(subtype: object, data: object, fast: FastMode | None) -> OwnChanges:
    data = data if isinstance(data, Mapping) else {}
    if subtype in ("init", "status"):
        init = subtype == "init"
        listed = data.get("terminal_slash_commands") if init else None
        terminal_only = (
            frozenset(n.lstrip("/") for n in listed if isinstance(n, str))
            if isinstance(listed, list)
            else None
        )
        mode = _str(data, "permissionMode")
        return OwnChanges(
            mode=mode,
            init=init,
            terminal_only=terminal_only,
            fast=fast,
            reports_unanswered=init and reports_unanswered(data.get("capabilities")),
        )
    if subtype == "commands_changed":
        listed = data.get("commands")
        commands = tuple(listed) if isinstance(listed, list) else None
        return OwnChanges(commands_changed=True, commands=commands, fast=fast)
    if subtype == "elicitation_complete":
        return OwnChanges(elicitation_completed=_str(data, "elicitation_id") or None, fast=fast)
    if subtype == "model_refusal_fallback":
        fallback = _str(data, "fallback_model")
        if fallback and fallback_moves_session(_str(data, "direction"), _str(data, "scope")):
            return OwnChanges(model=fallback, fast=fast)
    return NO_CHANGES if fast is None else OwnChanges(fast=fast)


def _fast_mode(raw: object) -> FastMode | None:
    """The fast mode a `system/init` frame or a result says, as Claude Code wrote it."""
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("type")
    if kind != "result" and (kind != "system" or raw.get("subtype") != "init"):
        return None
    state = raw.get("fast_mode_state")
    if state not in ("on", "off"):
        return None
    return FastMode(on=state == "on", reason=_str(raw, "fast_mode_disabled_reason"))


def _answer_stream_started(message: StreamEvent, epoch: str) -> AnswerStreamStarted | None:
    # A top-level `message_start`: Claude began a new message of its own (not a subagent's);
    # prose the core withheld goes out before it (docs/decisions.md#error-prose-without-record).
    event = message.event
    if message.parent_tool_use_id or not isinstance(event, dict):
        return None
    if event.get("type") != "message_start" or not isinstance(event.get("message"), dict):
        return None
    model = event["message"].get("model")
    return AnswerStreamStarted(epoch=epoch, model=model if isinstance(model, str) else None)


def _with_server_blocks(message: AssistantMessage, raw: object) -> AssistantMessage | None:
    """The SDK's parser drops most server-side tool blocks (a web search's result, a remote MCP
    call); the view needs them to open and end their cards, so such a message's content is
    taken as Claude wrote it (the view reads either form, `adapter.view.turn_view.blocks_of`).
    The core's event is made from the parsed text. None: the parsed message will do."""
    content = raw.get("message", {}).get("content") if isinstance(raw, dict) else None
    if isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") in SERVER_BLOCKS for block in content
    ):
        return dataclasses.replace(message, content=content)
    return None


def _int(data: Mapping[str, Any], key: str) -> int | None:
    # JSON allows integers of any size; none past 2**53 is a count or a time Claude meant.
    value = data.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 2**53:
        return value
    return None


def _str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def _texts(content: list[Any]) -> list[str]:
    return [block.text for block in content if isinstance(block, TextBlock)]


def prompts_of(message: ResultMessage) -> frozenset[str]:
    """The user messages a result's cycle took up (`user_message_uuid`, `user_message_uuids`)."""
    first = getattr(message, "user_message_uuid", None)
    rest = getattr(message, "user_message_uuids", None)
    named = [first, *(rest if isinstance(rest, list) else [])][:_MAX_PROMPTS]
    return frozenset(u for u in named if isinstance(u, str) and u)


def echo_for(raw: object, epoch: str) -> PromptEchoed | None:
    """Claude Code's echo of a user message it took up (`--replay-user-messages`): a `user`
    frame with `isReplay` and the uuid the adapter stamped on it."""
    if not isinstance(raw, Mapping) or raw.get("type") != "user" or raw.get("isReplay") is not True:
        return None
    uuid = _str(raw, "uuid")
    return PromptEchoed(epoch=epoch, turn_id=uuid) if uuid else None


def lifecycle_for(raw: object, epoch: str) -> PromptQueued | PromptStarted | PromptEnded | None:
    """Claude Code's word on what became of a user message it was sent (`command_lifecycle`,
    naming the uuid the adapter stamped on it): `queued`, it will say when it starts it;
    `started`, it took that message up (docs/decisions.md#turn-begins-at-echo); a terminal state,
    the message's end, which answers a prompt it never started
    (docs/decisions.md#prompt-ended-unstarted). A state it does not name is nothing."""
    if not isinstance(raw, Mapping) or raw.get("type") != "command_lifecycle":
        return None
    uuid = _str(raw, "command_uuid")
    if not uuid:
        return None
    state = raw.get("state")
    if state == "started":
        return PromptStarted(epoch=epoch, turn_id=uuid)
    if state == "queued":
        return PromptQueued(epoch=epoch, turn_id=uuid)
    fate = _FATES.get(state) if isinstance(state, str) else None
    return None if fate is None else PromptEnded(epoch=epoch, turn_id=uuid, fate=fate)


_FATES = {fate.value: fate for fate in PromptFate}


def event_for(message: object, epoch: str) -> ClaudeEvent | None:
    """The core event for one SDK message, or None when the core has no interest in it.

    Raises `fsm.errors.PeerViolation` (or `TypeError`/`ValueError`) for a frame whose fields
    make no sense; the caller skips it.
    """
    if isinstance(message, AssistantMessage):
        texts = _texts(message.content)
        error = message.error if isinstance(message.error, str) else None
        return AssistantMessageReceived(
            epoch=epoch,
            model=message.model if isinstance(message.model, str) else None,
            text="".join(texts),
            text_block_count=len(texts),
            error=error,
            top_level=message.parent_tool_use_id is None,
            stop_reason=message.stop_reason,
        )
    if isinstance(message, ResultMessage):
        origin = getattr(message, "origin", None)
        kind = origin.get("kind") if isinstance(origin, dict) else None
        errors = message.errors if isinstance(message.errors, list) else []
        return ResultReceived(
            epoch=epoch,
            subtype=str(message.subtype),
            is_error=bool(message.is_error),
            result=message.result if isinstance(message.result, str) else None,
            errors=tuple(e for e in errors if isinstance(e, str)),
            stop_reason=message.stop_reason if isinstance(message.stop_reason, str) else None,
            # Which origins no user turn asked for is the core's rule (`is_autonomous_origin`).
            origin_kind=kind if isinstance(kind, str) else None,
            total_cost_usd=_cost(message.total_cost_usd),
            prompts=prompts_of(message),
        )
    if isinstance(message, SystemMessage):
        return _system_event(message.subtype, message.data, epoch)
    if isinstance(message, RateLimitEvent):
        return _rate_limit_event(message, epoch)
    return None


def _cost(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


_MAX_WINDOWS = 32


def _rate_limit_event(message: RateLimitEvent, epoch: str) -> RateLimitReported:
    info = message.rate_limit_info
    raw = getattr(info, "raw", None)
    raw = raw if isinstance(raw, Mapping) else {}
    status = getattr(info, "status", None)
    resets_at = _epoch(raw, "resetsAt")
    return RateLimitReported(
        epoch=epoch,
        status=status if isinstance(status, str) else "",
        resets_at=resets_at,
        windows=tuple(_windows(raw)),
        zone=local_time.zone_name(),
    )


def _epoch(data: Mapping[str, Any], key: str) -> int | None:
    # Epoch seconds; a whole float is taken too (JSON has one number type), nonsense is not.
    value = data.get(key)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**40:
        return value
    return None


def _fraction(data: Mapping[str, Any], key: str) -> float | None:
    value = data.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _window(name: str, data: Mapping[str, Any]) -> LimitWindow:
    resets_at = _epoch(data, "resetsAt")
    status = data.get("status")
    return LimitWindow(
        name=name[:64],
        status=status if isinstance(status, str) else "",
        utilization=_fraction(data, "utilization"),
        resets_at=resets_at,
        utc_offset_seconds=0 if resets_at is None else local_time.utc_offset_at(resets_at),
    )


def _windows(raw: Mapping[str, Any]) -> list[LimitWindow]:
    """Every window the event reports (`unifiedWindows`), else the one it is about."""
    unified = raw.get("unifiedWindows")
    if isinstance(unified, Mapping):
        named = [
            (n, d) for n, d in unified.items() if isinstance(n, str) and isinstance(d, Mapping)
        ]
        # Claude Code names six; past a few dozen it is not a report of windows.
        return [_window(name, data) for name, data in named[:_MAX_WINDOWS]]
    name = raw.get("rateLimitType")
    return [_window(name, raw)] if isinstance(name, str) else []


# Claude Code lists each configured server once; past this many it is not a list of servers.
_MAX_SERVERS = 64


def _statuses(servers: list[Any]) -> tuple[McpServerStatus, ...]:
    read = []
    for entry in servers[:_MAX_SERVERS]:
        entry = entry if isinstance(entry, Mapping) else {}
        read.append(McpServerStatus(name=_str(entry, "name"), status=_str(entry, "status")))
    return tuple(read)


def _mcp_servers(data: Mapping[str, Any], epoch: str) -> McpServersReported | None:
    """The init frame's server statuses; an entry of another shape is passed on as unreadable
    (both fields None) for the core to judge, never raised."""
    servers = data.get("mcp_servers")
    if servers is None or servers == []:
        return None
    if not isinstance(servers, list):
        return McpServersReported(epoch=epoch, servers=(McpServerStatus(name=None, status=None),))
    return McpServersReported(epoch=epoch, servers=_statuses(servers))


def polled_servers(response: object, epoch: str) -> McpServersPolled | None:
    """Claude Code's answer to `mcp_status` (`{mcpServers: [{name, status, ...}]}`) as the
    core reads it; None when it lists no servers."""
    servers = response.get("mcpServers") if isinstance(response, Mapping) else None
    if not isinstance(servers, list) or not servers:
        return None
    return McpServersPolled(epoch=epoch, servers=_statuses(servers))


def _system_event(subtype: str, data: Mapping[str, Any], epoch: str) -> ClaudeEvent | None:
    if subtype == "init":
        return _mcp_servers(data, epoch)
    if subtype == "api_retry":
        attempt, max_retries = _int(data, "attempt"), _int(data, "max_retries")
        if attempt is None or max_retries is None:
            raise ValueError("api_retry without attempt/max_retries")
        return RetryAttempted(
            epoch=epoch,
            attempt=attempt,
            max_retries=max_retries,
            error_status=_int(data, "error_status"),
            error=_str(data, "error"),
            retry_delay_ms=_int(data, "retry_delay_ms"),
        )
    if subtype == "model_refusal_fallback":
        original, fallback = _str(data, "original_model"), _str(data, "fallback_model")
        if not original or not fallback:
            raise ValueError("model_refusal_fallback without models")
        return ModelFellBack(
            epoch=epoch,
            original_model=original,
            fallback_model=fallback,
            refusal_category=_str(data, "api_refusal_category"),
            explanation=_str(data, "api_refusal_explanation"),
            direction=_str(data, "direction"),
            scope=_str(data, "scope"),
        )
    if subtype == "model_refusal_no_fallback":
        # docs/decisions.md#refusal-explanation: perhaps the only place Claude Code says why; the
        # core keeps it for the refusal that follows.
        explanation = _str(data, "api_refusal_explanation")
        if explanation and explanation.strip():
            return RefusalExplained(epoch=epoch, explanation=explanation)
        return None
    if subtype == "task_started":
        task_id = _str(data, "task_id")
        if not task_id:
            raise ValueError("task_started without task_id")
        # An Agent/Task subagent names its type; a background shell command does not.
        subagent = bool(_str(data, "subagent_type")) or data.get("task_type") == "local_agent"
        backgrounded = data.get("is_backgrounded") is True
        return BackgroundTaskStarted(
            epoch=epoch, task_id=task_id, subagent=subagent, backgrounded=backgrounded
        )
    if subtype == "task_updated" and _patch_status(data) not in _FINAL_TASK_STATUSES:
        patch = data.get("patch")
        if not (isinstance(patch, Mapping) and patch.get("is_backgrounded") is True):
            return None
        task_id = _str(data, "task_id")
        if not task_id:
            raise ValueError("task_updated without task_id")
        # A foreground task moved to the background (a steer, or the user): the core knows
        # whether it is a subagent of the turn.
        return BackgroundTaskStarted(
            epoch=epoch, task_id=task_id, subagent=False, backgrounded=True, moved=True
        )
    if subtype == "task_notification" or (
        subtype == "task_updated" and _patch_status(data) in _FINAL_TASK_STATUSES
    ):
        task_id = _str(data, "task_id")
        if not task_id:
            raise ValueError(f"{subtype} without task_id")
        return BackgroundTaskSettled(epoch=epoch, task_id=task_id)
    if subtype == "background_tasks_changed":
        tasks = data.get("tasks")
        if not isinstance(tasks, list):
            raise ValueError("background_tasks_changed without a task list")
        ids = [_str(t, "task_id") for t in tasks[:_MAX_TASKS] if isinstance(t, Mapping)]
        return BackgroundTasksListed(epoch=epoch, task_ids=frozenset(i for i in ids if i))
    if subtype == "worker_shutting_down":
        return WorkerShuttingDown(epoch=epoch)
    if subtype == "session_state_changed" and data.get("state") == "idle":
        return TurnWentIdle(epoch=epoch)
    if subtype == "session_state_changed" and data.get("state") == "running":
        return TurnWentBusy(epoch=epoch)
    return None


# A cycle takes up a handful of prompts; past this many a list is not one of them.
_MAX_PROMPTS = 64
# Claude Code runs a handful of background tasks; past this many a list is not one of them.
_MAX_TASKS = 256
# A `task_updated` patch status that ends the task (Claude Code may send no notification then).
_FINAL_TASK_STATUSES = frozenset({"completed", "failed", "killed", "stopped"})


def _patch_status(data: Mapping[str, Any]) -> str | None:
    patch = data.get("patch")
    status = patch.get("status") if isinstance(patch, Mapping) else None
    return status if isinstance(status, str) else None


def refusal_explanation(frame: object) -> str | None:
    """Claude's refusal explanation from an assistant message's raw frame, where the SDK's parsed
    message lost it: the SDK drops `stop_details` (docs/decisions.md#refusal-explanation; said
    only in a `model_refusal_no_fallback` frame, it is that frame's `RefusalExplained`)."""
    message = frame.get("message") if isinstance(frame, Mapping) else None
    source = message.get("stop_details") if isinstance(message, Mapping) else None
    value = source.get("explanation") if isinstance(source, Mapping) else None
    return value if isinstance(value, str) and value.strip() else None
