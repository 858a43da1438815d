"""The turn-lifecycle machine: it decides what each of Claude's signals means for the turn.

Everything that decides a turn lives in this module (h11's rule for its own state machine):
the states, the table `TRANSITIONS`, the guards it names, the callbacks it names, and `Turn`,
the one class that is the machine's model. The table comes first; read it top to bottom.

Theory of operation: one `Turn` per session, attached to the one `TURN_MACHINE`. Every trigger
is a core event (its class name in snake_case, `fsm.events.trigger_of`), fired with the event
as its argument; the events whose trigger the table names are `TURN_TRIGGERS`. The rows of
`TRANSITIONS` for one (state, trigger) pair are tried in order; the first whose guards hold
wins and its `before` callbacks append the effects. That ordered table *is* the decision:
`diagrams/turn.mmd` draws it and `diagrams/turn.md` lists it, one numbered line per rule in the
order tried. The rows are literal: a row naming several states is that row in each of them;
PROMPT_SENT has a block of its own (until Claude Code starts or echoes the prompt, Claude's
work is its own).
The design card's three questions are rows:
- when a warning escalates to an error: `RETRYING --result_received [is_an_error,
  has_a_warning_out] / confirm_boundary, escalate_warning --> IDLE` (the warning's own
  `<turnId>:error` becomes the error, next revision), and FAILING's `[has_a_warning_out]` twin;
  a turn with no warning out fails with `fail_with_result`, a record of its own (revision 1).
  RETRYING means "a warning of this turn was proposed": rows enter it where one is published
  (or, from FAILING, when Claude gets past a failure while one is out) and no row leaves it for
  RUNNING. Its other rows are RUNNING's; their `fail_*` callbacks revise the same entry,
  because a turn has one failure id (docs/decisions.md#turn-ids: WARNING: hand-coded, not drawn, in
  the ledger);
- when `api_retry` progress reuses the turn id: `RUNNING --retry_attempted [unless
  is_a_quiet_retry] / warn_under_turn_id --> RETRYING` (docs/decisions.md#retry-progress: a 401, or
  a client that takes no warnings, is quiet);
- when a recovery boundary is confirmed: `confirm_boundary` on every non-autonomous
  result of a user turn, `recover_after_answer` on `[was_answered_for_real]` rows (the incident
  machine then decides which incident each boundary retires).

Where clients differ, the rows say so: `[takes_records]` rows make records (sessionFailure or
agentError) and their twins below forward Claude's prose or log; a failed turn has one row for
every client, and the answer dialect (`RecordAnswers`, `LegacyAnswers`, at the end of this
module) makes its settle a legacy JSON-RPC error.

States are what changes behaviour: PROMPT_SENT (Claude Code has not started the prompt
(`command_lifecycle` `started`) or echoed it yet, so what it says is its own work and an idle
belongs to the previous turn; a stall leaves it there, docs/decisions.md#turn-begins-at-echo),
RUNNING, RETRYING (a warning is out under the turn id), FAILING (a failure message was seen and not
recovered from: its prose is withheld for the record, docs/decisions.md#capable-clients), CANCELLING
(one interrupt is out), RESETTING (between a plan exit that clears the context and the fresh
context's first message), IDLE (no turn live; `outcome` says how the last one ended), BROKEN (an
internal fault, docs/decisions.md#internal-faults: sticky, every later prompt is refused). What only
feeds a title (Claude's words, the error kind, retry hints) is data on the model.

Guards are pure predicates over the event and what the turn has seen; they never change the
model or make an effect. Callbacks run after the row's guards chose it and before the state
changes, so one that raises leaves the state as it was; nothing in a callback decides which row
applies (where one looks at data, that is a title or payload choice, not a transition). A row
that touches another machine (the incidents' recovery boundaries, the runtime's end) only
records it; `Turn.fire` applies it once every callback of the row ran.

Rules that are not rows (WARNING: hand-coded, not drawn): settling a turn withdraws the
session's open questions (`WithdrawQuestions`) right before its answer, which names its prompt,
and dispatches the next queued prompt (`_settled`, which every row that ends a turn reaches; a
hand-off does neither: Claude's work, its questions and the pushed prompt's turn go on);
prompts pushed to a runtime that is then lost between turns are sent to a fresh one
(`Turn.fire`); a turn has one failure id, so every failure of a live turn revises it (the
ledger's id spelling); the runtime's `runtime_lost` is fired by `Turn.fire` after a row that
named `note_runtime_lost`.

What lives elsewhere: ids and revisions (`ledger.py`), the runtime machine (`runtime.py`), the
epoch filter, timers and the routing of events (`session.py`).
"""

from __future__ import annotations

from dataclasses import replace
from enum import Enum, StrEnum
from typing import Any, Protocol

from fsm.claude import classify, synthetic_messages
from fsm.effects import (
    AnswerSteer,
    Blame,
    CloseOpenCalls,
    Effect,
    FailedTurn,
    ForwardAssistantMessage,
    InterruptClaude,
    InterruptOwnTurn,
    LogNotice,
    PublishRecord,
    RejectPrompt,
    SendAgentText,
    SendContinuation,
    SendPrompt,
    SettlePrompt,
    ShowResult,
    StartFreshContext,
    StopReason,
    StopRuntime,
    TurnTakenUp,
    WithdrawPrompt,
    WithdrawQuestions,
)
from fsm.errors import FsmError
from fsm.events import (
    AssistantMessageReceived,
    BackgroundTaskSettled,
    BackgroundTasksListed,
    BackgroundTaskStarted,
    Event,
    MessageTooLarge,
    PromptEchoed,
    PromptEnded,
    PromptFate,
    PromptQueued,
    PromptReceived,
    PromptSent,
    PromptStarted,
    ResultReceived,
    RetryAttempted,
    RuntimeStartFailed,
    SteerReceived,
)
from fsm.incident import IncidentTrigger
from fsm.ledger import Hints, Ledger
from fsm.machine import build_machine, fire, one_row_per_trigger
from fsm.records import redact
from fsm.runtime import Runtime
from fsm.vocabulary import FailureKind, Severity, policy_for

__all__ = [
    "AUTH_REQUIRED_MESSAGE",
    "BROKEN_REASON",
    "LIVE_STATES",
    "MESSAGE_TOO_LARGE_TITLE",
    "SIGN_IN_HINT",
    "TRANSITIONS",
    "TURN_MACHINE",
    "TURN_NO_RESULT_TITLE",
    "TURN_TRIGGERS",
    "AnswerDialect",
    "LegacyAnswers",
    "RecordAnswers",
    "Turn",
    "TurnOutcome",
    "TurnState",
    "answer_dialect",
]


class TurnState(Enum):
    IDLE = "idle"
    PROMPT_SENT = "prompt-sent"
    RUNNING = "running"
    RETRYING = "retrying"
    FAILING = "failing"
    CANCELLING = "cancelling"
    # Between a plan exit that clears the context and the fresh context's first message.
    RESETTING = "resetting"
    BROKEN = "broken"


class TurnOutcome(StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    REFUSED = "refused"


IDLE, PROMPT_SENT, RUNNING = TurnState.IDLE, TurnState.PROMPT_SENT, TurnState.RUNNING
RETRYING, FAILING, CANCELLING = TurnState.RETRYING, TurnState.FAILING, TurnState.CANCELLING
RESETTING, BROKEN = TurnState.RESETTING, TurnState.BROKEN
# Live, no failure seen, no cancel asked. PROMPT_SENT's own block says what differs before the
# prompt's echo; from the echo on, the turn is HEARD_FROM.
WORKING = [PROMPT_SENT, RUNNING, RETRYING]
HEARD_FROM = [RUNNING, RETRYING]
# A turn is live from the prompt's dispatch until its answer.
LIVE_TURN = [PROMPT_SENT, RUNNING, RETRYING, FAILING, CANCELLING, RESETTING]
LIVE_STATES = frozenset(LIVE_TURN)


def _row(
    trigger: str | list[str],
    source: TurnState | list[TurnState],
    dest: TurnState | str | None,
    *before: str,
    when: str | list[str] | None = None,
    unless: str = "",
) -> dict[str, Any]:
    """One literal row: `dest` None is internal (the state stays), `"="` re-enters the source;
    `before` are the callbacks, `when` the guards that must hold, `unless` one that must not."""
    row: dict[str, Any] = {"trigger": trigger, "source": source, "dest": dest}
    if before:
        row["before"] = list(before)
    if when:
        row["conditions"] = [when] if isinstance(when, str) else list(when)
    if unless:
        row["unless"] = [unless]
    return row


# fmt: off
TRANSITIONS: list[dict[str, Any]] = [
    # --- IDLE: between turns, failures are session-scoped records ---------------------------------
    # See docs/decisions.md#failures-between-turns.
    # Prompt queueing: a prompt pushed earlier still waits for Claude to take it up; this one
    # joins it in Claude Code's queue.
    _row("prompt_received", IDLE, None, "push_prompt",
         when=["awaits_an_echo", "claude_takes_it_now"]),
    _row("prompt_received", IDLE, None, "queue_prompt", when="has_a_prompt_in_flight"),
    _row("prompt_received", IDLE, None, "dispatch_prompt"),
    # A pushed prompt's turn begins at its echo, not when it was sent.
    _row("prompt_sent", IDLE, None, "note_pushed_sent", when="was_pushed"),
    _row("prompt_sent", IDLE, PROMPT_SENT, "open_turn"),
    _row("prompt_echoed", IDLE, RUNNING, "take_up_pushed", when="echoes_a_pushed_prompt"),
    _row("prompt_echoed", IDLE, None),
    # A pushed prompt's turn begins at its echo; a started prompt no turn waits for is nothing.
    _row(["prompt_started", "prompt_queued"], IDLE, None),
    # docs/decisions.md#prompt-ended-unstarted: a pushed prompt Claude Code ended before its echo
    # never ran and never will: withdrawn, it is cancelled; set aside or declined, it fails. Its
    # session's end is the runtime's, which sends it to a fresh process.
    _row("prompt_ended", IDLE, None, "cancel_pushed",
         when=["names_a_pushed_prompt", "was_withdrawn"]),
    _row("prompt_ended", IDLE, None, "reject_pushed", when="names_a_pushed_prompt",
         unless="was_discarded"),
    _row("prompt_ended", IDLE, None),
    # docs/decisions.md#failures-between-turns: a failure message between turns is a session-scoped
    # record, or (for a client that takes no records) the transcript's text; a login prompt is
    # neither.
    _row("assistant_message_received", IDLE, None,
         when=["is_a_failure_message", "is_a_login_prompt"]),
    _row("assistant_message_received", IDLE, None, "report_failure_message",
         when=["is_a_failure_message", "takes_records"]),
    _row("assistant_message_received", IDLE, None, "forward_message", "log_failure_message",
         when="is_a_failure_message"),
    _row("assistant_message_received", IDLE, None, "forward_message"),
    _row("retry_attempted", IDLE, None, "note_retry_hint", when="is_a_quiet_retry"),
    _row("retry_attempted", IDLE, None, "note_retry_hint", "warn_between_turns"),
    # A result between turns ends work no prompt owns, whatever its origin (a scheduled or
    # `/loop` fire has none): its cards end with it, as the reference closes a cycle's
    # (docs/decisions.md#own-work-ends-its-cards).
    # docs/decisions.md#stopped-own-turn: the client stopped Claude's own turn; the result that
    # ends it, an interrupt's error, is no failure, and the stop is spent, whatever it says.
    _row("result_received", IDLE, None, "show_own_work", "close_open_calls",
         "forget_own_turn_stop", when="own_turn_was_stopped"),
    _row("result_received", IDLE, None, "show_own_work", "close_open_calls",
         when="was_stopped_by_the_user"),
    _row("result_received", IDLE, None, "show_own_work", "close_open_calls", "report_error_result",
         when=["is_an_unreported_error", "takes_records"]),
    _row("result_received", IDLE, None, "show_own_work", "close_open_calls", "log_error_result",
         when="is_an_unreported_error"),
    _row("result_received", IDLE, None, "show_own_work", "close_open_calls"),
    _row(["stream_ended", "transport_lost"], IDLE, None, "log_repeated_loss",
         when="runtime_was_lost"),
    _row(["stream_ended", "transport_lost"], IDLE, None, "note_runtime_lost",
         "report_worker_shutdown", when=["worker_is_shutting_down", "takes_records"]),
    _row(["stream_ended", "transport_lost"], IDLE, None, "note_runtime_lost", "log_worker_shutdown",
         when="worker_is_shutting_down"),
    _row("stream_ended", IDLE, None, "note_runtime_lost"),
    _row("transport_lost", IDLE, None, "note_runtime_lost", "report_transport_lost",
         when="takes_records"),
    _row("transport_lost", IDLE, None, "note_runtime_lost", "log_transport_lost"),
    _row("runtime_start_failed", IDLE, None, "note_runtime_lost", "log_start_failure"),
    _row("message_too_large", IDLE, None, "note_runtime_lost"),
    _row("cancel_requested", IDLE, None, "withdraw_questions", "cancel_queued"),
    # docs/decisions.md#stopped-own-turn: Claude's work ended with no result after the stop
    # (it was ending already): none will come of it.
    _row("turn_went_idle", IDLE, None, "forget_own_turn_stop", when="own_turn_was_stopped"),
    _row(["claude_silent", "turn_went_busy", "answer_stream_started", "turn_went_idle",
          "cancel_grace_expired"], IDLE, None),
    # Work Claude starts between turns is its own: no turn waits for it.
    _row(["background_task_started", "background_task_settled", "background_tasks_listed"], IDLE,
         None),
    # No turn runs: the steer is the client's prompt to send, or the shell's to send for it.
    _row("steer_received", IDLE, None, "refuse_steer"),
    # --- PROMPT_SENT: the prompt is written; Claude Code has not started or echoed it yet -------
    # docs/decisions.md#turn-begins-at-echo: the turn begins when Claude Code says it started the
    # prompt (`command_lifecycle`, before anything it does for it) or echoes it. What Claude says
    # before that is its own work (a task notification's follow-up, a `/loop` fire), shown and
    # handled as between turns; a result that is not Claude's own work still answers a prompt
    # Claude Code answered without either (a CLI that says no start writes a local command's
    # output before its echo, and echoes no `/compact`). A CLI that said it queued the prompt
    # says when it starts it, so before that nothing is the prompt's. A stall warning leaves
    # the prompt waiting; taken up with a warning out, the turn is RETRYING.
    _row(["prompt_started", "prompt_echoed"], PROMPT_SENT, RETRYING, "note_taken_up",
         when=["names_the_live_prompt", "has_a_warning_out"]),
    _row(["prompt_started", "prompt_echoed"], PROMPT_SENT, RUNNING, "note_taken_up",
         when="names_the_live_prompt"),
    _row("prompt_queued", PROMPT_SENT, None, "note_queued", when="names_the_live_prompt"),
    # docs/decisions.md#prompt-ended-unstarted: Claude Code ended the prompt without starting it,
    # so it will not run and no result of it comes. Withdrawn or swept from Claude Code's queue,
    # it is cancelled; set aside or declined, it fails; Claude Code's session ended with it
    # queued, the runtime's end that follows answers it.
    _row("prompt_ended", PROMPT_SENT, IDLE, "settle_unstarted",
         when=["names_the_live_prompt", "was_withdrawn"]),
    _row("prompt_ended", PROMPT_SENT, IDLE, "fail_not_run", when="names_the_live_prompt",
         unless="was_discarded"),
    _row("assistant_message_received", PROMPT_SENT, None,
         when=["is_a_failure_message", "is_a_login_prompt"]),
    _row("assistant_message_received", PROMPT_SENT, None, "report_failure_message",
         when=["is_a_failure_message", "takes_records"]),
    _row("assistant_message_received", PROMPT_SENT, None, "forward_message", "log_failure_message",
         when="is_a_failure_message"),
    _row("assistant_message_received", PROMPT_SENT, None, "forward_message"),
    # A retry before a queued prompt's start is of Claude's own work, a warning between turns.
    _row("retry_attempted", PROMPT_SENT, None, when=["was_queued", "is_a_quiet_retry"]),
    _row("retry_attempted", PROMPT_SENT, None, "warn_between_turns", when="was_queued"),
    # Otherwise Claude Code retries a request before it echoes the prompt the request is for: a
    # retry is the prompt's (its warning under the turn id), as before the echo it cannot be
    # told apart.
    _row("retry_attempted", PROMPT_SENT, None, "note_retry_hint", when="is_a_quiet_retry"),
    # Claude went busy, began a message or went idle for its own work; an idle is the
    # previous turn's.
    _row(["turn_went_busy", "answer_stream_started", "turn_went_idle"], PROMPT_SENT, None),
    # A task its own work starts is no subagent of this turn's.
    _row("background_task_started", PROMPT_SENT, None),
    # A result of another message's cycle (a cancelled prompt's late one, a `/loop` or scheduled
    # fire), or any before a queued prompt's start, ends work no prompt owns: it is not this
    # prompt's answer (the reference's guard for a cancelled prompt's result;
    # docs/decisions.md#result-owner).
    _row("result_received", PROMPT_SENT, None, "show_own_work", "close_open_calls",
         when="names_other_prompts"),
    _row("result_received", PROMPT_SENT, None, "show_own_work", "close_open_calls",
         when="was_queued", unless="names_the_prompt"),
    # The watchdog's warning, under the turn id, leaves the prompt waiting for its start.
    _row("claude_silent", PROMPT_SENT, None, "log_silence", when="stalls_are_quiet"),
    _row("claude_silent", PROMPT_SENT, None, "warn_stalled"),
    # --- RUNNING, RETRYING (and PROMPT_SENT where its block did not decide): the turn's end ---
    _row("assistant_message_received", HEARD_FROM, "=", "forward_message",
         when="is_from_a_subagent"),
    # docs/decisions.md#capable-clients: a failure message's prose is withheld to become the
    # record's title; a client that takes no records reads it in the transcript; a login prompt is
    # neither.
    _row("assistant_message_received", HEARD_FROM, FAILING, "note_failure",
         when=["is_a_failure_message", "is_a_login_prompt"]),
    _row("assistant_message_received", HEARD_FROM, FAILING, "note_failure", "withhold_failure",
         when=["is_a_failure_message", "takes_records"]),
    _row("assistant_message_received", HEARD_FROM, FAILING, "note_failure", "forward_message",
         when="is_a_failure_message"),
    _row("assistant_message_received", HEARD_FROM, "=", "take_answer"),
    _row("retry_attempted", HEARD_FROM, "=", "note_retry_hint", when="is_a_quiet_retry"),
    _row("retry_attempted", WORKING, RETRYING, "note_retry_hint", "warn_under_turn_id"),
    # A held turn's subagents ended and Claude followed up on its own: that answers it. The
    # follow-up is still Claude's own work: its cards close and its tokens are no turn's, as the
    # reference's autonomous results never add to a turn's usage
    # (docs/reference-adapter.md#autonomous-turns, docs/decisions.md#result-owner).
    _row("result_received", HEARD_FROM, IDLE, "show_own_work", "close_open_calls",
         "confirm_boundary", "settle_succeeded", when=["is_autonomous", "is_held_and_drained"]),
    # Claude's own work is not this turn's: a prompt Claude has not taken up is still waiting
    # (so the idle that work ends with belongs to the previous turn).
    _row("result_received", WORKING, "=", "show_own_work", "close_open_calls",
         when="is_autonomous"),
    # Section 2.3: the plan exit's interrupted result hands the turn to a fresh context.
    _row("result_received", WORKING, RESETTING, "show_turns_result", "start_fresh_context",
         when="wants_a_fresh_context"),
    # The user's own answer stopped the turn ("No, keep planning" denies with an interrupt):
    # it ends as a cancel does, with no record; Claude Code's diagnostic is no failure.
    _row("result_received", WORKING, IDLE, "show_turns_result", "confirm_boundary",
         "settle_cancelled", when="was_stopped_by_the_user"),
    _row("result_received", WORKING, IDLE, "show_turns_result", "confirm_boundary",
         "explain_refusal", "settle_refused", when="is_a_refusal"),
    _row("result_received", WORKING, IDLE, "show_turns_result", "confirm_boundary",
         "recover_after_answer", "settle_max_tokens",
         when=["stopped_at_max_tokens", "was_answered_for_real"]),
    _row("result_received", WORKING, IDLE, "show_turns_result", "confirm_boundary",
         "settle_max_tokens", when="stopped_at_max_tokens"),
    # The escalation: a turn that ends in an error while its warning is out revises that
    # warning's entry as the error; with no warning out the error is a record of its own.
    _row("result_received", [PROMPT_SENT, RETRYING], IDLE, "show_turns_result", "confirm_boundary",
         "escalate_warning", when=["is_an_error", "has_a_warning_out"]),
    _row("result_received", [PROMPT_SENT, RUNNING], IDLE, "show_turns_result", "confirm_boundary",
         "fail_with_result", when="is_an_error"),
    # The warning's delivery failed, so nothing of it reached the client
    # (docs/decisions.md#delivery).
    _row("result_received", RETRYING, IDLE, "show_turns_result", "confirm_boundary",
         "fail_with_result", when="is_an_error"),
    _row("result_received", WORKING, IDLE, "show_turns_result", "confirm_boundary",
         "recover_after_answer", "settle_turn_limit",
         when=["hit_a_turn_limit", "was_answered_for_real"]),
    _row("result_received", WORKING, IDLE, "show_turns_result", "confirm_boundary",
         "settle_turn_limit", when="hit_a_turn_limit"),
    # The reference's hold: a turn whose subagent went to the background, or that the client
    # steered, keeps its prompt open, so the follow-up (and any question it asks) lands in
    # the turn the user watches; it is answered when its subagents ended and Claude is idle.
    # A background subagent that ended before this result still owes Claude's follow-up,
    # which Claude Code runs right after it (docs/decisions.md#turns-that-wait).
    _row("result_received", PROMPT_SENT, RUNNING, "show_turns_result", "hold_answer",
         when="awaits_its_subagents"),
    _row("result_received", HEARD_FROM, "=", "show_turns_result", "hold_answer",
         when="awaits_its_subagents"),
    _row("result_received", PROMPT_SENT, RUNNING, "show_turns_result", "hold_answer",
         when="was_steered"),
    _row("result_received", HEARD_FROM, "=", "show_turns_result", "hold_answer",
         when="was_steered"),
    _row("result_received", WORKING, IDLE, "show_turns_result", "confirm_boundary",
         "recover_after_answer", "settle_succeeded", when="was_answered_for_real"),
    _row("result_received", WORKING, IDLE, "show_turns_result", "confirm_boundary",
         "settle_succeeded"),
    # A held turn's subagents work; the turn's own work is done.
    _row("claude_silent", HEARD_FROM, None, when="is_held"),
    _row("claude_silent", HEARD_FROM, None, "log_silence", when="stalls_are_quiet"),
    _row("claude_silent", HEARD_FROM, RETRYING, "warn_stalled"),
    _row(["turn_went_busy", "answer_stream_started"], HEARD_FROM, "="),
    _row("turn_went_idle", HEARD_FROM, IDLE, "confirm_boundary", "settle_succeeded",
         when="is_held_and_drained"),
    # Its subagents still run: it stays open.
    _row("turn_went_idle", HEARD_FROM, None, when="is_held"),
    _row("turn_went_idle", HEARD_FROM, IDLE, "fail_no_result"),
    # Lost before this turn began (the prompt went to a process already gone): any loss
    # reported during a turn settles it, so this one is news for the turn.
    _row(["stream_ended", "transport_lost"], WORKING, IDLE, "fail_transport_lost",
         when="runtime_was_lost"),
    _row(["stream_ended", "transport_lost"], WORKING, IDLE, "note_runtime_lost",
         "fail_worker_shutdown", when="worker_is_shutting_down"),
    _row("stream_ended", WORKING, IDLE, "note_runtime_lost", "fail_no_result"),
    _row("transport_lost", WORKING, IDLE, "note_runtime_lost", "fail_transport_lost"),
    _row("runtime_start_failed", WORKING, IDLE, "note_runtime_lost", "fail_start"),
    # The runtime's end that follows is this fault's (the stream cannot go on past it).
    _row("message_too_large", WORKING, IDLE, "note_runtime_lost", "fail_too_large"),
    # docs/decisions.md#prompt-ended-unstarted: a prompt Claude Code has not started is taken
    # back out of its queue too, or it would run after the interrupt; its `cancelled` answers it.
    _row("cancel_requested", PROMPT_SENT, CANCELLING, "withdraw_questions", "cancel_queued",
         "withdraw_live_prompt", "interrupt_claude"),
    _row("cancel_requested", HEARD_FROM, CANCELLING, "withdraw_questions", "cancel_queued",
         "interrupt_claude"),
    _row("fresh_context_chosen", WORKING, None, "note_fresh_context"),
    # A client that declared AIR's `backgroundSubagents` has its turns end at their result:
    # no subagent of it is waited on.
    _row("background_task_started", HEARD_FROM, None, "note_subagent", when="is_a_subagent",
         unless="ends_turns_at_their_result"),
    _row("background_task_started", HEARD_FROM, None),
    _row("background_task_settled", WORKING, None, "note_task_settled"),
    _row("background_tasks_listed", WORKING, None, "keep_listed_subagents"),
    _row("steer_received", WORKING, None, "inject_steer"),
    # Prompt queueing, as the reference (docs/reference-adapter.md#prompt-queueing): a prompt
    # that comes while the turn runs goes to Claude Code at once; when Claude takes it up (its
    # echo), this turn is answered `end_turn` and the rest of Claude's work is the new prompt's
    # turn.
    # (The adapter's own idle `/compact` is not the user's turn to hand off: a prompt waits.)
    _row("prompt_received", [*WORKING, FAILING], None, "push_prompt", when="claude_takes_it_now",
         unless="is_the_adapters_own_turn"),
    _row("prompt_sent", LIVE_TURN, None, "note_pushed_sent", when="was_pushed"),
    _row("prompt_echoed", [*WORKING, FAILING], RUNNING, "confirm_boundary",
         "hand_off_to_pushed", when="echoes_a_pushed_prompt"),
    # CANCELLING, for a prompt Claude Code had not started when the client cancelled: its start
    # or echo makes it the interrupted work's; its end before either answers it now
    # (docs/decisions.md#prompt-ended-unstarted).
    _row(["prompt_started", "prompt_echoed"], CANCELLING, None, "note_taken_up",
         when="names_the_live_prompt"),
    _row("prompt_ended", CANCELLING, IDLE, "settle_unstarted", when="names_the_live_prompt",
         unless="was_taken_up"),
    _row("prompt_echoed", LIVE_TURN, None),
    _row(["prompt_started", "prompt_queued"], LIVE_TURN, None),
    # docs/decisions.md#prompt-ended-unstarted: as between turns, for a pushed prompt; the live
    # prompt's end, once Claude Code started it, is its result's.
    _row("prompt_ended", LIVE_TURN, None, "cancel_pushed",
         when=["names_a_pushed_prompt", "was_withdrawn"]),
    _row("prompt_ended", LIVE_TURN, None, "reject_pushed", when="names_a_pushed_prompt",
         unless="was_discarded"),
    _row("prompt_ended", LIVE_TURN, None),
    # --- FAILING: a failure message was seen; its prose is withheld for the record ----------
    _row("assistant_message_received", FAILING, FAILING, "forward_message",
         when="is_from_a_subagent"),
    # docs/decisions.md#error-prose-without-record: a second failure message supersedes the first,
    # whose prose is then released.
    _row("assistant_message_received", FAILING, FAILING, "release_withheld", "note_failure",
         when=["is_a_failure_message", "is_a_login_prompt"]),
    _row("assistant_message_received", FAILING, FAILING, "release_withheld", "note_failure",
         "withhold_failure", when=["is_a_failure_message", "takes_records"]),
    _row("assistant_message_received", FAILING, FAILING, "release_withheld", "note_failure",
         "forward_message", when="is_a_failure_message"),
    # docs/decisions.md#error-prose-without-record: Claude got past the failure within the turn; its
    # withheld words go out first. (Back to RETRYING when a warning of the turn is out, so that
    # RETRYING alone escalates.)
    _row("assistant_message_received", FAILING, RETRYING, "release_withheld", "take_answer",
         when=["is_a_real_answer", "has_a_warning_out"]),
    _row("assistant_message_received", FAILING, RUNNING, "release_withheld", "take_answer",
         when="is_a_real_answer"),
    _row("assistant_message_received", FAILING, FAILING, "take_answer"),
    _row("retry_attempted", FAILING, FAILING, "note_retry_hint", when="is_a_quiet_retry"),
    _row("retry_attempted", FAILING, FAILING, "note_retry_hint", "warn_under_turn_id"),
    _row("result_received", FAILING, None, "show_own_work", "close_open_calls",
         when="is_autonomous"),
    _row("result_received", FAILING, IDLE, "show_turns_result", "confirm_boundary",
         "release_withheld", "explain_refusal", "settle_refused", when="is_a_refusal"),
    # docs/decisions.md#never-silent, #capable-clients and #title-source-order: a failure message
    # Claude never got past fails the turn, in its words.
    _row("result_received", FAILING, IDLE, "show_turns_result", "confirm_boundary",
         "escalate_warning", when="has_a_warning_out"),
    _row("result_received", FAILING, IDLE, "show_turns_result", "confirm_boundary",
         "fail_with_result"),
    _row("claude_silent", FAILING, None, "log_silence", when="stalls_are_quiet"),
    _row("claude_silent", FAILING, FAILING, "warn_stalled"),
    _row("turn_went_busy", FAILING, FAILING),
    # docs/decisions.md#error-prose-without-record: a real model streams an answer after the
    # failure: its prose goes out first.
    _row("answer_stream_started", FAILING, RETRYING, "release_withheld",
         when=["is_a_real_answer", "has_a_warning_out"]),
    _row("answer_stream_started", FAILING, RUNNING, "release_withheld", when="is_a_real_answer"),
    _row("answer_stream_started", FAILING, FAILING),
    # docs/decisions.md#confirmed-from-first-release: Claude's last words win over how the turn then
    # ended.
    _row("turn_went_idle", FAILING, IDLE, "fail_with_claudes_words"),
    _row(["stream_ended", "transport_lost", "runtime_start_failed", "message_too_large"], FAILING,
         IDLE, "note_runtime_lost", "fail_with_claudes_words"),
    _row("cancel_requested", FAILING, CANCELLING, "withdraw_questions", "cancel_queued",
         "interrupt_claude"),
    _row("background_task_started", FAILING, None, "note_subagent", when="is_a_subagent",
         unless="ends_turns_at_their_result"),
    _row("background_task_started", FAILING, None),
    _row("background_task_settled", FAILING, None, "note_task_settled"),
    _row("background_tasks_listed", FAILING, None, "keep_listed_subagents"),
    _row("steer_received", FAILING, None, "inject_steer"),
    # --- CANCELLING: one interrupt is out --------------------------------------------------
    _row("assistant_message_received", CANCELLING, None, when="is_a_login_prompt"),
    # No record will carry it (a cancelled turn has none), so it is text, masked
    # (docs/decisions.md#error-prose-without-record and #secrets).
    _row("assistant_message_received", CANCELLING, None, "pass_on_failure_text",
         when="is_a_failure_message"),
    _row("assistant_message_received", CANCELLING, None, "forward_message"),
    _row("retry_attempted", CANCELLING, None, "note_retry_hint"),
    _row("result_received", CANCELLING, None, "show_own_work", "close_open_calls",
         when="is_autonomous"),
    _row("result_received", CANCELLING, IDLE, "show_turns_result", "confirm_boundary",
         "settle_cancelled"),
    _row(["claude_silent", "turn_went_busy", "answer_stream_started"], CANCELLING, None),
    _row("turn_went_idle", CANCELLING, IDLE, "settle_cancelled"),
    _row(["stream_ended", "transport_lost", "runtime_start_failed", "message_too_large"],
         CANCELLING, IDLE, "note_runtime_lost", "settle_cancelled"),
    # One interrupt per turn however often the client cancels; its backstop stops Claude.
    _row("cancel_requested", CANCELLING, None, "withdraw_questions", "cancel_queued"),
    _row("cancel_grace_expired", CANCELLING, None, "stop_runtime"),
    _row(["background_task_started", "background_task_settled", "background_tasks_listed"],
         CANCELLING, None),
    # The turn is ending: the steer waits as a prompt of its own, behind it.
    _row("steer_received", CANCELLING, None, "refuse_steer"),
    # --- RESETTING: the old process is closed, the fresh context's is starting -------------
    # What the old process still says is dropped (its epoch is retired); the new one has
    # been sent nothing yet, so what it says before the plan belongs to no turn.
    _row("fresh_context_ready", RESETTING, PROMPT_SENT, "send_continuation"),
    _row("cancel_requested", RESETTING, IDLE, "cancel_queued", "settle_cancelled"),
    _row("runtime_start_failed", RESETTING, IDLE, "note_runtime_lost", "fail_start"),
    _row(["stream_ended", "transport_lost"], RESETTING, IDLE, "note_runtime_lost",
         "fail_transport_lost"),
    _row("message_too_large", RESETTING, IDLE, "note_runtime_lost", "fail_too_large"),
    _row(["assistant_message_received", "retry_attempted", "claude_silent", "turn_went_busy",
          "answer_stream_started", "turn_went_idle", "cancel_grace_expired",
          "fresh_context_chosen", "background_task_started", "background_task_settled",
          "background_tasks_listed"], RESETTING,
         None),
    # The fresh context was sent nothing yet: its result is no prompt's, its tokens no turn's
    # (docs/decisions.md#result-owner). The hand-over itself, the plan exit's interrupted
    # result, was the turn's (`show_turns_result` on the row into RESETTING).
    _row("result_received", RESETTING, None, "show_own_work"),
    _row("steer_received", RESETTING, None, "refuse_steer"),
    # A fresh context whose turn was cancelled meanwhile gets no plan; nor does a late choice.
    _row("fresh_context_ready", [IDLE, PROMPT_SENT, RUNNING, RETRYING, FAILING, CANCELLING], None,
         "log_fresh_context_unused"),
    _row("fresh_context_chosen", [IDLE, FAILING, CANCELLING], None, "log_fresh_context_unused"),
    # --- any live state: a second prompt waits for its turn ---------------------------------
    _row("prompt_received", LIVE_TURN, None, "queue_prompt"),
    # --- BROKEN: an internal fault fails what is live and breaks the session for good
    # See docs/decisions.md#internal-faults.
    _row("internal_fault_occurred", IDLE, BROKEN, "withdraw_questions", "reject_waiting"),
    _row("internal_fault_occurred", LIVE_TURN, BROKEN, "reject_waiting", "fail_internal"),
    _row("prompt_received", BROKEN, None, "refuse_prompt"),
    _row("cancel_requested", BROKEN, None, "withdraw_questions", "cancel_queued"),
    # No turn runs in a broken session: a result is no prompt's, and nothing else it says
    # matters now.
    _row("result_received", BROKEN, None, "show_own_work"),
    _row(["assistant_message_received", "retry_attempted", "claude_silent",
          "turn_went_busy", "answer_stream_started", "turn_went_idle", "stream_ended",
          "transport_lost", "runtime_start_failed", "message_too_large", "cancel_grace_expired",
          "internal_fault_occurred", "fresh_context_chosen", "fresh_context_ready",
          "background_task_started", "background_task_settled", "background_tasks_listed",
          "prompt_echoed", "prompt_started", "prompt_queued", "prompt_ended"],
         BROKEN, None),
    _row("prompt_sent", BROKEN, None, "note_pushed_sent", when="was_pushed"),
    _row("steer_received", BROKEN, None, "refuse_steer"),
    # --- any state: the session is ending; nothing it asked the user can be answered now --------
    _row("session_closing", list(TurnState), None, "withdraw_questions"),
    # docs/decisions.md#stopped-own-turn: the client stopped a turn Claude runs on its own; only
    # between turns is there one (a prompt's turn is stopped by a cancel). A prompt on its way
    # to Claude would be folded into that turn and dropped by the interrupt: the stop is refused
    # (no interrupt), as the reference refuses it while a prompt waits
    # (docs/reference-adapter.md#autonomous-turns).
    _row("own_turn_stopped", IDLE, None, when="has_a_prompt_in_flight"),
    _row("own_turn_stopped", IDLE, None, "note_own_turn_stopped", "interrupt_own_turn"),
    # A broken session takes no prompt: Claude's own work may be stopped; its result is no
    # failure there anyway.
    _row("own_turn_stopped", BROKEN, None, "interrupt_own_turn"),
    _row("own_turn_stopped", LIVE_TURN, None),
    # The interrupt failed: Claude's work goes on, and its result is judged as any other.
    _row("own_turn_stop_failed", IDLE, None, "forget_own_turn_stop"),
    _row("own_turn_stop_failed", [*LIVE_TURN, BROKEN], None),
]
# fmt: on

# Callbacks that write to the ledger the moment they run: a proposal, or a settled turn's answer
# and the turn's close. Each ends its row, so a row whose callback raises has written nothing
# (what other callbacks tell the incidents and the runtime is only recorded, and applied by
# `Turn.fire` once the row ran): rows are atomic by construction. A table that puts one of these
# before another callback does not load (`writers_end_their_rows`).
LEDGER_WRITERS = (
    "open_turn",
    "warn_",
    "report_",
    "settle_",
    "fail_",
    "escalate_warning",
    "hand_off",
    "take_up_",
)


def writers_end_their_rows(table: list[dict[str, Any]]) -> None:
    """Raise `FsmError` for a row that names a ledger-writing callback before another one."""
    for row in table:
        early = [name for name in row.get("before", [])[:-1] if name.startswith(LEDGER_WRITERS)]
        if early:
            raise FsmError(f"{early[0]} writes the ledger, so it must end its row: {row}")


# Every row that takes a result says first whose it is (docs/decisions.md#result-owner): the
# shell shows the result at that statement, before what else the row does.
RESULT_OWNERS = ("show_own_work", "show_turns_result")


def results_are_owned(table: list[dict[str, Any]]) -> None:
    """Raise `FsmError` for a row that takes a result without first saying whose it is."""
    for row in table:
        triggers = row["trigger"] if isinstance(row["trigger"], list) else [row["trigger"]]
        if "result_received" not in triggers:
            continue
        before = row.get("before", [])
        if len(triggers) > 1 or not before or before[0] not in RESULT_OWNERS:
            raise FsmError(f"a row that takes a result must first say whose it is: {row}")
        if any(name in RESULT_OWNERS for name in before[1:]):
            raise FsmError(f"a result row says whose the result is once: {row}")


writers_end_their_rows(TRANSITIONS)
results_are_owned(TRANSITIONS)
TURN_MACHINE = build_machine(name="turn", states=TurnState, transitions=TRANSITIONS, initial=IDLE)

# The triggers the turn machine takes: the events whose trigger its table names.
TURN_TRIGGERS = frozenset(row["trigger"] for row in one_row_per_trigger(TRANSITIONS))

TURN_NO_RESULT_TITLE = (
    "The turn ended without a result: Claude stopped while this prompt was still in flight. "
    "Any partial output may be incomplete; please retry."
)
# docs/decisions.md#prompt-ended-unstarted: a prompt Claude Code ended without running it.
NOT_RUN_ERROR_KIND = "not_run"
_NOT_RUN_REASONS = {
    PromptFate.COMPLETED: "set it aside without running it",
    PromptFate.REFUSED: "declined it, and will not run it in this session",
}


def not_run_title(fate: PromptFate) -> str:
    """The title of a prompt Claude Code ended unstarted, `fate` not a withdrawal."""
    reason = _NOT_RUN_REASONS.get(fate, "ended it without running it")
    return f"Claude Code {reason}, so nothing was done for this prompt. Please send it again."


MESSAGE_TOO_LARGE_TITLE = (
    "Claude sent a message larger than {size}, the most this adapter accepts "
    "(CLAUDE_ACP_MAX_MESSAGE_BYTES), so the turn was stopped."
)
BROKEN_REASON = "This session failed inside the adapter; start a new session."
# A turn runs a handful of subagents; past this many they are not this turn's to wait on.
_MAX_SUBAGENTS = 64


class Turn:
    """The session's turn: the machine's model, holding what the turn has seen.

    `capable` means errors become records (sessionFailure or agentError negotiated); `notices`
    means warnings and notices become records too (sessionFailure only,
    docs/decisions.md#agent-error-only-clients).
    """

    state: TurnState  # set by the machine
    ledger: Ledger
    capable: bool
    notices: bool
    answers: AnswerDialect  # how a settled prompt is answered (legacy: failures as errors)
    private: tuple[str, ...]
    # The Claude process the turn's prompts go to (its own machine, `runtime.py`).
    runtime: Runtime
    effects: list[Effect]  # what the row being run answers
    # What the row being run tells the incidents and the runtime (applied by `Turn.fire`).
    reached: list[tuple[IncidentTrigger, str | None]]
    runtime_ended: bool
    turn_id: str | None
    outcome: TurnOutcome | None
    queued: list[str]  # prompts waiting for the live one, oldest first
    dispatching: str | None  # told to send, not yet reported sent
    retry_after_ms: int | None
    reset_at_ms: int | None
    between_failure_reported: bool
    grace_armed: bool
    # What one turn has seen; reset when a prompt is sent (`Turn.forget_turn`).
    failure_error: str | None  # the latest top-level assistant `error`
    failure_text: str | None  # that message's text (Claude's own words)
    usage_limit: bool
    login: bool
    real_model: bool
    refusal_explanation: str | None
    # error prose kept back for the record (docs/decisions.md#error-prose-without-record)
    withheld: list[str]
    answered_text: str
    fresh_context_chosen: bool  # the user chose to go on in a fresh context
    subagents: set[str]  # the turn's subagents still running (Claude follows up on each)
    backgrounded: set[str]  # those of them started in the background
    # A background subagent of the turn ended before the turn's result: Claude Code wakes
    # Claude for it once that result is out, so the turn's answer waits for the follow-up.
    follow_up_owed: bool
    held: bool  # the turn's result came; its answer waits for its subagents or its steer
    # Claude Code said it queued the live prompt (`command_lifecycle` `queued`): it says when it
    # starts it too, so until then nothing Claude does is the prompt's.
    queued_by_claude: bool
    # Claude Code started the live prompt or echoed it (docs/decisions.md#prompt-ended-unstarted):
    # from then on, its result answers it, not Claude Code's word that it ended.
    taken_up: bool
    # Prompt queueing: prompts sent to Claude while a turn ran, waiting for their echo (oldest
    # first), and those not yet reported sent (a late report is nothing then).
    pushed: list[str]
    unsent_pushed: set[str]
    adapter_turns: set[str]  # the adapter's own prompts (its idle `/compact`) not yet answered
    steered: bool  # the client steered the turn (its steered cycle ends at the next idle)
    # The client declared AIR's `backgroundSubagents`: a turn is answered at its result, and
    # its background subagents' work goes out after the answer.
    background_subagents: bool
    # Prompt queueing (`_meta.claudeCode.promptQueueing`): a prompt that comes while a turn
    # runs goes to Claude at once. Off, it waits in `queued` for the turn before it (the core's
    # own queue, which a cancelling or resetting turn uses either way).
    prompt_queueing: bool

    def __init__(
        self,
        *,
        ledger: Ledger,
        capable: bool,
        notices: bool,
        private: tuple[str, ...],
        started: bool = True,
        background_subagents: bool = False,
        prompt_queueing: bool = True,
    ) -> None:
        self.ledger, self.capable, self.notices, self.private = ledger, capable, notices, private
        self.background_subagents = background_subagents
        self.prompt_queueing = prompt_queueing
        self.answers = answer_dialect(ledger, takes_records=capable)
        self.runtime = Runtime(ledger=ledger, started=started)
        self.effects = []
        self.reached = []
        self.runtime_ended = False
        self.turn_id = None
        self.outcome = None
        self.queued = []
        self.pushed = []
        self.unsent_pushed = set()
        self.adapter_turns = set()
        self.dispatching = None
        self.retry_after_ms = None
        self.reset_at_ms = None
        self.between_failure_reported = False
        self.grace_armed = False
        # The client stopped Claude's own turn: its interrupt's result is no failure. (Not
        # named for the trigger `own_turn_stopped`: the machine binds its triggers to the model.)
        self.own_stop_pending = False
        self.forget_turn()
        TURN_MACHINE.add_model(self, initial=TurnState.IDLE)

    def forget_turn(self) -> None:
        """What one turn has seen; reset when a prompt is sent."""
        self.failure_error = None
        self.failure_text = None
        self.usage_limit = False
        self.login = False
        self.real_model = False
        self.refusal_explanation = None
        self.withheld = []
        self.answered_text = ""
        self.fresh_context_chosen = False
        self.subagents = set()
        self.backgrounded = set()
        self.follow_up_owed = False
        self.held = False
        self.queued_by_claude = False
        self.taken_up = False
        self.steered = False

    def detach(self) -> None:
        TURN_MACHINE.remove_model(self)
        self.runtime.detach()

    @property
    def live(self) -> bool:
        return self.state in LIVE_STATES

    def fire(self, trigger: str, event: Event | None = None) -> list[Effect]:
        """Run `trigger` with `event`; return the effects. Raises `InvalidTransition` (state
        unchanged, no effects) when no row of the table accepts it."""
        self.effects, self.reached, self.runtime_ended = [], [], False
        try:
            fire(TURN_MACHINE, self, trigger, event)
        finally:
            effects, reached, ended = self.effects, self.reached, self.runtime_ended
            self.effects, self.reached, self.runtime_ended = [], [], False
        # A row that touches the other machines is atomic: what it told them is applied only
        # once every callback of the row ran (a raising one leaves all three as they were).
        for boundary, turn_id in reached:
            self.ledger.reach(boundary, turn_id)
        if ended:
            effects += self.runtime.fire("runtime_lost")
            if self.state is IDLE and self.dispatching is None and self.queued:
                # WARNING: hand-coded, not drawn. Prompts pushed to the lost process came
                # back to the queue (`note_runtime_lost`); no turn's settle will send them.
                self.dispatching = self.queued.pop(0)
                effects.append(SendPrompt(turn_id=self.dispatching))
        return effects

    # --- guards: the conditions named in the table ----------------------------------------------

    def is_from_a_subagent(self, event: AssistantMessageReceived) -> bool:
        return not event.top_level

    def is_a_login_prompt(self, event: AssistantMessageReceived) -> bool:
        return synthetic_messages.is_synthetic_login(
            event.model, event.text_block_count, event.text
        )

    def is_a_failure_message(self, event: AssistantMessageReceived) -> bool:
        return event.top_level and (
            event.error is not None
            or synthetic_messages.is_synthetic_usage_limit(event.model, event.text)
            or self.is_a_login_prompt(event)
        )

    def is_a_real_answer(self, event: AssistantMessageReceived) -> bool:
        return synthetic_messages.is_real_model(event.model) and not self.login

    def takes_records(self, *_: Any) -> bool:
        """Errors become records (sessionFailure or agentError negotiated); a legacy client
        reads Claude's prose in the transcript and gets JSON-RPC errors."""
        return self.capable

    def is_a_quiet_retry(self, event: RetryAttempted) -> bool:
        kind = classify.kind_for_retry(event.error_status, event.error)
        return kind is None or not self.notices

    def stalls_are_quiet(self, *_: Any) -> bool:
        return not self.notices

    def is_autonomous(self, event: ResultReceived) -> bool:
        # A cycle Claude began on its own that took the live prompt up answers it.
        return classify.is_own_work(event.origin_kind, event.prompts, self.turn_id)

    def is_a_refusal(self, event: ResultReceived) -> bool:
        return event.stop_reason == "refusal"

    def stopped_at_max_tokens(self, event: ResultReceived) -> bool:
        return event.stop_reason == "max_tokens"

    def is_an_error(self, event: ResultReceived) -> bool:
        return event.is_error

    def awaits_its_subagents(self, *_: Any) -> bool:
        return bool(self.subagents) or self.follow_up_owed

    def ends_turns_at_their_result(self, *_: Any) -> bool:
        return self.background_subagents

    def was_steered(self, *_: Any) -> bool:
        return self.steered

    def is_held(self, *_: Any) -> bool:
        return self.held

    def is_held_and_drained(self, *_: Any) -> bool:
        return self.held and not self.subagents

    def is_a_subagent(self, event: BackgroundTaskStarted) -> bool:
        # One moved to the background is a subagent when it is one this turn started.
        return event.subagent or (event.moved and event.task_id in self.subagents)

    def was_stopped_by_the_user(self, event: ResultReceived) -> bool:
        return event.is_error and classify.stopped_by_the_user(event.errors, event.result)

    def own_turn_was_stopped(self, *_: Any) -> bool:
        return self.own_stop_pending

    def is_an_unreported_error(self, event: ResultReceived) -> bool:
        return (
            event.is_error and not self.is_autonomous(event) and not self.between_failure_reported
        )

    def hit_a_turn_limit(self, event: ResultReceived) -> bool:
        return classify.kind_for_result_subtype(event.subtype) is not None

    def was_answered_for_real(self, event: ResultReceived) -> bool:
        return classify.recovers_a_usage_limit(
            real_answer=self.real_model, turn_failed=event.is_error
        )

    def runtime_was_lost(self, *_: Any) -> bool:
        return self.runtime.is_lost

    def worker_is_shutting_down(self, *_: Any) -> bool:
        return self.runtime.is_shutting_down

    def has_a_warning_out(self, *_: Any) -> bool:
        return self.ledger.turn_warning_is_out()

    def wants_a_fresh_context(self, *_: Any) -> bool:
        return self.fresh_context_chosen

    def has_a_prompt_in_flight(self, *_: Any) -> bool:
        return self.dispatching is not None or bool(self.queued or self.pushed)

    def awaits_an_echo(self, *_: Any) -> bool:
        return bool(self.pushed)

    def claude_takes_it_now(self, *_: Any) -> bool:
        idle_queue = self.dispatching is None and not self.queued
        return self.prompt_queueing and self.runtime.takes_prompts_as_is and idle_queue

    def is_the_adapters_own_turn(self, *_: Any) -> bool:
        return self.turn_id in self.adapter_turns

    def was_pushed(self, event: PromptSent) -> bool:
        return event.turn_id in self.unsent_pushed

    def echoes_a_pushed_prompt(self, event: PromptEchoed) -> bool:
        return event.turn_id in self.pushed

    def names_the_live_prompt(
        self, event: PromptEchoed | PromptStarted | PromptQueued | PromptEnded
    ) -> bool:
        return event.turn_id == self.turn_id

    def was_queued(self, *_: Any) -> bool:
        return self.queued_by_claude

    def was_taken_up(self, *_: Any) -> bool:
        return self.taken_up

    def names_a_pushed_prompt(self, event: PromptEnded) -> bool:
        return event.turn_id in self.pushed

    def was_withdrawn(self, event: PromptEnded) -> bool:
        return event.fate is PromptFate.CANCELLED

    def was_discarded(self, event: PromptEnded) -> bool:
        return event.fate is PromptFate.DISCARDED

    def names_the_prompt(self, event: ResultReceived) -> bool:
        return self.turn_id is not None and self.turn_id in event.prompts

    def names_other_prompts(self, event: ResultReceived) -> bool:
        # A cycle that took up other messages, not this one, answers them (or no one).
        return bool(event.prompts) and not self.names_the_prompt(event)

    # === callbacks: the only place the core makes effects for a turn =============================

    # --- prompts ------------------------------------------------------------------------------

    def note_queued(self, *_: Any) -> None:
        self.queued_by_claude = True

    def note_taken_up(self, *_: Any) -> None:
        self.taken_up = True

    def queue_prompt(self, event: PromptReceived) -> None:
        self._note_origin(event)
        self.queued.append(event.turn_id)

    def dispatch_prompt(self, event: PromptReceived) -> None:
        self._note_origin(event)
        self.dispatching = event.turn_id
        self.effects.append(SendPrompt(turn_id=event.turn_id))

    def refuse_prompt(self, event: PromptReceived) -> None:
        self.effects.append(self._rejection(event.turn_id))

    def open_turn(self, event: PromptSent) -> None:
        if self.dispatching not in (None, event.turn_id):
            raise FsmError(f"prompt {event.turn_id} was sent before {self.dispatching}")
        self.dispatching = None
        self._open(event.turn_id)

    def _open(self, turn_id: str) -> None:
        self.ledger.open_turn(turn_id)
        self.turn_id = turn_id
        self.outcome = None
        self.forget_turn()
        self.retry_after_ms = self.reset_at_ms = None
        self.between_failure_reported = self.own_stop_pending = False

    def _note_origin(self, event: PromptReceived) -> None:
        if event.by_adapter:
            self.adapter_turns.add(event.turn_id)

    def push_prompt(self, event: PromptReceived) -> None:
        self._note_origin(event)
        self.pushed.append(event.turn_id)
        self.unsent_pushed.add(event.turn_id)
        self.effects.append(SendPrompt(turn_id=event.turn_id, pushed=True))

    def note_pushed_sent(self, event: PromptSent) -> None:
        self.unsent_pushed.discard(event.turn_id)

    def hand_off_to_pushed(self, event: PromptEchoed) -> None:
        # The user moved on: this turn is answered as it stands (withheld prose goes out as
        # text; no failure was confirmed), and Claude's work goes on for the new prompt. One
        # callback, because both halves write the ledger (`LEDGER_WRITERS`).
        self.pushed.remove(event.turn_id)  # the guard said it is there: before any write
        self.release_withheld()
        self._settled("succeeded", StopReason.END_TURN, handed_off=True)
        self._take_up(event.turn_id)

    def take_up_pushed(self, event: PromptEchoed) -> None:
        self.pushed.remove(event.turn_id)
        self._take_up(event.turn_id)

    def _take_up(self, turn_id: str) -> None:
        self._open(turn_id)
        self.taken_up = True
        self.effects.append(TurnTakenUp(turn_id=turn_id))

    def withdraw_questions(self, *_: Any) -> None:
        # A question still open belongs to a turn that is over, or that the client cancelled.
        self.effects.append(WithdrawQuestions())

    def cancel_queued(self, *_: Any) -> None:
        # Prompts waiting behind the live one never reached Claude: they end cancelled.
        # None of them ran, so nothing the session shows is theirs (`SettlePrompt.ran`).
        for turn_id in self.queued:
            self.effects.append(_unstarted(turn_id))
        self.queued = []
        # Pushed ones Claude has not taken up end cancelled too, and leave its queue.
        for turn_id in self.pushed:
            self.effects.append(_unstarted(turn_id))
            self.effects.append(WithdrawPrompt(turn_id=turn_id))
        self.pushed = []

    def cancel_pushed(self, event: PromptEnded) -> None:
        # Claude Code withdrew it from its queue: it never ran (`SettlePrompt.ran`).
        self._drop_pushed(event.turn_id)
        self.effects.append(_unstarted(event.turn_id))

    def reject_pushed(self, event: PromptEnded) -> None:
        # It never ran and will not: its own error, which ends nothing of the live turn.
        self._drop_pushed(event.turn_id)
        self.effects.append(
            RejectPrompt(
                blame=Blame.INTERNAL,
                message=f"Internal error: {not_run_title(event.fate)}",
                error_kind=NOT_RUN_ERROR_KIND,
                turn_id=event.turn_id,
                ran=False,
            )
        )

    def _drop_pushed(self, turn_id: str) -> None:
        self.pushed.remove(turn_id)  # the guard said it is there
        self.unsent_pushed.discard(turn_id)
        self.adapter_turns.discard(turn_id)

    def withdraw_live_prompt(self, *_: Any) -> None:
        # Claude Code keeps a queued message through an interrupt and starts it next: the
        # cancelled prompt would run after its answer.
        assert self.turn_id is not None
        self.effects.append(WithdrawPrompt(turn_id=self.turn_id))

    def interrupt_claude(self, *_: Any) -> None:
        self.grace_armed = True
        self.effects.append(InterruptClaude())

    def stop_runtime(self, *_: Any) -> None:
        # Claude ignored the interrupt for the whole grace period: its process is stopped,
        # which ends the turn as cancelled when the runtime's end is reported.
        self.grace_armed = False
        self.effects.append(LogNotice(message="Claude ignored the interrupt; stopping it"))
        self.effects.append(StopRuntime())

    # --- Claude's messages ---------------------------------------------------------------------

    def forward_message(self, event: AssistantMessageReceived) -> None:
        self.effects.append(ForwardAssistantMessage(mask=_is_error_prose(event)))

    def take_answer(self, event: AssistantMessageReceived) -> None:
        if synthetic_messages.is_real_model(event.model):
            self.real_model = True
            # The earlier failure (if any) is behind us: Claude answered after it.
            self.failure_error, self.failure_text, self.usage_limit = None, None, False
        if event.stop_reason == "refusal" and event.refusal_explanation:
            self.refusal_explanation = event.refusal_explanation
        self.answered_text += event.text
        self.effects.append(ForwardAssistantMessage(mask=_is_error_prose(event)))

    def note_failure(self, event: AssistantMessageReceived) -> None:
        # What the failure's record (or legacy answer) will say; a login prompt is an
        # instruction that every editor answers with its own sign-in flow, never prose.
        login = synthetic_messages.is_synthetic_login(
            event.model, event.text_block_count, event.text
        )
        self.failure_error, self.failure_text = event.error, event.text
        self.usage_limit = synthetic_messages.is_synthetic_usage_limit(event.model, event.text)
        self.login = self.login or login

    def withhold_failure(self, event: AssistantMessageReceived) -> None:
        # The text will be the record's title (docs/decisions.md#capable-clients); released if it
        # does not become one.
        self.withheld.append(event.text)

    def pass_on_failure_text(self, event: AssistantMessageReceived) -> None:
        if event.text.strip():
            self.effects.append(SendAgentText(text=redact(event.text, self.private)))

    def note_retry_hint(self, event: RetryAttempted) -> None:
        if event.retry_delay_ms is not None and event.retry_delay_ms >= 0:
            self.retry_after_ms = event.retry_delay_ms

    def warn_under_turn_id(self, event: RetryAttempted) -> None:
        self._warn(event, turn_scoped=True)

    def warn_between_turns(self, event: RetryAttempted) -> None:
        self._warn(event, turn_scoped=False)

    def _warn(self, event: RetryAttempted, *, turn_scoped: bool) -> None:
        kind = classify.kind_for_retry(event.error_status, event.error)
        assert kind is not None  # the row's `is_a_quiet_retry` guard took the other case
        title = classify.retry_title(
            attempt=event.attempt,
            max_retries=event.max_retries,
            has_status=event.error_status is not None,
        )
        propose = self.ledger.propose_turn if turn_scoped else self.ledger.propose_session
        record = propose(kind=kind, severity=Severity.WARNING, text=title, hints=self._hints())
        self.effects.append(PublishRecord(record=record))

    def log_silence(self, event: Any) -> None:
        # A client that takes no warnings sees nothing; the log still says the watchdog woke.
        self.effects.append(
            LogNotice(message=f"Claude has been silent for {event.waited_seconds} seconds")
        )

    def warn_stalled(self, event: Any) -> None:
        record = self.ledger.propose_turn(
            kind=FailureKind.TRANSPORT_LOST,
            severity=Severity.WARNING,
            text=classify.stall_title(event.waited_seconds),
        )
        self.effects.append(PublishRecord(record=record))

    # --- boundaries and settling ----------------------------------------------------------------

    # Boundaries and the runtime's end are recorded here and applied by `Turn.fire` once the
    # whole row ran, so a row that raises changes no other machine (`fsm/machine.py`).

    def confirm_boundary(self, *_: Any) -> None:
        self.reached.append((IncidentTrigger.ATTEMPT_CONFIRMED, self.turn_id))

    def recover_after_answer(self, *_: Any) -> None:
        self.reached.append((IncidentTrigger.REAL_ANSWER_GIVEN, self.turn_id))

    def explain_refusal(self, event: ResultReceived) -> None:
        # docs/decisions.md#refusal-explanation: the explanation reaches the client before
        # `refusal`, once; the result brings it when Claude Code said it only in a
        # `model_refusal_no_fallback` frame.
        explanation = self.refusal_explanation or event.refusal_explanation
        if explanation and explanation.strip() not in self.answered_text:
            self.effects.append(SendAgentText(text=redact(explanation, self.private)))

    def settle_succeeded(self, *_: Any) -> None:
        self._settle("succeeded", StopReason.END_TURN)

    def settle_max_tokens(self, *_: Any) -> None:
        self._settle("succeeded", StopReason.MAX_TOKENS)

    def settle_turn_limit(self, *_: Any) -> None:
        self._settle("succeeded", StopReason.MAX_TURN_REQUESTS)

    def settle_refused(self, *_: Any) -> None:
        self._settle("refused", StopReason.REFUSAL)

    def settle_cancelled(self, *_: Any) -> None:
        self.release_withheld()
        self._settle("cancelled", StopReason.CANCELLED)

    def settle_unstarted(self, *_: Any) -> None:
        # The live prompt Claude Code ended before it started it: cancelled, and nothing the
        # session shows is its (docs/decisions.md#prompt-ended-unstarted).
        self.release_withheld()
        self._settled("cancelled", StopReason.CANCELLED, ran=False)

    # --- background subagents and steering: when a turn's answer waits ----------------------

    def note_subagent(self, event: BackgroundTaskStarted) -> None:
        if event.moved:
            # A foreground subagent moved to the background wakes Claude when it ends, as one
            # started there does (the reference marks its live task backgrounded;
            # docs/decisions.md#turns-that-wait).
            self.backgrounded.add(event.task_id)
            return
        # A turn runs a handful of subagents; past this many they are not this turn's to wait on.
        if len(self.subagents) < _MAX_SUBAGENTS:
            self.subagents.add(event.task_id)
            if event.backgrounded:
                self.backgrounded.add(event.task_id)

    def keep_listed_subagents(self, event: BackgroundTasksListed) -> None:
        # A level never adds: a task it lists that the turn did not start is not the turn's.
        # One that ran in the background and is gone wakes Claude as its end would have.
        if self.backgrounded - event.task_ids:
            self.follow_up_owed = True
        self.subagents &= event.task_ids
        self.backgrounded &= event.task_ids

    def note_task_settled(self, event: BackgroundTaskSettled) -> None:
        # An id it never started: nothing. One that ran in the background wakes Claude when it
        # ends: before the turn's result, that follow-up comes right after the result.
        if event.task_id in self.backgrounded:
            self.follow_up_owed = True
        self.subagents.discard(event.task_id)
        self.backgrounded.discard(event.task_id)

    def hold_answer(self, *_: Any) -> None:
        self.held = True

    def inject_steer(self, event: SteerReceived) -> None:
        # Interrupting Claude while a question waits would withdraw the question: `later`
        # delivers the message at the next tool boundary instead.
        self.steered = True
        priority = "later" if event.question_open else "now"
        self.effects.append(AnswerSteer(outcome="injected", priority=priority))

    def close_open_calls(self, *_: Any) -> None:
        self.effects.append(CloseOpenCalls())

    def note_own_turn_stopped(self, *_: Any) -> None:
        # Spent by the next result between turns, Claude's idle, its process's end, the
        # interrupt's failure or a turn that opens (docs/decisions.md#stopped-own-turn).
        self.own_stop_pending = True

    def interrupt_own_turn(self, *_: Any) -> None:
        self.effects.append(InterruptOwnTurn())

    def forget_own_turn_stop(self, *_: Any) -> None:
        self.own_stop_pending = False

    # --- whose a result is (docs/decisions.md#result-owner): every result row's first callback

    def show_own_work(self, *_: Any) -> None:
        # Claude's own work: its text is no prompt's answer, its tokens count toward no turn.
        self.effects.append(ShowResult())

    def show_turns_result(self, event: ResultReceived) -> None:
        # The live prompt's: its text may be the turn's answer, its tokens count toward it, and
        # the fast mode it says is the switch's.
        if self.turn_id is None:
            raise FsmError("a result taken for a turn that was never opened")
        self.effects.append(
            ShowResult(turn_id=self.turn_id, fast_on=event.fast_on, fast_reason=event.fast_reason)
        )

    def refuse_steer(self, event: SteerReceived) -> None:
        outcome = "promptRequired" if event.prompt_required_when_idle else "startedNewTurn"
        self.effects.append(AnswerSteer(outcome=outcome))

    # --- a plan exit that clears the context (docs/reference-adapter.md#clear-context) ------

    def note_fresh_context(self, *_: Any) -> None:
        self.fresh_context_chosen = True

    def start_fresh_context(self, *_: Any) -> None:
        # The same turn (and prompt) goes on in the fresh context; the runtime machine retires
        # the old process as this effect passes it (`SessionCore._dispatch`).
        self.fresh_context_chosen = False
        assert self.turn_id is not None
        self.effects.append(StartFreshContext(turn_id=self.turn_id))

    def send_continuation(self, *_: Any) -> None:
        # What the old context's turn saw says nothing about the fresh one's.
        self.forget_turn()
        assert self.turn_id is not None
        self.effects.append(SendContinuation(turn_id=self.turn_id))

    def log_fresh_context_unused(self, *_: Any) -> None:
        self.effects.append(LogNotice(message="a fresh context for no live turn: no plan sent"))

    # --- the runtime ----------------------------------------------------------------------------

    def note_runtime_lost(self, *_: Any) -> None:
        # The runtime machine's `runtime_lost` (WARNING: hand-coded, not drawn: fired by
        # `Turn.fire` after this row).
        self.runtime_ended = True
        # The stopped own turn's result will not come from a process that is gone.
        self.own_stop_pending = False
        # Prompts pushed to the lost process never ran: they go to the fresh one, first.
        self.queued[:0] = self.pushed
        self.pushed = []

    def log_repeated_loss(self, *_: Any) -> None:
        # One runtime dies once: a failed write and the reader's end both report it.
        self.effects.append(LogNotice(message="the runtime's loss was already reported"))

    def log_start_failure(self, event: RuntimeStartFailed) -> None:
        self.effects.append(LogNotice(message=f"Claude did not start: {event.reason}"))

    # --- settling and withheld prose (shared by every row that ends a turn) ---------------

    def _settled(
        self,
        outcome: str,
        stop_reason: StopReason,
        failure: FailedTurn | None = None,
        *,
        handed_off: bool = False,
        ran: bool = True,
    ) -> None:
        # Every row that ends the live turn comes here: its open questions are withdrawn before
        # its one answer, which names its prompt. The client's form of the answer
        # (`RecordAnswers`, `LegacyAnswers`); a failure's record needs the turn open.
        if self.turn_id is None:
            raise FsmError("a turn ended that was never opened")
        settle = SettlePrompt(
            stop_reason=stop_reason,
            turn_id=self.turn_id,
            failure=failure,
            handed_off=handed_off,
            ran=ran,
        )
        answer = self.answers.answer(settle)
        self.adapter_turns.discard(self.turn_id)
        self.outcome = TurnOutcome(outcome)
        self.grace_armed = False
        self.ledger.close_turn()
        # The answer comes last (any words of Claude's a legacy client reads go first); its
        # questions are withdrawn right before it. Handed off, Claude's work and its questions
        # go on for the next prompt, whose turn is next (no queued one is sent).
        *words, reply = answer
        withdraw = [] if handed_off else [WithdrawQuestions()]
        self.effects += [*words, *withdraw, reply]
        if self.queued and not handed_off:
            self.dispatching = self.queued.pop(0)
            self.effects.append(SendPrompt(turn_id=self.dispatching))

    def _settle(self, outcome: str, stop_reason: StopReason) -> None:
        self._settled(outcome, stop_reason)

    def release_withheld(self, *_: Any) -> None:
        # docs/decisions.md#error-prose-without-record: prose that will become no record goes out as
        # agent text, in its place.
        for text in self.withheld:
            if text.strip():
                self.effects.append(SendAgentText(text=redact(text, self.private)))
        self.withheld = []
        self.failure_error, self.failure_text, self.usage_limit = None, None, False

    # --- failing the turn ------------------------------------------------------------------------

    def fail_with_result(self, event: ResultReceived) -> None:
        """The turn ends in an error result with no warning of it out: a record of its own,
        titled from the result and the failure message Claude sent before it, if any."""
        self._fail_on(event)

    def escalate_warning(self, event: ResultReceived) -> None:
        """The turn ends in an error result while its warning is out: the warning's entry
        becomes the error (the same `<turnId>:error`, its next revision)."""
        if not self.ledger.turn_warning_is_out():
            raise FsmError("no warning of this turn is out to escalate")
        self._fail_on(event)

    def _fail_on(self, event: ResultReceived) -> None:
        kind, text = classify.result_failure(
            subtype=event.subtype,
            errors=event.errors,
            result=event.result,
            failure_error=self.failure_error,
            failure_text=self.failure_text,
            usage_limit=self.usage_limit,
            login=self.login,
        )
        named = classify.error_kind_for_result_subtype(event.subtype)
        self._fail(kind, text, error_kind=self.failure_error or named, claudes_words=True)

    def fail_with_claudes_words(self, *_: Any) -> None:
        kind = classify.kind_for_assistant_error(self.failure_error, usage_limit=self.usage_limit)
        if self.login:
            kind = FailureKind.AUTH_REQUIRED
        self._fail(kind, self.failure_text or "", error_kind=self.failure_error, claudes_words=True)

    def fail_not_run(self, event: PromptEnded) -> None:
        # docs/decisions.md#prompt-ended-unstarted: Claude Code set the prompt aside or declined
        # it; it will not run.
        self._fail(
            FailureKind.INTERNAL_ERROR,
            not_run_title(event.fate),
            error_kind=NOT_RUN_ERROR_KIND,
            ran=False,
        )

    def fail_no_result(self, *_: Any) -> None:
        self._fail(FailureKind.INTERNAL_ERROR, TURN_NO_RESULT_TITLE, error_kind="no_result")

    def fail_transport_lost(self, *_: Any) -> None:
        self._fail(FailureKind.TRANSPORT_LOST, "", error_kind=None)

    def fail_worker_shutdown(self, *_: Any) -> None:
        self._fail(FailureKind.WORKER_SHUTDOWN, "", error_kind=None)

    def fail_too_large(self, event: MessageTooLarge) -> None:
        # Its own clear record, not a lost connection: the stream cannot go on past it.
        mib, rest = divmod(event.limit_bytes, 1024 * 1024)
        size = f"{mib} MiB" if mib and not rest else f"{event.limit_bytes:,} bytes"
        text = MESSAGE_TOO_LARGE_TITLE.format(size=size)
        self._fail(FailureKind.CONTEXT_EXHAUSTED, text, error_kind="message_too_large")

    def fail_start(self, event: RuntimeStartFailed) -> None:
        self._fail(FailureKind.TRANSPORT_LOST, event.reason, error_kind=None)

    def fail_internal(self, *_: Any) -> None:
        # docs/decisions.md#internal-faults: our own bug, never Claude's failure ("connection
        # lost").
        self._fail(FailureKind.INTERNAL_ERROR, "", error_kind=FailureKind.INTERNAL_ERROR.value)

    def reject_waiting(self, *_: Any) -> None:
        # The session is broken: prompts that wait for their turn are answered now.
        waiting = [*([self.dispatching] if self.dispatching else []), *self.queued, *self.pushed]
        for turn_id in waiting:
            self.effects.append(self._rejection(turn_id))
        self.dispatching, self.queued, self.pushed = None, [], []

    def _rejection(self, turn_id: str) -> RejectPrompt:
        return RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {BROKEN_REASON}",
            error_kind=FailureKind.INTERNAL_ERROR.value,
            turn_id=turn_id,
        )

    def _hints(self) -> Hints:
        after = self.retry_after_ms
        return (None if after is None else after / 1000.0, self.reset_at_ms)

    def _fail(
        self,
        kind: FailureKind,
        text: str,
        *,
        error_kind: str | None,
        claudes_words: bool = False,
        ran: bool = True,
    ) -> None:
        """Fail the live turn: one settle for every client, which the answer dialect makes a
        record on the prompt response or a legacy JSON-RPC error. Withheld prose that is not
        the title goes out first (docs/decisions.md#error-prose-without-record). `claudes_words`:
        `text` is what Claude (or Claude Code) said, not the adapter's own."""
        said = text.strip()
        # A client that takes no records was passed the failure message as it came; a result's
        # text may repeat what the turn already answered.
        shown = bool(said) and (
            said == (self.failure_text or "").strip() or said in self.answered_text
        )
        text = redact(said, self.private) or policy_for(kind).fallback_title
        self.withheld = [w for w in self.withheld if w != self.failure_text]
        self.release_withheld()
        after, reset = self._hints()
        failure = FailedTurn(
            kind=kind,
            text=text,
            error_kind=error_kind,
            retry_after_seconds=after,
            reset_at_epoch_ms=reset,
            claudes_words=claudes_words and bool(said),
            shown=shown,
            # The client's text so far ends mid-line: words added after it start a line.
            line_open=bool(self.answered_text) and not self.answered_text.endswith("\n"),
        )
        self._settled("failed", StopReason.END_TURN, failure, ran=ran)

    # --- between turns (docs/decisions.md#failures-between-turns) ---------------------------------

    def log_failure_message(self, *_: Any) -> None:
        self.effects.append(LogNotice(message="a failure with no live turn"))

    def report_failure_message(self, event: AssistantMessageReceived) -> None:
        kind = classify.kind_for_assistant_error(
            event.error,
            usage_limit=synthetic_messages.is_synthetic_usage_limit(event.model, event.text),
        )
        self._report(kind, event.text)
        self.between_failure_reported = True

    def report_error_result(self, event: ResultReceived) -> None:
        self._report(*self._between_result(event))

    def log_error_result(self, event: ResultReceived) -> None:
        self._log_between(*self._between_result(event))

    @staticmethod
    def _between_result(event: ResultReceived) -> tuple[FailureKind, str]:
        return classify.result_failure(
            subtype=event.subtype,
            errors=event.errors,
            result=event.result,
            failure_error=None,
            failure_text=None,
            usage_limit=False,
            login=False,
        )

    def report_transport_lost(self, *_: Any) -> None:
        self._report(FailureKind.TRANSPORT_LOST, "")

    def log_transport_lost(self, *_: Any) -> None:
        self._log_between(FailureKind.TRANSPORT_LOST, "")

    def report_worker_shutdown(self, *_: Any) -> None:
        self._report(FailureKind.WORKER_SHUTDOWN, "")

    def log_worker_shutdown(self, *_: Any) -> None:
        self._log_between(FailureKind.WORKER_SHUTDOWN, "")

    def _between_text(self, kind: FailureKind, text: str) -> str:
        return redact(text.strip(), self.private) or policy_for(kind).fallback_title

    def _log_between(self, kind: FailureKind, text: str) -> None:
        # A client that takes no records: nothing reaches it, the log says what happened.
        text = self._between_text(kind, text)
        self.effects.append(LogNotice(message=f"{kind.value} with no live turn: {text}"))

    def _report(self, kind: FailureKind, text: str) -> None:
        text = self._between_text(kind, text)
        record = self.ledger.propose_session(
            kind=kind, severity=Severity.ERROR, text=text, hints=self._hints()
        )
        self.effects.append(PublishRecord(record=record))


def _unstarted(turn_id: str) -> SettlePrompt:
    """A prompt that never ran, answered `cancelled` (`SettlePrompt.ran`)."""
    return SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id=turn_id, ran=False)


def _is_error_prose(event: AssistantMessageReceived) -> bool:
    """A message forwarded as agent text is masked when it is Claude's error prose (an API
    error, a notice Claude Code composed), like any error text (docs/decisions.md#secrets)."""
    return synthetic_messages.is_error_prose(event.model, event.error)


# --- answer dialects: how the answer to a prompt looks to a client -----------------------------


class AnswerDialect(Protocol):
    def answer(self, settle: SettlePrompt) -> list[Effect]:
        """The effects that answer the prompt `settle` settles, the answer itself last."""
        ...


class RecordAnswers:
    """sessionFailure or agentError: a failed turn is a response with its record on it."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def answer(self, settle: SettlePrompt) -> list[Effect]:
        failure = settle.failure
        if failure is None:
            return [settle]
        record = self._ledger.propose_turn(
            kind=failure.kind,
            severity=Severity.ERROR,
            text=failure.text,
            hints=(failure.retry_after_seconds, failure.reset_at_epoch_ms),
        )
        self._ledger.confirm(record.id, record.revision)
        return [replace(settle, record=record, failure=None)]


# What works from an editor, wherever the adapter words a sign-in hint itself
# (docs/decisions.md#sign-in-that-leads-somewhere): never Claude Code's terminal-only `/login`.
SIGN_IN_HINT = (
    "Sign in from your editor, run `claude-acp login` in a terminal, or set ANTHROPIC_API_KEY "
    "for the editor; then try again."
)
AUTH_REQUIRED_MESSAGE = f"Authentication required: not signed in to Claude. {SIGN_IN_HINT}"


class LegacyAnswers:
    """Neither extension: a failed turn is a JSON-RPC error
    (docs/decisions.md#auth-failure-legacy-client). Claude's words are shown once, as agent
    text; the error's message stays short (docs/decisions.md#legacy-error-text-once)."""

    def answer(self, settle: SettlePrompt) -> list[Effect]:
        failure = settle.failure
        if failure is None:
            return [settle]
        if failure.kind is FailureKind.AUTH_REQUIRED:
            return [
                RejectPrompt(
                    blame=Blame.AUTH,
                    message=AUTH_REQUIRED_MESSAGE,
                    turn_id=settle.turn_id,
                    ran=settle.ran,
                )
            ]
        words: list[Effect] = []
        summary = failure.text  # the adapter's own words: shown nowhere else
        if failure.claudes_words:
            summary = policy_for(failure.kind).fallback_title
            if not failure.shown:
                start = "\n" if failure.line_open else ""
                words.append(SendAgentText(text=f"{start}{failure.text}"))
        reject = RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {summary}",
            error_kind=failure.error_kind or failure.kind.value,
            turn_id=settle.turn_id,
            ran=settle.ran,
        )
        return [*words, reject]


def answer_dialect(ledger: Ledger, *, takes_records: bool) -> AnswerDialect:
    return RecordAnswers(ledger) if takes_records else LegacyAnswers()
