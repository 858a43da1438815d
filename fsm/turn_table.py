"""The turn machine's table: its rows, in the order they are tried, and the names they use.

`turn.py` explains the machine and holds its model (`Turn`); this module is the decision
itself, read top to bottom: `diagrams/turn.mmd` draws it and `diagrams/turn.md` lists it.
"""

from __future__ import annotations

from typing import Any

from fsm.machine import build_machine
from fsm.turn_states import TurnState

__all__ = ["TRANSITIONS", "TURN_MACHINE"]


_S = TurnState
IDLE, SENT, RUNNING, RETRYING = _S.IDLE, _S.PROMPT_SENT, _S.RUNNING, _S.RETRYING
FAILING, CANCELLING, BROKEN = _S.FAILING, _S.CANCELLING, _S.BROKEN
RESETTING = _S.RESETTING
# Live, no failure seen, no cancel asked: PROMPT_SENT's rows differ from the other two only
# where Claude's first word moves a sent prompt to RUNNING, and each such row sits by its twin.
WORKING, HEARD = [SENT, RUNNING, RETRYING], [RUNNING, RETRYING]
LIVE = [SENT, RUNNING, RETRYING, FAILING, CANCELLING, RESETTING]
QUIET = "="  # back into the state it left (the library's reflexive `dest`)


def _row(
    trigger: str | list[str],
    source: TurnState | list[TurnState],
    dest: TurnState | str | None,
    *before: str,
    when: str | list[str] | None = None,
    unless: str = "",
) -> dict[str, Any]:
    """One literal row: `dest` None is internal (the state stays), `"="` re-enters the source."""
    row: dict[str, Any] = {"trigger": trigger, "source": source, "dest": dest}
    if before:
        row["before"] = list(before)
    if when:
        row["conditions"] = [when] if isinstance(when, str) else list(when)
    if unless:
        row["unless"] = [unless]
    return row


# Trigger names (the events', snake_case) and the two callbacks most rows share.
SAID, RETRY, RESULT = "assistant_message_received", "retry_attempted", "result_received"
SILENT, BUSY, IDLED = "claude_silent", "turn_went_busy", "turn_went_idle"
ENDED, LOST, NO_START = "stream_ended", "transport_lost", "runtime_start_failed"
CANCEL, GRACE_OVER = "cancel_requested", "cancel_grace_expired"
PROMPT, FAULT = "prompt_received", "internal_fault_occurred"
TOO_LARGE, STREAMED = "message_too_large", "answer_stream_started"
BOUNDARY, LOST_NOW = "confirm_boundary", "note_runtime_lost"
ANSWERED = "was_answered_for_real"
RECORDS = "takes_records"  # errors become records (sessionFailure or agentError negotiated)
CHOSEN, READY = "fresh_context_chosen", "fresh_context_ready"
TASK_STARTED, TASK_SETTLED = "background_task_started", "background_task_settled"
TASKS_LISTED = "background_tasks_listed"
STEER = "steer_received"
HELD = "is_held"


# fmt: off
TRANSITIONS: list[dict[str, Any]] = [
    # --- IDLE: between turns (row 26), failures are session-scoped records -----------------
    _row(PROMPT, IDLE, None, "queue_prompt", when="has_a_prompt_in_flight"),
    _row(PROMPT, IDLE, None, "dispatch_prompt"),
    _row("prompt_sent", IDLE, SENT, "open_turn"),
    # Row 26: a failure message between turns is a session-scoped record, or (for a client
    # that takes no records) the transcript's text; a login prompt is neither.
    _row(SAID, IDLE, None, when=["is_a_failure_message", "is_a_login_prompt"]),
    _row(SAID, IDLE, None, "report_failure_message", when=["is_a_failure_message", RECORDS]),
    _row(SAID, IDLE, None, "forward_message", "log_failure_message", when="is_a_failure_message"),
    _row(SAID, IDLE, None, "forward_message"),
    _row(RETRY, IDLE, None, "note_retry_hint", when="is_a_quiet_retry"),
    _row(RETRY, IDLE, None, "note_retry_hint", "warn_between_turns"),
    _row(RESULT, IDLE, None, when="was_stopped_by_the_user"),
    _row(RESULT, IDLE, None, "report_error_result", when=["is_an_unreported_error", RECORDS]),
    _row(RESULT, IDLE, None, "log_error_result", when="is_an_unreported_error"),
    _row(RESULT, IDLE, None),
    _row([ENDED, LOST], IDLE, None, "log_repeated_loss", when="runtime_was_lost"),
    _row([ENDED, LOST], IDLE, None, LOST_NOW, "report_worker_shutdown",
         when=["worker_is_shutting_down", RECORDS]),
    _row([ENDED, LOST], IDLE, None, LOST_NOW, "log_worker_shutdown",
         when="worker_is_shutting_down"),
    _row(ENDED, IDLE, None, LOST_NOW),
    _row(LOST, IDLE, None, LOST_NOW, "report_transport_lost", when=RECORDS),
    _row(LOST, IDLE, None, LOST_NOW, "log_transport_lost"),
    _row(NO_START, IDLE, None, LOST_NOW, "log_start_failure"),
    _row(TOO_LARGE, IDLE, None, LOST_NOW),
    _row(CANCEL, IDLE, None, "cancel_queued"),
    _row([SILENT, BUSY, STREAMED, IDLED, GRACE_OVER], IDLE, None),
    # Work Claude starts between turns is its own: no turn waits for it.
    _row([TASK_STARTED, TASK_SETTLED, TASKS_LISTED], IDLE, None),
    # No turn runs: the steer is the client's prompt to send, or the shell's to send for it.
    _row(STEER, IDLE, None, "refuse_steer"),
    # --- PROMPT_SENT, RUNNING, RETRYING: Claude's messages and the turn's end ---------------
    _row(SAID, SENT, RUNNING, "forward_message", when="is_from_a_subagent"),
    _row(SAID, HEARD, QUIET, "forward_message", when="is_from_a_subagent"),
    # Row 20: a failure message's prose is withheld to become the record's title; a client
    # that takes no records reads it in the transcript; a login prompt is neither.
    _row(SAID, WORKING, FAILING, "note_failure",
         when=["is_a_failure_message", "is_a_login_prompt"]),
    _row(SAID, WORKING, FAILING, "note_failure", "withhold_failure",
         when=["is_a_failure_message", RECORDS]),
    _row(SAID, WORKING, FAILING, "note_failure", "forward_message", when="is_a_failure_message"),
    _row(SAID, SENT, RUNNING, "take_answer"),
    _row(SAID, HEARD, QUIET, "take_answer"),
    _row(RETRY, SENT, RUNNING, "note_retry_hint", when="is_a_quiet_retry"),
    _row(RETRY, HEARD, QUIET, "note_retry_hint", when="is_a_quiet_retry"),
    _row(RETRY, WORKING, RETRYING, "note_retry_hint", "warn_under_turn_id"),
    # A held turn's subagents ended and Claude followed up on its own: that answers it.
    _row(RESULT, HEARD, IDLE, BOUNDARY, "settle_succeeded",
         when=["is_autonomous", "is_held_and_drained"]),
    _row(RESULT, SENT, RUNNING, when="is_autonomous"),
    _row(RESULT, HEARD, QUIET, when="is_autonomous"),
    # Section 2.3: the plan exit's interrupted result hands the turn to a fresh context.
    _row(RESULT, WORKING, RESETTING, "start_fresh_context", when="wants_a_fresh_context"),
    # The user's own answer stopped the turn ("No, keep planning" denies with an interrupt):
    # it ends as a cancel does, with no record; Claude Code's diagnostic is no failure.
    _row(RESULT, WORKING, IDLE, BOUNDARY, "settle_cancelled", when="was_stopped_by_the_user"),
    _row(RESULT, WORKING, IDLE, BOUNDARY, "explain_refusal", "settle_refused", when="is_a_refusal"),
    _row(RESULT, WORKING, IDLE, BOUNDARY, "recover_after_answer", "settle_max_tokens",
         when=["stopped_at_max_tokens", ANSWERED]),
    _row(RESULT, WORKING, IDLE, BOUNDARY, "settle_max_tokens", when="stopped_at_max_tokens"),
    # The escalation: a turn that ends in an error while its warning is out revises that
    # warning's entry as the error; with no warning out the error is a record of its own.
    _row(RESULT, [SENT, RUNNING], IDLE, BOUNDARY, "fail_with_result", when="is_an_error"),
    _row(RESULT, RETRYING, IDLE, BOUNDARY, "escalate_warning",
         when=["is_an_error", "has_a_warning_out"]),
    # The warning's delivery failed, so nothing of it reached the client (row 21).
    _row(RESULT, RETRYING, IDLE, BOUNDARY, "fail_with_result", when="is_an_error"),
    _row(RESULT, WORKING, IDLE, BOUNDARY, "recover_after_answer", "settle_turn_limit",
         when=["hit_a_turn_limit", ANSWERED]),
    _row(RESULT, WORKING, IDLE, BOUNDARY, "settle_turn_limit", when="hit_a_turn_limit"),
    # The reference's hold: a turn whose subagent went to the background, or that the client
    # steered, keeps its prompt open, so the follow-up (and any question it asks) lands in
    # the turn the user watches; it is answered when its subagents ended and Claude is idle.
    _row(RESULT, SENT, RUNNING, "hold_answer", when="awaits_its_subagents"),
    _row(RESULT, HEARD, QUIET, "hold_answer", when="awaits_its_subagents"),
    _row(RESULT, SENT, RUNNING, "hold_answer", when="was_steered"),
    _row(RESULT, HEARD, QUIET, "hold_answer", when="was_steered"),
    _row(RESULT, WORKING, IDLE, BOUNDARY, "recover_after_answer", "settle_succeeded",
         when=ANSWERED),
    _row(RESULT, WORKING, IDLE, BOUNDARY, "settle_succeeded"),
    _row(SILENT, WORKING, None, when=HELD),  # its subagents work; the turn's own work is done
    _row(SILENT, WORKING, None, "log_silence", when="stalls_are_quiet"),
    _row(SILENT, WORKING, RETRYING, "warn_stalled"),
    _row([BUSY, STREAMED], SENT, RUNNING),
    _row([BUSY, STREAMED], HEARD, QUIET),
    # An idle before Claude said anything for this turn is the previous turn's.
    _row(IDLED, SENT, None),
    _row(IDLED, HEARD, IDLE, BOUNDARY, "settle_succeeded", when="is_held_and_drained"),
    _row(IDLED, HEARD, None, when=HELD),  # its subagents still run: it stays open
    _row(IDLED, HEARD, IDLE, "fail_no_result"),
    # Lost before this turn began (the prompt went to a process already gone): any loss
    # reported during a turn settles it, so this one is news for the turn.
    _row([ENDED, LOST], WORKING, IDLE, "fail_transport_lost", when="runtime_was_lost"),
    _row([ENDED, LOST], WORKING, IDLE, LOST_NOW, "fail_worker_shutdown",
         when="worker_is_shutting_down"),
    _row(ENDED, WORKING, IDLE, LOST_NOW, "fail_no_result"),
    _row(LOST, WORKING, IDLE, LOST_NOW, "fail_transport_lost"),
    _row(NO_START, WORKING, IDLE, LOST_NOW, "fail_start"),
    # The runtime's end that follows is this fault's (the stream cannot go on past it).
    _row(TOO_LARGE, WORKING, IDLE, LOST_NOW, "fail_too_large"),
    _row(CANCEL, WORKING, CANCELLING, "cancel_queued", "interrupt_claude"),
    _row(CHOSEN, WORKING, None, "note_fresh_context"),
    _row(TASK_STARTED, WORKING, None, "note_subagent", when="is_a_subagent"),
    _row(TASK_STARTED, WORKING, None),
    _row(TASK_SETTLED, WORKING, None, "note_task_settled"),
    _row(TASKS_LISTED, WORKING, None, "keep_listed_subagents"),
    _row(STEER, WORKING, None, "inject_steer"),
    # --- FAILING: a failure message was seen; its prose is withheld for the record ----------
    _row(SAID, FAILING, FAILING, "forward_message", when="is_from_a_subagent"),
    # Row 24: a second failure message supersedes the first, whose prose is then released.
    _row(SAID, FAILING, FAILING, "release_withheld", "note_failure",
         when=["is_a_failure_message", "is_a_login_prompt"]),
    _row(SAID, FAILING, FAILING, "release_withheld", "note_failure", "withhold_failure",
         when=["is_a_failure_message", RECORDS]),
    _row(SAID, FAILING, FAILING, "release_withheld", "note_failure", "forward_message",
         when="is_a_failure_message"),
    # Row 24: Claude got past the failure within the turn; its withheld words go out first.
    # (Back to RETRYING when a warning of the turn is out, so that RETRYING alone escalates.)
    _row(SAID, FAILING, RETRYING, "release_withheld", "take_answer",
         when=["is_a_real_answer", "has_a_warning_out"]),
    _row(SAID, FAILING, RUNNING, "release_withheld", "take_answer", when="is_a_real_answer"),
    _row(SAID, FAILING, FAILING, "take_answer"),
    _row(RETRY, FAILING, FAILING, "note_retry_hint", when="is_a_quiet_retry"),
    _row(RETRY, FAILING, FAILING, "note_retry_hint", "warn_under_turn_id"),
    _row(RESULT, FAILING, None, when="is_autonomous"),
    _row(RESULT, FAILING, IDLE, BOUNDARY, "release_withheld", "explain_refusal", "settle_refused",
         when="is_a_refusal"),
    # Rows 18, 20, 25: a failure message Claude never got past fails the turn, in its words.
    _row(RESULT, FAILING, IDLE, BOUNDARY, "escalate_warning", when="has_a_warning_out"),
    _row(RESULT, FAILING, IDLE, BOUNDARY, "fail_with_result"),
    _row(SILENT, FAILING, None, "log_silence", when="stalls_are_quiet"),
    _row(SILENT, FAILING, FAILING, "warn_stalled"),
    _row(BUSY, FAILING, FAILING),
    # Row 24: a real model streams an answer after the failure: its prose goes out first.
    _row(STREAMED, FAILING, RETRYING, "release_withheld",
         when=["is_a_real_answer", "has_a_warning_out"]),
    _row(STREAMED, FAILING, RUNNING, "release_withheld", when="is_a_real_answer"),
    _row(STREAMED, FAILING, FAILING),
    # Row 22: Claude's last words win over how the turn then ended.
    _row(IDLED, FAILING, IDLE, "fail_with_claudes_words"),
    _row([ENDED, LOST, NO_START, TOO_LARGE], FAILING, IDLE, LOST_NOW, "fail_with_claudes_words"),
    _row(CANCEL, FAILING, CANCELLING, "cancel_queued", "interrupt_claude"),
    _row(TASK_STARTED, FAILING, None, "note_subagent", when="is_a_subagent"),
    _row(TASK_STARTED, FAILING, None),
    _row(TASK_SETTLED, FAILING, None, "note_task_settled"),
    _row(TASKS_LISTED, FAILING, None, "keep_listed_subagents"),
    _row(STEER, FAILING, None, "inject_steer"),
    # --- CANCELLING: one interrupt is out --------------------------------------------------
    _row(SAID, CANCELLING, None, when="is_a_login_prompt"),
    # No record will carry it (a cancelled turn has none), so it is text, masked (rows 24, 31).
    _row(SAID, CANCELLING, None, "pass_on_failure_text", when="is_a_failure_message"),
    _row(SAID, CANCELLING, None, "forward_message"),
    _row(RETRY, CANCELLING, None, "note_retry_hint"),
    _row(RESULT, CANCELLING, None, when="is_autonomous"),
    _row(RESULT, CANCELLING, IDLE, BOUNDARY, "settle_cancelled"),
    _row([SILENT, BUSY, STREAMED], CANCELLING, None),
    _row(IDLED, CANCELLING, IDLE, "settle_cancelled"),
    _row([ENDED, LOST, NO_START, TOO_LARGE], CANCELLING, IDLE, LOST_NOW, "settle_cancelled"),
    # One interrupt per turn however often the client cancels; its backstop stops Claude.
    _row(CANCEL, CANCELLING, None, "cancel_queued"),
    _row(GRACE_OVER, CANCELLING, None, "stop_runtime"),
    _row([TASK_STARTED, TASK_SETTLED, TASKS_LISTED], CANCELLING, None),
    # The turn is ending: the steer waits as a prompt of its own, behind it.
    _row(STEER, CANCELLING, None, "refuse_steer"),
    # --- RESETTING: the old process is closed, the fresh context's is starting -------------
    # What the old process still says is dropped (its epoch is retired); the new one has
    # been sent nothing yet, so what it says before the plan belongs to no turn.
    _row(READY, RESETTING, SENT, "send_continuation"),
    _row(CANCEL, RESETTING, IDLE, "cancel_queued", "settle_cancelled"),
    _row(NO_START, RESETTING, IDLE, LOST_NOW, "fail_start"),
    _row([ENDED, LOST], RESETTING, IDLE, LOST_NOW, "fail_transport_lost"),
    _row(TOO_LARGE, RESETTING, IDLE, LOST_NOW, "fail_too_large"),
    _row([SAID, RETRY, RESULT, SILENT, BUSY, STREAMED, IDLED, GRACE_OVER, CHOSEN, TASK_STARTED,
          TASK_SETTLED, TASKS_LISTED], RESETTING, None),
    _row(STEER, RESETTING, None, "refuse_steer"),
    # A fresh context whose turn was cancelled meanwhile gets no plan; nor does a late choice.
    _row(READY, [IDLE, SENT, RUNNING, RETRYING, FAILING, CANCELLING], None,
         "log_fresh_context_unused"),
    _row(CHOSEN, [IDLE, FAILING, CANCELLING], None, "log_fresh_context_unused"),
    # --- any live state: a second prompt waits for its turn ---------------------------------
    _row(PROMPT, LIVE, None, "queue_prompt"),
    # --- BROKEN: row 30, an internal fault fails what is live and breaks the session for good
    _row(FAULT, IDLE, BROKEN, "reject_waiting"),
    _row(FAULT, LIVE, BROKEN, "reject_waiting", "fail_internal"),
    _row(PROMPT, BROKEN, None, "refuse_prompt"),
    _row(CANCEL, BROKEN, None, "cancel_queued"),
    _row([SAID, RETRY, RESULT, SILENT, BUSY, STREAMED, IDLED, ENDED, LOST, NO_START, TOO_LARGE,
          GRACE_OVER, FAULT, CHOSEN, READY, TASK_STARTED, TASK_SETTLED, TASKS_LISTED], BROKEN,
         None),
    _row(STEER, BROKEN, None, "refuse_steer"),
]
# fmt: on

TURN_MACHINE = build_machine(name="turn", states=TurnState, transitions=TRANSITIONS, initial=IDLE)
