"""docs/decisions.md#prompt-ended-unstarted: Claude Code's word that a prompt ended before it
started it answers that prompt, once.

The bundled CLI reports each user message's fate (`command_lifecycle`): `queued`, `started`, then
one terminal state, `completed`, `cancelled`, `discarded` or `refused`. A message it never
started it will not run, and no result of it comes: without this word, the prompt waited until
the client cancelled it. Withdrawn (`cancelled`) it is answered `cancelled`; set aside
(`completed`) or declined (`refused`) it fails; its session's end (`discarded`) is the runtime's,
whose end answers it. Once Claude Code started or echoed a prompt, its result answers it and
the terminal word is nothing. None of these answers is the session's view's (`ran=False`).
"""

from __future__ import annotations

import pytest

from fsm import (
    Blame,
    CancelRequested,
    InternalFaultOccurred,
    InterruptClaude,
    PromptEchoed,
    PromptEnded,
    PromptFate,
    PromptQueued,
    PromptReceived,
    PromptSent,
    PromptStarted,
    RejectPrompt,
    SessionCore,
    SettlePrompt,
    StopReason,
    StreamEnded,
    WithdrawPrompt,
)
from fsm.turn import NOT_RUN_ERROR_KIND, TURN_NO_RESULT_TITLE, TurnState, not_run_title
from tests.support.session_narrative import (
    CLOSE,
    E1,
    SHOWN_OWN,
    T1,
    T2,
    WITHDRAW,
    result,
    said,
    settled,
    shown,
)

PROMPT_SENT, RUNNING, IDLE = TurnState.PROMPT_SENT, TurnState.RUNNING, TurnState.IDLE
CANCELLED_UNRUN = SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id=T1, ran=False)


def _ended(fate: PromptFate, turn_id: str = T1) -> PromptEnded:
    return PromptEnded(epoch=E1, turn_id=turn_id, fate=fate)


def _queued_behind_own_work(core: SessionCore, turn_id: str = T1) -> None:
    """The prompt is written and Claude Code said it queued it; its own work is running."""
    core.handle(PromptReceived(turn_id=turn_id))
    core.handle(PromptSent(turn_id=turn_id))
    core.handle(PromptQueued(epoch=E1, turn_id=turn_id))


def _running(core: SessionCore) -> None:
    core.handle(PromptReceived(turn_id=T1))
    core.handle(PromptSent(turn_id=T1))
    core.handle(PromptStarted(epoch=E1, turn_id=T1))
    core.handle(PromptEchoed(epoch=E1, turn_id=T1))


def test_a_prompt_withdrawn_before_its_start_is_answered_cancelled(
    capable: SessionCore, legacy: SessionCore
) -> None:
    for core in (capable, legacy):
        _queued_behind_own_work(core)
        # Another message's end (Claude Code's own work, a prompt answered earlier) is nothing.
        assert core.handle(_ended(PromptFate.CANCELLED, "someone-else")) == []
        assert core.turn_state is PROMPT_SENT
        assert core.handle(_ended(PromptFate.CANCELLED)) == [WITHDRAW, CANCELLED_UNRUN]
        assert core.turn_state is IDLE
        # Claude's own work goes on; its result is no prompt's.
        assert core.handle(result()) == [SHOWN_OWN, CLOSE]


@pytest.mark.parametrize("fate", [PromptFate.COMPLETED, PromptFate.REFUSED])
def test_a_prompt_set_aside_or_declined_before_its_start_fails(fate: PromptFate) -> None:
    capable = SessionCore(session_id="s", epoch=E1, capable=True)
    _queued_behind_own_work(capable)
    [withdraw, answer] = capable.handle(_ended(fate))
    assert withdraw == WITHDRAW
    assert isinstance(answer, SettlePrompt) and answer.turn_id == T1 and not answer.ran
    assert answer.record is not None
    assert answer.record.id == f"{T1}:error"
    assert answer.record.title == not_run_title(fate)
    assert capable.turn_state is IDLE
    capable.close()
    # A legacy client: the prompt's JSON-RPC error, with the same words.
    legacy = SessionCore(session_id="s", epoch=E1, capable=False)
    _queued_behind_own_work(legacy)
    assert legacy.handle(_ended(fate)) == [
        WITHDRAW,
        RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {not_run_title(fate)}",
            error_kind=NOT_RUN_ERROR_KIND,
            turn_id=T1,
            ran=False,
        ),
    ]
    legacy.close()


def test_a_prompt_claude_code_could_not_read_fails_at_once(legacy: SessionCore) -> None:
    # The bundled CLI answers a user frame it cannot read with `completed` alone: no `queued`,
    # no start, no echo, no result (probed).
    legacy.handle(PromptReceived(turn_id=T1))
    legacy.handle(PromptSent(turn_id=T1))
    [_, answer] = legacy.handle(_ended(PromptFate.COMPLETED))
    assert isinstance(answer, RejectPrompt) and answer.turn_id == T1
    assert legacy.turn_state is IDLE


def test_a_queued_prompt_goes_out_when_the_one_before_it_was_not_run(
    legacy: SessionCore,
) -> None:
    # Prompt queueing off: the second prompt waits in the core's queue, and goes to Claude
    # once the first is answered.
    core = SessionCore(session_id="s", epoch=E1, capable=False, prompt_queueing=False)
    _queued_behind_own_work(core)
    assert core.handle(PromptReceived(turn_id=T2)) == []
    effects = core.handle(_ended(PromptFate.CANCELLED))
    assert effects[:2] == [WITHDRAW, CANCELLED_UNRUN]
    assert [type(e).__name__ for e in effects[2:]] == ["SendPrompt"]
    core.close()


def test_a_discarded_prompt_is_answered_by_the_runtimes_end(capable: SessionCore) -> None:
    # Claude Code's session ended with the prompt still queued: its process ends next, and that
    # end answers the prompt as any prompt in flight when Claude stops.
    _queued_behind_own_work(capable)
    assert capable.handle(_ended(PromptFate.DISCARDED)) == []
    assert capable.turn_state is PROMPT_SENT
    effects = capable.handle(StreamEnded(epoch=E1))
    [answer] = [e for e in effects if isinstance(e, SettlePrompt)]
    assert answer.record is not None and answer.record.title == TURN_NO_RESULT_TITLE


@pytest.mark.parametrize("fate", list(PromptFate))
def test_after_its_start_the_result_answers_the_prompt_not_its_end(
    capable: SessionCore, fate: PromptFate
) -> None:
    _running(capable)
    # A prompt folded into a running turn: `completed` before that turn's result (probed).
    assert capable.handle(_ended(fate)) == []
    assert capable.turn_state is RUNNING
    capable.handle(said("Done."))
    assert capable.handle(result()) == [shown(T1), WITHDRAW, settled(T1)]
    # After its answer, its end (a fresh turn's comes after the result) is nothing.
    assert capable.handle(_ended(fate)) == []


def test_an_echo_without_a_start_also_makes_the_result_the_answer(capable: SessionCore) -> None:
    capable.handle(PromptReceived(turn_id=T1))
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=E1, turn_id=T1))
    assert capable.handle(_ended(PromptFate.COMPLETED)) == []
    assert capable.turn_state is RUNNING


def test_a_cancelled_prompt_claude_code_then_withdraws_is_answered_then(
    capable: SessionCore,
) -> None:
    # The client cancels while the prompt waits behind Claude's own work: the prompt is taken
    # back out of Claude Code's queue (an interrupt leaves it there, and Claude Code would run
    # it next), and the interrupt is for that work. Claude Code's word that the prompt ended
    # before it started answers it at once.
    _queued_behind_own_work(capable)
    assert capable.handle(CancelRequested(now=1.0)) == [
        WITHDRAW,
        WithdrawPrompt(turn_id=T1),
        InterruptClaude(),
    ]
    assert capable.handle(_ended(PromptFate.CANCELLED, "own-work")) == []
    assert capable.turn_state is TurnState.CANCELLING
    assert capable.handle(_ended(PromptFate.CANCELLED)) == [WITHDRAW, CANCELLED_UNRUN]
    assert capable.turn_state is IDLE
    assert capable.next_deadline() is None  # no grace left running for it


def test_a_cancelled_prompt_claude_code_started_waits_for_its_result(
    capable: SessionCore,
) -> None:
    # The interrupt stopped Claude's own work and Claude Code then started the prompt after
    # all: its end is its turn's, and the interrupted turn's result answers it.
    _queued_behind_own_work(capable)
    capable.handle(CancelRequested(now=1.0))
    assert capable.handle(PromptStarted(epoch=E1, turn_id=T1)) == []
    assert capable.handle(_ended(PromptFate.COMPLETED)) == []
    assert capable.turn_state is TurnState.CANCELLING
    effects = capable.handle(result(is_error=True, subtype="error_during_execution"))
    assert SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id=T1) in effects


def test_a_pushed_prompt_claude_code_withdrew_is_answered_cancelled(
    capable: SessionCore,
) -> None:
    _running(capable)
    capable.handle(PromptReceived(turn_id=T2))  # pushed to Claude Code (prompt queueing)
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(_ended(PromptFate.CANCELLED, T2)) == [
        SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id=T2, ran=False)
    ]
    # The live turn goes on, and a cancel now has no pushed prompt left to withdraw.
    assert capable.turn_state is RUNNING
    assert capable.handle(CancelRequested(now=1.0)) == [WITHDRAW, InterruptClaude()]
    assert WithdrawPrompt(turn_id=T2) not in capable.handle(CancelRequested(now=2.0))


@pytest.mark.parametrize("fate", [PromptFate.COMPLETED, PromptFate.REFUSED])
def test_a_pushed_prompt_set_aside_fails_on_its_own(capable: SessionCore, fate: PromptFate) -> None:
    _running(capable)
    capable.handle(PromptReceived(turn_id=T2))
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(_ended(fate, T2)) == [
        RejectPrompt(
            blame=Blame.INTERNAL,
            message=f"Internal error: {not_run_title(fate)}",
            error_kind=NOT_RUN_ERROR_KIND,
            turn_id=T2,
            ran=False,
        )
    ]
    # The live turn is untouched: its own result answers it.
    assert (capable.turn_state, capable.turn.turn_id) == (RUNNING, T1)
    assert capable.handle(result()) == [shown(T1), WITHDRAW, settled(T1)]


def test_a_pushed_prompt_ended_between_turns_is_answered_too(legacy: SessionCore) -> None:
    _running(legacy)
    legacy.handle(PromptReceived(turn_id=T2))
    legacy.handle(PromptSent(turn_id=T2))
    legacy.handle(result())
    assert legacy.turn_state is IDLE
    assert legacy.handle(_ended(PromptFate.CANCELLED, T2)) == [
        SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id=T2, ran=False)
    ]
    # Its echo, were one to come, takes nothing up.
    assert legacy.handle(PromptEchoed(epoch=E1, turn_id=T2)) == []


def test_a_discarded_pushed_prompt_goes_to_the_fresh_process(legacy: SessionCore) -> None:
    _running(legacy)
    legacy.handle(PromptReceived(turn_id=T2))
    legacy.handle(PromptSent(turn_id=T2))
    assert legacy.handle(_ended(PromptFate.DISCARDED, T2)) == []
    assert legacy.turn.pushed == [T2]
    legacy.handle(StreamEnded(epoch=E1))
    assert legacy.turn.queued == [] and legacy.turn.dispatching == T2


def test_a_broken_session_takes_no_prompt_end(capable: SessionCore) -> None:
    _queued_behind_own_work(capable)
    capable.handle(InternalFaultOccurred())
    assert capable.handle(_ended(PromptFate.COMPLETED)) == []
