"""Outputs of the session core: what the shell must do, in order.

Theory of operation: `SessionCore.handle` returns a list of these; the shell performs them one
after another before it feeds the next event. Exactly one of `SettlePrompt` or `RejectPrompt`
is ever returned per prompt, and each names the prompt it answers (`turn_id`: the live one, or
a queued prompt cancelled, a prompt refused by a broken session). Every result the core takes is
answered first with `ShowResult`, whose it is. Every row that ends the live
turn, every cancel and the session's close return `WithdrawQuestions` first: a question still
open belongs to a turn that is over. After performing a `PublishRecord`, the shell
must report the outcome with `DeliveryConfirmed` or `DeliveryFailed` (the h11 `send_failed`
pattern); after a `SendPrompt`, it reports `PromptSent` (or `RuntimeStartFailed`). The shell
decides nothing: which prompt goes next, when Claude is interrupted or stopped and when its
process is replaced all arrive here as effects, and when the core next needs waking is
`SessionCore.next_deadline()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from fsm.records import FailureRecord
from fsm.vocabulary import FailureKind

__all__ = [
    "AnswerSteer",
    "CloseOpenCalls",
    "CompactWhenIdle",
    "Effect",
    "FailedTurn",
    "ForwardAssistantMessage",
    "InterruptClaude",
    "InterruptOwnTurn",
    "LogNotice",
    "PollMcpServers",
    "PublishRecord",
    "RejectPrompt",
    "SendAgentText",
    "SendContinuation",
    "SendNotice",
    "SendPrompt",
    "SettlePrompt",
    "ShowResult",
    "SignInMcpServer",
    "StartFreshContext",
    "StopReason",
    "StopRuntime",
    "WithdrawQuestions",
]


class StopReason(StrEnum):
    END_TURN = "end_turn"
    MAX_TOKENS = "max_tokens"
    MAX_TURN_REQUESTS = "max_turn_requests"
    REFUSAL = "refusal"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True, kw_only=True)
class Effect:
    """Base of every output."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishRecord(Effect):
    """Send `record` in a `session_info_update`; then report delivery back to the core.
    `agent_error` false: not in the agent_error dialect (a limit's reset revision,
    docs/decisions.md#limit-that-resets: that dialect carries the reset time on the failure's own
    update)."""

    record: FailureRecord
    agent_error: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class FailedTurn:
    """A failed turn, before its answer dialect (`fsm/turn.py`) makes it the client's answer:
    the record's kind, words and Claude's retry hints, or the legacy JSON-RPC error's."""

    kind: FailureKind
    text: str
    error_kind: str | None
    retry_after_seconds: float | None = None
    reset_at_epoch_ms: int | None = None
    # Whether `text` is Claude's words (not the adapter's own), and whether the client already
    # has them as agent text: a legacy client reads Claude's words in the transcript, once
    # (docs/decisions.md#legacy-error-text-once).
    claudes_words: bool = False
    shown: bool = False
    line_open: bool = False  # the client's text so far ends mid-line


@dataclass(frozen=True, slots=True, kw_only=True)
class SettlePrompt(Effect):
    """Answer the prompt `turn_id` (the live one, or one that waited for it); a turn-terminal
    `record` rides on the response's `_meta`. `failure` is internal to the core: its answer
    dialect turns it into the record (or a legacy `RejectPrompt`), so the shell never sees it
    set."""

    stop_reason: StopReason
    turn_id: str
    record: FailureRecord | None = None
    failure: FailedTurn | None = None
    # Prompt queueing: the next prompt's echo ended this turn while Claude's work goes on
    # for that prompt, so what is still open (tool calls, a streaming message) stays open.
    handed_off: bool = False
    # False: Claude never took the prompt up (one that waited behind the live turn, or one
    # Claude Code ended unstarted, docs/decisions.md#prompt-ended-unstarted). None of what the
    # session shows is its: its answer carries no usage and ends nothing that is open.
    ran: bool = True


class Blame(StrEnum):
    """Whose move a refused prompt waits for; the shell maps it to the protocol's error code
    (the core speaks no JSON-RPC)."""

    AUTH = "auth"  # the user must sign in again
    INTERNAL = "internal"  # anything else: Claude's failure, or the adapter's own


@dataclass(frozen=True, slots=True, kw_only=True)
class RejectPrompt(Effect):
    """Answer the prompt `turn_id` with an error instead of a response: a legacy client's
    failed turn, or a prompt to a broken session."""

    blame: Blame
    message: str
    turn_id: str
    error_kind: str | None = None
    # As `SettlePrompt.ran`: False for a prompt Claude never took up.
    ran: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class WithdrawQuestions(Effect):
    """Take back every question the session has open for the user: permission requests
    (a plan exit's among them), AskUserQuestion forms and MCP servers' forms. Each is withdrawn
    from the client with `$/cancel_request`, and a late answer finds nobody waiting. The turn
    they belong to is over (answered, failed or cancelled), or the session is closing."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ForwardAssistantMessage(Effect):
    """Stream the assistant message just handled to the client as usual. `mask`: it is Claude's
    error prose (an API error, a notice Claude Code composed), masked like any error text
    (docs/decisions.md#secrets); the model's own answer is the user's content, sent verbatim."""

    mask: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class SendAgentText(Effect):
    """Send adapter-chosen text as an `agent_message_chunk` (with `meta` as its `_meta`)."""

    text: str
    meta: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SendNotice(Effect):
    """Send an ACP `notice` update (a client that declared `session.notices` and not
    sessionFailure, docs/decisions.md#acp-notices). Fire and forget: nothing is reported back."""

    severity: str
    title: str
    description: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ShowResult(Effect):
    """Whose the result just handled is, the first effect of every result the core takes
    (docs/decisions.md#result-owner): show it now, before what else it ends. `turn_id` names
    the prompt whose turn it answers: its text is shown as that turn's answer where the turn
    showed nothing else, and its tokens count toward that prompt's usage. None: Claude's own
    work (an autonomous follow-up, a cancelled prompt's late result, a result between turns,
    before a queued prompt's start, of a broken session or a replaced process): its text is
    no prompt's answer and its tokens count toward no turn. Its `usage_update` goes out
    either way. `fast_on` and `fast_reason`: the fast mode a prompt's result says, for the
    switch to follow (None: it says none, or the result is no prompt's: a cancelled prompt's
    late result, a `/loop` fire's, is no user's turn whatever its origin)."""

    turn_id: str | None = None
    fast_on: bool | None = None
    fast_reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CloseOpenCalls(Effect):
    """Work no prompt owns ended at its result (between turns, or Claude's own work during a
    turn, docs/decisions.md#own-work-ends-its-cards): its tool cards that never got a result
    end failed, a message still streaming breaks off; a background subagent's cards stay open.
    Whose the result's tokens are is `ShowResult`'s, which comes before it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogNotice(Effect):
    """Something was dropped on purpose; the shell logs it to stderr."""

    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PollMcpServers(Effect):
    """Ask Claude Code `mcp_status` and report what it says as `McpServersPolled`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SignInMcpServer(Effect):
    """Sign the user in to the client's MCP server `name` (`fsm.claude.mcp_sign_in`): Claude Code's
    `mcp_authenticate`, its page as a URL elicitation, until the server connects; the end is
    reported as `McpSignInEnded`."""

    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerSteer(Effect):
    """Answer the client's `_session/steering` with `outcome`: `injected` (send the message to
    Claude now, into the running turn, at `priority` `now` or `later`), `promptRequired` (no
    turn runs; the client sends it as a prompt) or `startedNewTurn` (no turn runs; the shell
    sends it as a prompt of its own, whose answer nobody waits for)."""

    outcome: str
    priority: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SendPrompt(Effect):
    """Send the waiting prompt `turn_id` to Claude now, first starting a Claude process when
    `replace_runtime` (none was started yet, it was lost, or the credentials changed: the
    runtime machine decides, `runtime.py`), replacing any old one; then report `PromptSent`."""

    turn_id: str
    replace_runtime: bool = False
    # Prompt queueing: sent while another turn runs, Claude Code takes it up when it is ready;
    # its turn begins at its echo (`TurnTakenUp`), not now.
    pushed: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnTakenUp(Effect):
    """Claude Code took up the pushed prompt `turn_id` (its echo): its turn begins now (the
    view starts the turn's usage, title and side messages)."""

    turn_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class WithdrawPrompt(Effect):
    """Ask Claude Code to drop the pushed prompt `turn_id` from its queue (Claude Code's
    `cancel_async_message`; a no-op if it was taken up already): its prompt was answered
    `cancelled`."""

    turn_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactWhenIdle(Effect):
    """The session sat idle long enough (`idle_compaction.py`): send Claude `/compact` as the
    session's own turn, the `number`th of this session. The shell mints its turn id, keeps
    its answer (no client waits for it) and reports `PromptReceived(by_adapter=True)` at once,
    before any other event, so no client prompt can go first."""

    number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StartFreshContext(Effect):
    """Close Claude's process and start a fresh context for the live turn `turn_id` (a new
    Claude session, nothing resumed); then report `FreshContextReady` or `RuntimeStartFailed`."""

    turn_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SendContinuation(Effect):
    """Send the fresh context its first message, the accepted plan, as turn `turn_id`."""

    turn_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class InterruptClaude(Effect):
    """Ask Claude to stop the live turn (sent once per turn, however often the client cancels)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InterruptOwnTurn(Effect):
    """Interrupt the turn Claude runs on its own, which the client asked to stop (JetBrains
    AIR's Stop on its Async Tasks entry); the stop request is answered by how the interrupt
    went. No prompt waits, or the interrupt would drop it: without this effect the core
    refused the stop, and the request is answered `stopped: false`
    (docs/decisions.md#stopped-own-turn)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StopRuntime(Effect):
    """Stop Claude's process: it ignored the interrupt; its end will settle the turn."""
