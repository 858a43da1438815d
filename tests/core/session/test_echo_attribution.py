"""docs/decisions.md#turn-begins-at-echo: a prompt's turn begins when Claude Code echoes it.

Between the prompt being written and its echo (PROMPT_SENT), what Claude says is its own work (a
background task's follow-up, a `/loop` fire): shown and handled as between turns, never taken
as the prompt's answer. The echo moves the turn to RUNNING. A result that is not Claude's own
work still answers a prompt that was never echoed (a local command writes its output before
its echo; `/compact` has none), so every prompt gets exactly one answer.
"""

from __future__ import annotations

from dataclasses import replace

from fsm import (
    BackgroundTaskStarted,
    CancelRequested,
    ClaudeSilent,
    InterruptClaude,
    LogNotice,
    PromptEchoed,
    PromptQueued,
    PromptReceived,
    PromptSent,
    PromptStarted,
    PublishRecord,
    RejectPrompt,
    SessionCore,
    SettlePrompt,
    StopReason,
    StreamEnded,
    TransportLost,
    TurnTakenUp,
    TurnWentBusy,
    TurnWentIdle,
    WithdrawPrompt,
)
from fsm.events import AnswerStreamStarted
from fsm.turn import TurnState
from tests.support.session_narrative import (
    CLOSE,
    E1,
    FORWARD,
    FORWARD_MASKED,
    LOGIN_TEXT,
    OVERLOADED_TEXT,
    REAL,
    SHOWN_OWN,
    SYN,
    T1,
    T2,
    WITHDRAW,
    confirm,
    result,
    retried,
    said,
    settled,
    shown,
)

PROMPT_SENT, RUNNING, IDLE = TurnState.PROMPT_SENT, TurnState.RUNNING, TurnState.IDLE
OWN_WORK = "task-notification"


def _sent(core: SessionCore, turn_id: str = T1) -> None:
    core.handle(PromptReceived(turn_id=turn_id))
    core.handle(PromptSent(turn_id=turn_id))


def _echo(turn_id: str = T1) -> PromptEchoed:
    return PromptEchoed(epoch=E1, turn_id=turn_id)


def test_the_prompts_echo_begins_its_turn(capable: SessionCore) -> None:
    _sent(capable)
    assert capable.turn_state is PROMPT_SENT
    # Another user message's echo (a steer, one typed elsewhere) takes nothing up.
    assert capable.handle(_echo("someone-else")) == []
    assert capable.turn_state is PROMPT_SENT
    assert capable.handle(_echo()) == []
    assert capable.turn_state is RUNNING
    # Its echo again (Claude Code's `command_lifecycle` order aside) changes nothing.
    assert capable.handle(_echo()) == []
    assert capable.handle(said("Mine.")) == [FORWARD]
    assert capable.handle(result()) == [shown(T1), WITHDRAW, settled(T1)]


def test_own_work_before_the_echo_is_shown_and_leaves_the_prompt_waiting(
    capable: SessionCore, legacy: SessionCore
) -> None:
    for core in (capable, legacy):
        _sent(core)
        # Claude's own work: it goes busy, streams, says something, ends and goes idle, all
        # before it takes the prompt up. Its words are shown; the prompt still waits.
        assert core.handle(TurnWentBusy(epoch=E1)) == []
        assert core.handle(AnswerStreamStarted(epoch=E1, model=REAL)) == []
        assert core.handle(said("The build finished.")) == [FORWARD]
        assert core.handle(said("Subagent note.", top_level=False)) == [FORWARD]
        assert core.handle(result(origin_kind=OWN_WORK)) == [SHOWN_OWN, CLOSE]
        # The idle its work ends with is the previous turn's: no "ended without a result".
        assert core.handle(TurnWentIdle(epoch=E1)) == []
        assert core.turn_state is PROMPT_SENT
        assert core.turn.answered_text == ""
        # The prompt's own turn: its words, its answer.
        assert core.handle(_echo()) == []
        assert core.handle(said("The answer.")) == [FORWARD]
        assert core.turn.answered_text == "The answer."
        assert core.handle(result()) == [shown(T1), WITHDRAW, settled(T1)]
        assert core.turn_state is IDLE


def test_own_works_refusal_before_the_echo_is_not_the_prompts(capable: SessionCore) -> None:
    _sent(capable)
    own = said("No.", stop_reason="refusal", refusal_explanation="Own work's reason.")
    assert capable.handle(own) == [FORWARD]
    assert capable.turn.refusal_explanation is None
    capable.handle(_echo())
    capable.handle(said("Yes."))
    assert capable.handle(result(stop_reason="end_turn")) == [shown(T1), WITHDRAW, settled(T1)]


def test_a_failure_message_before_the_echo_is_a_failure_between_turns(
    capable: SessionCore, legacy: SessionCore
) -> None:
    message = said(OVERLOADED_TEXT, model=SYN, error="overloaded")
    _sent(capable)
    [published] = capable.handle(message)
    assert isinstance(published, PublishRecord)
    assert published.record.id.startswith(f"{capable.session_id}:session-error:")
    assert capable.turn_state is PROMPT_SENT
    _sent(legacy)
    assert legacy.handle(message) == [
        FORWARD_MASKED,
        LogNotice(message="a failure with no live turn"),
    ]
    assert legacy.turn_state is PROMPT_SENT
    # A login prompt before the echo is nothing, for either (Claude Code echoes a prompt
    # before it says the user is not signed in).
    for core in (capable, legacy):
        assert core.handle(said(LOGIN_TEXT, model=SYN)) == []
        assert core.turn_state is PROMPT_SENT
        # The prompt's own turn is untouched by it.
        core.handle(_echo())
        core.handle(said("Fine."))
        assert core.handle(result()) == [shown(T1), WITHDRAW, settled(T1)]


def test_a_retry_before_the_echo_is_the_prompts(capable: SessionCore) -> None:
    # The bundled CLI echoes a prompt when the API first answered its request, so the
    # request's retries come before the echo: they are the prompt's.
    _sent(capable)
    # A quiet one (a 401) is only its hint; the prompt still waits for its echo.
    assert capable.handle(retried(1, status=401, error="authentication_failed")) == []
    assert capable.turn_state is PROMPT_SENT
    [published] = capable.handle(retried(2, max_retries=3))
    assert isinstance(published, PublishRecord)
    assert published.record.id == f"{T1}:error"
    confirm(capable, published.record)
    assert capable.turn_state is TurnState.RETRYING
    assert capable.handle(_echo()) == []
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    effects = capable.handle(result(is_error=True, text=OVERLOADED_TEXT))
    [answer] = [e for e in effects if isinstance(e, SettlePrompt)]
    assert answer.record is not None and answer.record.id == f"{T1}:error"


def test_a_task_own_work_starts_before_the_echo_does_not_hold_the_prompt(
    capable: SessionCore,
) -> None:
    _sent(capable)
    started = BackgroundTaskStarted(epoch=E1, task_id="own", subagent=True, backgrounded=True)
    assert capable.handle(started) == []
    capable.handle(_echo())
    capable.handle(said("Done."))
    # Not held for the own work's subagent: the prompt's result answers it.
    assert capable.handle(result()) == [shown(T1), WITHDRAW, settled(T1)]


def test_a_prompt_never_echoed_is_answered_by_its_result(
    capable: SessionCore, legacy: SessionCore
) -> None:
    # A local command (`/context`): Claude Code writes its output before its echo, or, for
    # `/compact`, never echoes it. The output is shown; the result that is no own work
    # answers the prompt, once; a late echo is nothing.
    for core in (capable, legacy):
        _sent(core)
        assert core.handle(said("## Context Usage", model=SYN)) == [FORWARD_MASKED]
        assert core.handle(result(text="## Context Usage")) == [shown(T1), WITHDRAW, settled(T1)]
        assert core.handle(_echo()) == []
        assert core.turn_state is IDLE


def test_a_cancel_before_the_echo_answers_the_prompt_once(capable: SessionCore) -> None:
    _sent(capable)
    capable.handle(said("Own work."))
    effects = capable.handle(CancelRequested(now=1.0))
    # Taken back out of Claude Code's queue too (docs/decisions.md#prompt-ended-unstarted).
    assert effects == [WITHDRAW, WithdrawPrompt(turn_id=T1), InterruptClaude()]
    assert capable.turn_state is TurnState.CANCELLING
    # The interrupted own work's result is Claude's own; its idle ends the cancelled prompt.
    assert capable.handle(result(origin_kind=OWN_WORK)) == [SHOWN_OWN, CLOSE]
    assert capable.handle(TurnWentIdle(epoch=E1)) == [WITHDRAW, settled(T1, StopReason.CANCELLED)]
    # What Claude says of it afterwards answers nothing again.
    assert capable.handle(_echo()) == []
    assert capable.handle(said("Late.")) == [FORWARD]
    assert capable.handle(result()) == [SHOWN_OWN, CLOSE]


def test_claude_dying_before_the_echo_answers_the_prompt_once(
    capable: SessionCore, legacy: SessionCore
) -> None:
    for core in (capable, legacy):
        _sent(core)
        core.handle(said("Own work."))
        effects = core.handle(TransportLost(epoch=E1))
        answers = [e for e in effects if isinstance(e, SettlePrompt | RejectPrompt)]
        assert [a.turn_id for a in answers] == [T1]
        assert core.turn_state is IDLE
        assert core.handle(StreamEnded(epoch=E1)) == [
            LogNotice(message="the runtime's loss was already reported")
        ]


def test_a_prompt_sent_while_one_waits_for_its_echo_goes_on_after_it(
    capable: SessionCore,
) -> None:
    # A second prompt while the first is written but not taken up joins Claude's queue; the
    # first's echo begins the first's turn, the second's echo hands the first off.
    _sent(capable)
    capable.handle(said("Own work."))
    capable.handle(PromptReceived(turn_id=T2))
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(_echo()) == []
    assert capable.turn_state is RUNNING
    capable.handle(said("First."))
    assert capable.handle(result()) == [shown(T1), WITHDRAW, settled(T1)]
    capable.handle(_echo(T2))
    capable.handle(said("Second."))
    assert capable.handle(result()) == [shown(T2), WITHDRAW, settled(T2)]


def _started(turn_id: str = T1) -> PromptStarted:
    return PromptStarted(epoch=E1, turn_id=turn_id)


def test_claude_code_starting_the_prompt_begins_its_turn(capable: SessionCore) -> None:
    # The bundled CLI says it started a prompt (`command_lifecycle`) before anything it does
    # for it: a local command's output comes before its echo, and is the prompt's.
    _sent(capable)
    assert capable.handle(_started("someone-else")) == []
    assert capable.turn_state is PROMPT_SENT
    assert capable.handle(_started()) == []
    assert capable.turn_state is RUNNING
    assert capable.handle(said("## Context Usage", model=SYN)) == [FORWARD_MASKED]
    assert capable.turn.answered_text == "## Context Usage"
    assert capable.handle(_echo()) == []
    assert capable.handle(_started()) == []
    assert capable.handle(result(text="## Context Usage")) == [shown(T1), WITHDRAW, settled(T1)]
    # Between turns it is nothing.
    assert capable.handle(_started(T2)) == []
    assert capable.turn_state is IDLE


def test_a_pushed_prompt_hands_off_at_its_echo_not_its_start(capable: SessionCore) -> None:
    _sent(capable)
    capable.handle(_echo())
    capable.handle(said("Working."))
    capable.handle(PromptReceived(turn_id=T2))
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(_started(T2)) == []
    assert (capable.turn_state, capable.turn.turn_id) == (RUNNING, T1)
    [handed_off, taken_up] = capable.handle(_echo(T2))
    assert isinstance(handed_off, SettlePrompt) and handed_off.turn_id == T1
    assert taken_up == TurnTakenUp(turn_id=T2)
    assert capable.turn.turn_id == T2


# --- a stall, a retry or a result before Claude Code takes the prompt up ----------------------


def _queued(turn_id: str = T1) -> PromptQueued:
    return PromptQueued(epoch=E1, turn_id=turn_id)


def test_a_stall_before_the_echo_leaves_the_prompt_waiting(
    capable: SessionCore, legacy: SessionCore
) -> None:
    # Claude's own work stalls while the prompt waits: the watchdog's warning (or, for a client
    # that takes no warnings, its log line) leaves the prompt waiting for its start, so what
    # Claude says and its idle stay its own work's, and the prompt's own turn answers it.
    for core in (capable, legacy):
        _sent(core)
        core.handle(said("Own work."))
        effects = core.handle(ClaudeSilent(epoch=E1, waited_seconds=60))
        if core is capable:
            [published] = effects
            assert isinstance(published, PublishRecord)
            assert published.record.id == f"{T1}:error"
            confirm(core, published.record)
        else:
            assert effects == [LogNotice(message="Claude has been silent for 60 seconds")]
        assert core.turn_state is PROMPT_SENT
        assert core.handle(said("More own work.")) == [FORWARD]
        assert core.handle(TurnWentIdle(epoch=E1)) == []
        assert core.turn_state is PROMPT_SENT
        assert core.handle(_started()) == []
        core.handle(said("The answer."))
        assert core.turn.answered_text == "The answer."
        answers = [e for e in core.handle(result()) if isinstance(e, SettlePrompt)]
        assert answers == [settled(T1)]


def test_a_stall_warning_before_the_start_escalates_when_the_turn_fails(
    capable: SessionCore,
) -> None:
    _sent(capable)
    [warned] = capable.handle(ClaudeSilent(epoch=E1, waited_seconds=60))
    assert isinstance(warned, PublishRecord)
    confirm(capable, warned.record)
    # Taken up with its warning out: the turn's error revises that warning's entry.
    capable.handle(_started())
    assert capable.turn_state is TurnState.RETRYING
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    effects = capable.handle(result(is_error=True, text=OVERLOADED_TEXT))
    [answer] = [e for e in effects if isinstance(e, SettlePrompt)]
    assert answer.record is not None and answer.record.id == f"{T1}:error"
    assert answer.record.revision == warned.record.revision + 1


def test_a_retry_before_the_start_of_a_queued_prompt_is_own_work(capable: SessionCore) -> None:
    # The bundled CLI says it queued the prompt, then starts it before anything it does for
    # it: a retry before that start is of Claude's own work, a warning between turns.
    _sent(capable)
    assert capable.handle(_queued("someone-else")) == []
    assert capable.handle(_queued()) == []
    assert capable.handle(retried(1, status=401, error="authentication_failed")) == []
    [published] = capable.handle(retried(2, max_retries=3))
    assert isinstance(published, PublishRecord)
    assert published.record.id.startswith(f"{capable.session_id}:session-error:")
    assert capable.turn_state is PROMPT_SENT
    # Its result and idle are its own; the prompt waits for its start.
    assert capable.handle(result()) == [SHOWN_OWN, CLOSE]
    assert capable.handle(TurnWentIdle(epoch=E1)) == []
    assert capable.turn_state is PROMPT_SENT
    # After the start the request's retries are the prompt's (the echo comes after them).
    capable.handle(_started())
    [warned] = capable.handle(retried(1, max_retries=3))
    assert isinstance(warned, PublishRecord) and warned.record.id == f"{T1}:error"
    confirm(capable, warned.record)
    capable.handle(_echo())
    capable.handle(said("The answer."))
    answers = [e for e in capable.handle(result()) if isinstance(e, SettlePrompt)]
    assert answers == [settled(T1)]


def test_a_result_before_the_start_of_a_queued_prompt_is_own_work(
    capable: SessionCore, legacy: SessionCore
) -> None:
    for core in (capable, legacy):
        _sent(core)
        core.handle(_queued())
        core.handle(said("Own work, no origin."))
        assert core.handle(result()) == [SHOWN_OWN, CLOSE]
        assert core.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [SHOWN_OWN, CLOSE]
        assert core.turn_state is PROMPT_SENT
        # One that names the prompt among the messages its cycle took up is the prompt's.
        named = replace(result(origin_kind=OWN_WORK), prompts=frozenset({T1}))
        assert [e for e in core.handle(named) if isinstance(e, SettlePrompt)] == [settled(T1)]


def test_a_cancelled_prompts_late_result_does_not_answer_the_next(capable: SessionCore) -> None:
    _sent(capable)
    capable.handle(_echo())
    capable.handle(CancelRequested(now=1.0))
    assert capable.handle(TurnWentIdle(epoch=E1)) == [WITHDRAW, settled(T1, StopReason.CANCELLED)]
    _sent(capable, T2)
    late = replace(result(), prompts=frozenset({T1}))
    assert capable.handle(late) == [SHOWN_OWN, CLOSE]
    assert capable.handle(replace(late, is_error=True, result=OVERLOADED_TEXT)) == [
        SHOWN_OWN,
        CLOSE,
    ]
    assert capable.turn_state is PROMPT_SENT
    capable.handle(_echo(T2))
    capable.handle(said("Second."))
    assert capable.handle(result()) == [shown(T2), WITHDRAW, settled(T2)]


def test_a_scheduled_fire_does_not_answer_a_waiting_prompt(capable: SessionCore) -> None:
    # A `/loop` or scheduled fire's cycle names its own message, not the waiting prompt.
    _sent(capable)
    capable.handle(said("Loop tick."))
    fire = replace(result(), prompts=frozenset({"loop-fire"}))
    assert capable.handle(fire) == [SHOWN_OWN, CLOSE]
    assert capable.turn_state is PROMPT_SENT
    # A result that names no message at all still answers a prompt never echoed (the fallback).
    assert capable.handle(result()) == [shown(T1), WITHDRAW, settled(T1)]
