"""A turn Claude runs on its own that the client stopped (JetBrains AIR's Stop on its Async
Tasks entry, docs/decisions.md#stopped-own-turn): the core decides whether Claude is interrupted
(only between turns, with no prompt on its way to Claude); the interrupt's error result ends
Claude's own work and is no failure; the stop is spent by whatever ends that work."""

from __future__ import annotations

from collections.abc import Sequence

from fsm import (
    CloseOpenCalls,
    InterruptOwnTurn,
    OwnTurnStopFailed,
    OwnTurnStopped,
    PromptEchoed,
    PromptReceived,
    PromptSent,
    PublishRecord,
    SessionCore,
    SettlePrompt,
    StreamEnded,
    TurnWentIdle,
)
from fsm.turn import TurnState
from tests.support.session_narrative import CLOSE, E1, SHOWN_OWN, T1, T2, result

INTERRUPTED = result(
    subtype="error_during_execution",
    is_error=True,
    errors=("Request interrupted by user",),
)
# Claude Code's diagnostic for a cycle the user's own answer stopped (`was_stopped_by_the_user`).
USER_STOPPED = result(
    subtype="error_during_execution",
    is_error=True,
    errors=("[ede_diagnostic] result_type=user stop_reason=tool_use",),
)


def _records(effects: Sequence[object]) -> list[object]:
    return [e for e in effects if isinstance(e, PublishRecord)]


def test_an_error_result_between_turns_is_still_a_record_without_a_stop(
    capable: SessionCore,
) -> None:
    effects = capable.handle(INTERRUPTED)
    assert effects[:2] == [SHOWN_OWN, CLOSE] and _records(effects)


def test_the_stopped_turns_result_only_closes_its_cards_once(capable: SessionCore) -> None:
    assert capable.handle(OwnTurnStopped()) == [InterruptOwnTurn()]
    assert capable.handle(INTERRUPTED) == [SHOWN_OWN, CLOSE]
    # The stop is spent: a later error of Claude's own work is reported again.
    assert _records(capable.handle(INTERRUPTED))


def test_a_stop_with_a_prompt_live_changes_nothing(capable: SessionCore) -> None:
    capable.handle(PromptReceived(turn_id=T1))
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=E1, turn_id=T1))
    assert capable.handle(OwnTurnStopped()) == []
    effects = capable.handle(INTERRUPTED)
    assert capable.turn_state is TurnState.IDLE
    assert any(isinstance(e, SettlePrompt) for e in effects)
    assert not any(isinstance(e, CloseOpenCalls) for e in effects)


def test_a_prompt_on_its_way_to_claude_refuses_the_stop(capable: SessionCore) -> None:
    # The prompt is dispatched, not yet sent: Claude would fold it into its own turn, and the
    # interrupt would drop it. No interrupt, and the stop is not noted.
    capable.handle(PromptReceived(turn_id=T1))
    assert capable.handle(OwnTurnStopped()) == []
    capable.handle(PromptReceived(turn_id=T2))  # queued behind it: refused all the same
    assert capable.handle(OwnTurnStopped()) == []
    assert capable.turn_state is TurnState.IDLE and not capable.turn.own_stop_pending


def test_a_refused_stop_leaves_the_next_error_between_turns_a_record(
    capable: SessionCore,
) -> None:
    capable.handle(PromptReceived(turn_id=T1))
    capable.handle(OwnTurnStopped())
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=E1, turn_id=T1))
    capable.handle(result())
    assert capable.turn_state is TurnState.IDLE
    assert _records(capable.handle(INTERRUPTED))


def test_a_user_stopped_result_spends_the_stop(capable: SessionCore) -> None:
    capable.handle(OwnTurnStopped())
    assert capable.handle(USER_STOPPED) == [SHOWN_OWN, CLOSE]
    assert _records(capable.handle(INTERRUPTED))


def test_claudes_idle_with_no_result_spends_the_stop(capable: SessionCore) -> None:
    # Claude's work was ending already: its idle says no result of it will come.
    capable.handle(OwnTurnStopped())
    assert capable.handle(TurnWentIdle(epoch=E1)) == []
    assert _records(capable.handle(INTERRUPTED))


def test_a_failed_interrupt_spends_the_stop(capable: SessionCore) -> None:
    capable.handle(OwnTurnStopped())
    assert capable.handle(OwnTurnStopFailed()) == []
    assert _records(capable.handle(INTERRUPTED))


def test_claudes_end_spends_the_stop(capable: SessionCore) -> None:
    capable.handle(OwnTurnStopped())
    capable.handle(StreamEnded(epoch=E1))
    assert not capable.turn.own_stop_pending


def test_a_turn_that_opens_forgets_a_stop_whose_result_never_came(capable: SessionCore) -> None:
    capable.handle(OwnTurnStopped())
    capable.handle(PromptReceived(turn_id=T2))
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=E1, turn_id=T2))
    capable.handle(result())
    assert capable.turn_state is TurnState.IDLE
    assert _records(capable.handle(INTERRUPTED))
