"""The turn table's hold (docs/decisions.md#turns-that-wait): a turn whose subagent went to the
background, or that the client steered, is answered once, when its work is done."""

from __future__ import annotations

from dataclasses import replace

from fsm.effects import (
    AnswerSteer,
    InterruptClaude,
    SendPrompt,
    SettlePrompt,
    StopReason,
    TurnTakenUp,
)
from fsm.events import (
    BackgroundTaskSettled,
    BackgroundTasksListed,
    BackgroundTaskStarted,
    CancelRequested,
    PromptEchoed,
    PromptReceived,
    PromptSent,
    SteerReceived,
    TurnWentIdle,
)
from fsm.session import SessionCore
from tests.support.session_narrative import (
    CLOSE,
    E1,
    END_TURN,
    FORWARD,
    SHOWN_OWN,
    T1,
    WITHDRAW,
    result,
    said,
    settled,
    shown,
)

STARTED = BackgroundTaskStarted(epoch=E1, task_id="a1", subagent=True)
SETTLED = BackgroundTaskSettled(epoch=E1, task_id="a1")
IDLE = TurnWentIdle(epoch=E1)


def test_a_turn_is_answered_after_its_background_subagents_follow_up(
    capable: SessionCore,
) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(said("Auditing in the background.")) == [FORWARD]
    assert capable.handle(STARTED) == []
    assert capable.handle(result()) == [shown(T1)]  # its own result: held, not answered
    assert capable.handle(IDLE) == []  # idle while the subagent runs: still held
    assert capable.handle(BackgroundTaskSettled(epoch=E1, task_id="unknown")) == []
    assert capable.handle(SETTLED) == []
    assert capable.handle(said("The audit found two issues.")) == [FORWARD]
    assert capable.handle(result(origin_kind="task-notification")) == [
        SHOWN_OWN,
        CLOSE,
        WITHDRAW,
        END_TURN,
    ]
    assert capable.turn.state.name == "IDLE"


BACKGROUNDED = BackgroundTaskStarted(epoch=E1, task_id="a1", subagent=True, backgrounded=True)


def test_a_background_subagent_that_ends_before_the_result_still_gets_its_follow_up(
    capable: SessionCore,
) -> None:
    # What the bundled CLI does when the subagent is quick: it ends (task_updated and
    # task_notification) before the turn's own result, and Claude Code runs the follow-up it
    # woke for right after that result, before its idle.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Auditing in the background."))
    assert capable.handle(BACKGROUNDED) == []
    assert capable.handle(SETTLED) == []
    assert capable.handle(SETTLED) == []  # the notification after the final task_updated
    assert capable.handle(result()) == [shown(T1)]  # held for the follow-up
    assert capable.handle(said("The audit found two issues.")) == [FORWARD]
    assert capable.handle(result(origin_kind="task-notification")) == [
        SHOWN_OWN,
        CLOSE,
        WITHDRAW,
        END_TURN,
    ]
    assert capable.handle(IDLE) == []


def test_a_follow_up_owed_that_never_comes_ends_at_the_idle(capable: SessionCore) -> None:
    # Claude Code took the notification up inside the turn: nothing follows the result but
    # its idle, which answers the turn.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Auditing in the background."))
    capable.handle(BACKGROUNDED)
    capable.handle(SETTLED)
    assert capable.handle(result()) == [shown(T1)]
    assert capable.handle(IDLE) == [WITHDRAW, END_TURN]


def test_a_background_subagent_the_level_drops_before_the_result_owes_its_follow_up(
    capable: SessionCore,
) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Auditing in the background."))
    capable.handle(BACKGROUNDED)
    assert capable.handle(BackgroundTasksListed(epoch=E1, task_ids=frozenset())) == []
    assert capable.handle(result()) == [shown(T1)]
    assert capable.handle(said("The audit found two issues.")) == [FORWARD]
    assert capable.handle(result(origin_kind="task-notification")) == [
        SHOWN_OWN,
        CLOSE,
        WITHDRAW,
        END_TURN,
    ]


def test_a_foreground_subagent_or_a_command_holds_nothing(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Working."))
    capable.handle(BackgroundTaskStarted(epoch=E1, task_id="b1", subagent=False))
    capable.handle(STARTED)
    capable.handle(SETTLED)  # a foreground subagent ends before the turn's result
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN]


MOVED = BackgroundTaskStarted(epoch=E1, task_id="a1", subagent=False, backgrounded=True, moved=True)


def test_a_foreground_subagent_moved_to_the_background_owes_its_follow_up(
    capable: SessionCore,
) -> None:
    # A steer (or the user) moved the running subagent to the background (`task_updated` with
    # `is_backgrounded`): like one started there, its end before the turn's result still owes
    # Claude's follow-up (docs/decisions.md#turns-that-wait).
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Auditing."))
    assert capable.handle(STARTED) == []
    assert capable.handle(MOVED) == []
    assert capable.handle(SETTLED) == []
    assert capable.handle(result()) == [shown(T1)]  # held for the follow-up
    assert capable.handle(said("The audit found two issues.")) == [FORWARD]
    assert capable.handle(result(origin_kind="task-notification")) == [
        SHOWN_OWN,
        CLOSE,
        WITHDRAW,
        END_TURN,
    ]


def test_a_task_moved_that_is_no_subagent_of_the_turn_holds_nothing(
    capable: SessionCore,
) -> None:
    # A command moved to the background, or a task the turn never started.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Building."))
    capable.handle(BackgroundTaskStarted(epoch=E1, task_id="b1", subagent=False))
    assert capable.handle(replace(MOVED, task_id="b1")) == []
    assert capable.handle(replace(MOVED, task_id="unknown")) == []
    capable.handle(BackgroundTaskSettled(epoch=E1, task_id="b1"))
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN]


def test_cancel_while_held_is_answered_cancelled_once(legacy: SessionCore) -> None:
    legacy.handle(PromptSent(turn_id=T1))
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    legacy.handle(said("Auditing."))
    legacy.handle(STARTED)
    assert legacy.handle(result()) == [shown(T1)]
    effects = legacy.handle(CancelRequested(now=1.0))
    assert InterruptClaude() in effects
    interrupted = result(is_error=True, subtype="error_during_execution")
    assert legacy.handle(interrupted) == [shown(T1), WITHDRAW, settled(T1, StopReason.CANCELLED)]
    assert legacy.handle(IDLE) == []


def test_a_steer_joins_the_turn_and_the_idle_after_it_answers(capable: SessionCore) -> None:
    assert capable.handle(SteerReceived()) == [AnswerSteer(outcome="startedNewTurn")]
    assert capable.handle(SteerReceived(prompt_required_when_idle=True)) == [
        AnswerSteer(outcome="promptRequired")
    ]
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Formatting."))
    assert capable.handle(SteerReceived()) == [AnswerSteer(outcome="injected", priority="now")]
    assert capable.handle(SteerReceived(question_open=True)) == [
        AnswerSteer(outcome="injected", priority="later")
    ]
    assert capable.handle(result()) == [
        shown(T1)
    ]  # the interrupted cycle's: the steered one follows
    capable.handle(said("Tabs it is."))
    assert capable.handle(result()) == [shown(T1)]
    assert capable.handle(IDLE) == [WITHDRAW, END_TURN]
    # Racing the turn's end: with no turn left, the steer is a prompt of its own.
    assert capable.handle(SteerReceived()) == [AnswerSteer(outcome="startedNewTurn")]


def test_a_subagent_whose_end_was_never_said_is_dropped_by_the_level(
    capable: SessionCore,
) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Auditing."))
    capable.handle(STARTED)
    assert capable.handle(result()) == [shown(T1)]
    # A level listing other tasks only: "a1" ended without its notification.
    assert capable.handle(BackgroundTasksListed(epoch=E1, task_ids=frozenset({"b9"}))) == []
    assert capable.handle(IDLE) == [WITHDRAW, END_TURN]


def test_a_client_with_background_subagents_is_answered_at_the_result() -> None:
    # AIR's `backgroundSubagents`: the turn ends at its own result though its subagent runs;
    # the subagent's follow-up comes between turns, Claude's own work, answering nothing.
    core = SessionCore(session_id="s", epoch=E1, capable=True, background_subagents=True)
    try:
        core.handle(PromptSent(turn_id=T1))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
        core.handle(said("Auditing in the background."))
        assert core.handle(STARTED) == []
        assert core.handle(result()) == [shown(T1), WITHDRAW, END_TURN]
        assert core.turn.state.name == "IDLE"
        assert core.handle(IDLE) == []
        assert core.handle(SETTLED) == []
        assert core.handle(said("The audit found two issues.")) == [FORWARD]
        assert core.handle(result(origin_kind="task-notification")) == [SHOWN_OWN, CLOSE]
        # One that ended before the result owes nothing to a turn answered at its result.
        core.handle(PromptSent(turn_id="t1b"))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id="t1b"))
        core.handle(said("Auditing again."))
        core.handle(BACKGROUNDED)
        core.handle(SETTLED)
        assert core.handle(result()) == [shown("t1b"), WITHDRAW, settled("t1b")]
        # A steered turn still waits for its steered cycle: the declaration names subagents.
        core.handle(PromptSent(turn_id="t2"))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id="t2"))
        core.handle(said("Formatting."))
        core.handle(STARTED)
        assert core.handle(SteerReceived()) == [AnswerSteer(outcome="injected", priority="now")]
        assert core.handle(result()) == [shown("t2")]
        core.handle(said("Tabs it is."))
        assert core.handle(IDLE) == [WITHDRAW, settled("t2")]
    finally:
        core.close()


def test_a_prompt_claude_folds_into_its_own_work_is_answered_by_that_works_result(
    capable: SessionCore,
) -> None:
    # Between turns Claude follows up on a task; the user's prompt, sent meanwhile, is taken
    # up inside that cycle, whose result (a task notification's) names it: that result is
    # the prompt's answer, not Claude's own work (the reference's `answersPendingPrompt`).
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Done."))
    capable.handle(result())
    capable.handle(said("Following up on the audit."))
    capable.handle(PromptSent(turn_id="t2"))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id="t2"))
    capable.handle(said("And here is your answer."))
    folded = replace(result(origin_kind="task-notification"), prompts=frozenset({"t2", "n1"}))
    assert capable.handle(folded) == [shown("t2"), WITHDRAW, settled("t2")]
    assert capable.handle(IDLE) == []
    # One that does not name the live prompt is still Claude's own.
    capable.handle(PromptSent(turn_id="t3"))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id="t3"))
    capable.handle(said("Working."))
    own = replace(result(origin_kind="task-notification"), prompts=frozenset({"n2"}))
    assert capable.handle(own) == [SHOWN_OWN, CLOSE]
    assert capable.handle(result()) == [shown("t3"), WITHDRAW, settled("t3")]


def test_a_turn_held_for_an_owed_follow_up_hands_off_to_the_next_prompt(
    capable: SessionCore,
) -> None:
    # The user moves on while the turn waits for the follow-up: the next prompt goes to
    # Claude at once, and its echo answers the held turn; the follow-up's result is then
    # Claude's own work, and the new prompt's own result answers it.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Auditing in the background."))
    capable.handle(BACKGROUNDED)
    capable.handle(SETTLED)
    assert capable.handle(result()) == [shown(T1)]
    pushed = capable.handle(PromptReceived(turn_id="t2"))
    assert pushed == [SendPrompt(turn_id="t2", pushed=True)]
    capable.handle(PromptSent(turn_id="t2"))
    handed_off = SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=T1, handed_off=True)
    taken = capable.handle(PromptEchoed(epoch=E1, turn_id="t2"))
    assert taken == [handed_off, TurnTakenUp(turn_id="t2")]
    capable.handle(said("The audit found two issues."))
    assert capable.handle(result(origin_kind="task-notification")) == [SHOWN_OWN, CLOSE]
    capable.handle(said("And the lint is clean."))
    assert capable.handle(result()) == [shown("t2"), WITHDRAW, settled("t2")]
