"""Inputs to the session core: past-tense facts the shell observed.

Theory of operation: the shell reads one thing (a client request, one message from Claude, the
outcome of a send) and hands the core one of these frozen values. The shell mints every id and
epoch; the core never reads a clock or draws a random number. Every event that comes from a
Claude runtime is a `ClaudeEvent` and carries that runtime's `epoch`, so the core can drop what
a replaced runtime says late (docs/decisions.md#delivery). Constructors validate and raise
`PeerViolation` for values no Claude process or client could mean.

An event's trigger, in any machine's table, is the snake_case of its class name
(`ResultReceived.trigger` is `result_received`): the turn machine takes every event whose
trigger its table names (`fsm/turn.py`); `SessionCore.handle` routes the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from fsm.errors import PeerViolation
from fsm.idle_compaction import IdlePolicy

__all__ = [
    "MAX_MS",
    "AnswerStreamStarted",
    "AssistantMessageReceived",
    "AuthStatusReported",
    "AutoModeFellBackAtStart",
    "AutoModeUnavailable",
    "BackgroundTaskSettled",
    "BackgroundTaskStarted",
    "BackgroundTasksListed",
    "CancelGraceExpired",
    "CancelRequested",
    "ClaudeEvent",
    "ClaudeSilent",
    "ContextMeasured",
    "CredentialsChanged",
    "DeadlineReached",
    "DeliveryConfirmed",
    "DeliveryFailed",
    "Event",
    "FastModeTurnedOff",
    "FreshContextChosen",
    "FreshContextReady",
    "HistoryFailureFound",
    "InternalFaultOccurred",
    "LimitWindow",
    "McpServerStatus",
    "McpServersPolled",
    "McpServersReconnected",
    "McpServersReported",
    "McpSignInEnded",
    "MessageTooLarge",
    "ModelChosen",
    "ModelFellBack",
    "OutputReceived",
    "OwnTurnStopFailed",
    "OwnTurnStopped",
    "PromptReceived",
    "PromptRequested",
    "PromptSent",
    "RateLimitReported",
    "RefusalExplained",
    "ResultReceived",
    "RetryAttempted",
    "RuntimeStartFailed",
    "RuntimeStarted",
    "SessionClosing",
    "SteerReceived",
    "StreamEnded",
    "TransportLost",
    "TurnWentBusy",
    "TurnWentIdle",
    "WorkerShuttingDown",
    "need",
    "trigger_of",
]


def trigger_of(event_type: type) -> str:
    """The trigger an event fires: its class name in snake_case (`TurnWentIdle` is
    `turn_went_idle`)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event_type.__name__).lower()


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every input. `trigger` is the trigger it fires in a machine's table, derived from
    its class name (`trigger_of`) when the class is made."""

    trigger: ClassVar[str] = "event"

    def __init_subclass__(cls) -> None:
        # No `super()` here: `slots=True` remakes the class, which a zero-argument `super` in
        # its body would not know (and `object.__init_subclass__` does nothing).
        cls.trigger = trigger_of(cls)


# About 285,000 years: any delay past it is not a delay Claude meant.
MAX_MS = 2**53


def need(value: str, what: str) -> None:
    if not value:
        raise PeerViolation(f"{what} must be a non-empty string")


# --- from the client (through the shell) ---------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptReceived(Event):
    """The client sent `session/prompt`; the shell stamped it with the fresh uuid `turn_id`
    and waits for a `SendPrompt` (or an answer) naming it. `by_adapter`: the prompt is the
    adapter's own idle `/compact` (`CompactWhenIdle`), which no client waits for."""

    turn_id: str
    by_adapter: bool = False

    def __post_init__(self) -> None:
        need(self.turn_id, "turn_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptSent(Event):
    """The shell sent the prompt `turn_id` to Claude at `now` (monotonic seconds, when the
    shell keeps time)."""

    turn_id: str
    now: float | None = None

    def __post_init__(self) -> None:
        need(self.turn_id, "turn_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class SteerReceived(Event):
    """The client's `_session/steering`: a message for the turn that runs. `question_open`: a
    permission question or form of the session waits for the user (interrupting Claude then
    would withdraw it). `prompt_required_when_idle`: with no turn running, the client wants
    the message back to send as a prompt of its own (`idleBehavior: "promptRequired"`)."""

    question_open: bool = False
    prompt_required_when_idle: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelRequested(Event):
    """The client sent `session/cancel` at `now`."""

    now: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class OwnTurnStopped(Event):
    """The client stopped a turn Claude runs on its own (JetBrains AIR's Stop on its Async
    Tasks entry, docs/reference-adapter.md#autonomous-turns): Claude is interrupted next, and
    the result that ends the interrupted work is no failure of it
    (docs/decisions.md#stopped-own-turn)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OwnTurnStopFailed(Event):
    """The interrupt that was to stop Claude's own turn (`InterruptOwnTurn`) failed: Claude's
    work goes on, and its result is judged as any other (docs/decisions.md#stopped-own-turn)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionClosing(Event):
    """The session is ending: the client closed it, a load or a resume replaced it, or the
    adapter is exiting. What it still asks the user is taken back."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FreshContextChosen(Event):
    """The user left plan mode with a "clear context" choice during the live turn: when that
    turn's (interrupted) result arrives, it goes on in a fresh Claude context that carries
    the plan, as the reference adapter does (docs/reference-adapter.md#clear-context). The shell
    keeps the plan and the mode."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FreshContextReady(Event):
    """The fresh context's Claude process is up (asked for by `StartFreshContext`), at `now`."""

    now: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class IdleSettingsRead(Event):
    """The shell read the settings files again (docs/decisions.md#settings-read-again): the
    idle compaction's policy as they say it now, which the next idle period and the next
    deadline go by."""

    policy: IdlePolicy


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelChosen(Event):
    """The client chose another model for the session (the model picker)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptRequested(Event):
    """The client sent `session/prompt`, fed as it arrives: before the shell answers it itself
    (`/usage`, `/mcp`) or hands it on as `PromptReceived`. An auto-mode notice held for the
    session's first prompt goes out now (`fsm/notices.py`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoModeUnavailable(Event):
    """The client chose `auto` (a mode switch, a model switch while in `auto`, a plan exit's
    "use auto mode") and the current model lacks it: the session runs in Accept edits."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoModeFellBackAtStart(Event):
    """A new Claude process started in an `auto` that the session's transcript or settings chose
    and the model lacks: it runs in Accept edits. (An `auto` nobody chose falls back to Manual,
    which is told to no one and is no event.)"""


@dataclass(frozen=True, slots=True, kw_only=True)
class FastModeTurnedOff(Event):
    """Claude Code turned the session's fast mode off for a reason it named; `explanation` is
    that reason in words (`not available on the free plan`)."""

    explanation: str

    def __post_init__(self) -> None:
        need(self.explanation, "explanation")


@dataclass(frozen=True, slots=True, kw_only=True)
class CredentialsChanged(Event):
    """The client authenticated again, or a model provider was set: Claude's process must read
    its credentials anew. `private`: the values to mask from now on besides those the session
    started with (a provider's header values; None: as they were)."""

    private: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DeadlineReached(Event):
    """The timer the shell armed for `SessionCore.next_deadline()` fired; `now` is the time
    (monotonic seconds) and `wall` the same moment in epoch seconds (for Claude's limit resets,
    which are wall-clock times)."""

    now: float
    wall: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelGraceExpired(Event):
    """Derived by the core from `DeadlineReached`: the interrupt went unanswered too long."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InternalFaultOccurred(Event):
    """Our own code raised (the core or the shell, not Claude's transport):
    docs/decisions.md#internal-faults. `where` says which part, for the log; the traceback is the
    shell's to log."""

    where: str = "adapter"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeliveryConfirmed(Event):
    """A `PublishRecord` effect's session update was sent."""

    id: str
    revision: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DeliveryFailed(Event):
    """A `PublishRecord` effect's session update could not be sent."""

    id: str
    revision: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryFailureFound(Event):
    """Replay found a stored usage-limit message (session/load). `active` marks the latest one
    that no later real-model answer recovered."""

    id: str
    title: str
    active: bool

    def __post_init__(self) -> None:
        need(self.id, "id")
        need(self.title, "title")


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeStartFailed(Event):
    """A (replacement) Claude process could not be started; `reason` is safe to show."""

    reason: str


# --- from a Claude runtime (each names its epoch) ------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudeEvent(Event):
    epoch: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeStarted(ClaudeEvent):
    """A (new) Claude process is ready; `epoch` names it from now on."""

    def __post_init__(self) -> None:
        need(self.epoch, "epoch")


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessageReceived(ClaudeEvent):
    """One assistant message. `text` is its text blocks joined; `top_level` is false for a
    subagent's message (`parent_tool_use_id` set)."""

    model: str | None
    text: str
    text_block_count: int
    error: str | None = None
    top_level: bool = True
    stop_reason: str | None = None
    refusal_explanation: str | None = None

    def __post_init__(self) -> None:
        if self.text_block_count < 0:
            raise PeerViolation("text_block_count cannot be negative")


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryAttempted(ClaudeEvent):
    """A `system/api_retry` frame. `error_status` is None when no HTTP response came back."""

    attempt: int
    max_retries: int
    error_status: int | None
    error: str | None
    retry_delay_ms: int | None = None

    def __post_init__(self) -> None:
        if self.attempt < 1 or self.max_retries < 1:
            raise PeerViolation("api_retry attempt and max_retries start at 1")
        if self.retry_delay_ms is not None and abs(self.retry_delay_ms) > MAX_MS:
            raise PeerViolation("api_retry retry_delay_ms out of range")


@dataclass(frozen=True, slots=True, kw_only=True)
class RefusalExplained(ClaudeEvent):
    """A `system/model_refusal_no_fallback` frame: the model refused and Claude Code says why
    here, perhaps only here (docs/decisions.md#refusal-explanation). The core keeps the
    explanation for the refusal message or the result that comes after it."""

    explanation: str

    def __post_init__(self) -> None:
        if not self.explanation.strip():
            raise PeerViolation("a refusal's explanation says something")


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultReceived(ClaudeEvent):
    """A `result` frame. `origin_kind` is its `origin.kind` as Claude Code wrote it (None when
    absent or not a string); the core decides which kinds no user turn asked for
    (`is_autonomous_origin`);
    `refusal_explanation` is a refusal's explanation no message of the turn carried (Claude
    Code said it only in a `system/model_refusal_no_fallback` frame)."""

    subtype: str
    is_error: bool
    result: str | None = None
    errors: tuple[str, ...] = ()
    stop_reason: str | None = None
    origin_kind: str | None = None
    refusal_explanation: str | None = None
    total_cost_usd: float | None = None  # what the session has cost so far, as Claude Code says
    # The user messages the result's cycle took up (`user_message_uuid(s)`): a cycle Claude
    # began on its own that took a prompt up answers that prompt.
    prompts: frozenset[str] = frozenset()
    # The fast mode the result says (`fast_mode_state` `on` or `off`; None: it says none, or
    # `cooldown`), and why it is off (`fast_mode_disabled_reason`), as Claude Code wrote them.
    fast_on: bool | None = None
    fast_reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTaskStarted(ClaudeEvent):
    """`system/task_started`: Claude Code started task `task_id`; `subagent` when it is an
    Agent/Task subagent, not a shell command; `backgrounded` when it runs in the background
    (`is_backgrounded`), so that its end wakes Claude for a follow-up even when it ends before
    the turn's own result. `moved`: not a start but a `system/task_updated` whose patch says
    the task now runs in the background (a steer, or the user, moved a foreground subagent
    there); the frame does not say whether it is a subagent, the turn knows its own."""

    task_id: str
    subagent: bool
    backgrounded: bool = False
    moved: bool = False

    def __post_init__(self) -> None:
        need(self.task_id, "task_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptEchoed(ClaudeEvent):
    """Claude Code echoed the user message `turn_id` (`--replay-user-messages`): it took that
    message up now. For a prompt pushed while another turn ran, this is where its turn
    begins; any other echo is nothing to the core."""

    turn_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptQueued(ClaudeEvent):
    """Claude Code queued the user message `turn_id` (its `command_lifecycle` frame in state
    `queued`): a CLI that says so also says when it starts the message (`PromptStarted`), before
    anything it does for it, so until then what Claude does is its own work
    (docs/decisions.md#turn-begins-at-echo)."""

    turn_id: str

    def __post_init__(self) -> None:
        need(self.turn_id, "turn_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptStarted(ClaudeEvent):
    """Claude Code started the user message `turn_id` (its `command_lifecycle` frame in state
    `started`): it took that message up, before anything it does for it (a local command's
    output, the request's retries, the echo). Where a prompt's turn begins when no turn of
    Claude's runs (docs/decisions.md#turn-begins-at-echo); a pushed prompt still hands off at
    its echo, which comes first when it is taken up into a running turn."""

    turn_id: str

    def __post_init__(self) -> None:
        need(self.turn_id, "turn_id")


class PromptFate(StrEnum):
    """How Claude Code says a user message it was sent ended (`command_lifecycle`'s terminal
    states; the bundled CLI's schema names exactly these four)."""

    COMPLETED = "completed"  # the turn that took it in ended; unstarted: set aside, not run
    CANCELLED = "cancelled"  # withdrawn or swept from its queue, or its turn was aborted
    DISCARDED = "discarded"  # Claude Code's session ended with it still queued
    REFUSED = "refused"  # declined before it entered the queue: it will not run


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptEnded(ClaudeEvent):
    """Claude Code says the user message `turn_id` reached its end, `fate` (its
    `command_lifecycle` frame in a terminal state), once per message. After its start the turn's
    result answers the prompt; a prompt it never started it will not run, and no result of it
    comes (docs/decisions.md#prompt-ended-unstarted)."""

    turn_id: str
    fate: PromptFate

    def __post_init__(self) -> None:
        need(self.turn_id, "turn_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTaskSettled(ClaudeEvent):
    """Task `task_id` ended (`task_notification`, or a `task_updated` whose status is final);
    an id no start named is nothing to the core."""

    task_id: str

    def __post_init__(self) -> None:
        need(self.task_id, "task_id")


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTasksListed(ClaudeEvent):
    """`system/background_tasks_changed`: every background task still live (a level, sent on
    each change). A task of the turn's not in it ended though its end was never said."""

    task_ids: frozenset[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelFellBack(ClaudeEvent):
    """A `system/model_refusal_fallback` frame."""

    original_model: str
    fallback_model: str
    refusal_category: str | None = None
    explanation: str | None = None
    direction: str | None = None
    scope: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class McpServerStatus:
    """One entry of Claude Code's `mcp_servers` statuses, as read: None where the field was
    missing or not a string (the core judges the shape, `notices.py`)."""

    name: str | None
    status: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class McpServersReported(ClaudeEvent):
    """The `mcp_servers` of a `system/init` frame (Claude Code writes one each turn)."""

    servers: tuple[McpServerStatus, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class McpServersPolled(ClaudeEvent):
    """Claude Code's answer to `mcp_status`, asked once the session's setup response is out:
    which of the client's servers wait for a sign-in (`fsm.claude.mcp_sign_in`)."""

    servers: tuple[McpServerStatus, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class McpServersReconnected(Event):
    """`/mcp reconnect` tried these servers again (answered by the adapter, not a turn): one of
    the client's that needs a sign-in may be signed in to again (`fsm.claude.mcp_sign_in`)."""

    names: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class McpSignInEnded(Event):
    """The sign-in the core started for the client's MCP server `name` (`SignInMcpServer`)
    ended with `outcome`, one of `fsm.claude.mcp_sign_in.OUTCOMES`."""

    name: str
    outcome: str
    status: ClassVar[str] = "needs-auth"  # what the server still is unless it connected


@dataclass(frozen=True, slots=True, kw_only=True)
class AuthStatusReported(ClaudeEvent):
    is_authenticating: bool
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LimitWindow:
    """One window a subscription is metered on (`unifiedWindows.<name>` of a `rate_limit_event`,
    or its top-level `rateLimitType`): `utilization` is a fraction (0.92 is 92%), `resets_at`
    epoch seconds. `utc_offset_seconds` is the agent's local offset from UTC at `resets_at`
    (the shell's clock knows it; the title shows the reset in local time,
    docs/decisions.md#early-limit-warning)."""

    name: str
    status: str
    utilization: float | None = None
    resets_at: int | None = None
    utc_offset_seconds: int = 0

    def __post_init__(self) -> None:
        if self.resets_at is not None and abs(self.resets_at) > MAX_MS // 1000:
            raise PeerViolation("rate limit window resets_at out of range")
        if abs(self.utc_offset_seconds) > 86_400:
            raise PeerViolation("a UTC offset is less than a day")


@dataclass(frozen=True, slots=True, kw_only=True)
class RateLimitReported(ClaudeEvent):
    """A `rate_limit_event`: `status` and `resets_at` (epoch seconds) of the window that applies,
    and every window Claude reported (`windows`). The shell stamps it with its clocks: `now`
    (monotonic seconds, the core's deadlines) and `wall` (epoch seconds, Claude's reset times),
    and names the agent's time zone (`zone`, as Claude Code prints it: "UTC", "Europe/Paris")."""

    status: str
    resets_at: int | None = None
    windows: tuple[LimitWindow, ...] = ()
    now: float | None = None
    wall: float | None = None
    zone: str = "UTC"

    def __post_init__(self) -> None:
        if self.resets_at is not None and abs(self.resets_at) > MAX_MS // 1000:
            raise PeerViolation("rate limit resets_at out of range")


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudeSilent(ClaudeEvent):
    """Claude has said nothing for `waited_seconds` during a live turn (the shell's watchdog)."""

    waited_seconds: int

    def __post_init__(self) -> None:
        if self.waited_seconds < 1:
            raise PeerViolation("waited_seconds starts at 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputReceived(ClaudeEvent):
    """Claude wrote a frame at `now` (monotonic seconds): the stall clock starts again."""

    now: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextMeasured(ClaudeEvent):
    """Claude's latest report says the context holds `tokens` tokens (at a turn's result, or
    what a compaction retained), and its last request's prompt cache lives `cache_ttl` (`1h`,
    `5m`; None: not said); idle compaction reads them."""

    tokens: int
    cache_ttl: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.tokens, bool) or not isinstance(self.tokens, int) or self.tokens < 0:
            raise PeerViolation(f"a context of {self.tokens!r} tokens")


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerStreamStarted(ClaudeEvent):
    """Claude began streaming a top-level message (`message_start` of a partial-message stream;
    `model` is the one it names). A real model's answer after a failure message means Claude got
    past it: the withheld prose must go out before the answer's first words
    (docs/decisions.md#error-prose-without-record)."""

    model: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnWentBusy(ClaudeEvent):
    """Claude reported itself running (`session_state_changed: running`): it took the prompt."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnWentIdle(ClaudeEvent):
    """Claude reported itself idle (`session_state_changed: idle`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerShuttingDown(ClaudeEvent):
    """A `system/worker_shutting_down` frame: the stream's end will be a shutdown."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamEnded(ClaudeEvent):
    """Claude's output ended without an error from the SDK."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TransportLost(ClaudeEvent):
    """The runtime died or its stream broke (the SDK raised, the process exited non-zero)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageTooLarge(ClaudeEvent):
    """Claude sent one message larger than the adapter accepts (`limit_bytes`); its stream
    cannot go on, and the runtime's end that follows is part of this same fault."""

    limit_bytes: int
