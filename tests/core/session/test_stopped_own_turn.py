"""A turn Claude runs on its own that the client stopped (JetBrains AIR's Stop on its Async
Tasks entry, docs/decisions.md#stopped-own-turn): the interrupt's error result ends Claude's
own work and is no failure; only that one result, and only between turns."""

from __future__ import annotations

from collections.abc import Sequence

from fsm import (
    CloseOpenCalls,
    OwnTurnStopped,
    PromptEchoed,
    PromptReceived,
    PromptSent,
    PublishRecord,
    SessionCore,
    SettlePrompt,
)
from fsm.turn import TurnState
from tests.support.session_narrative import CLOSE, E1, SHOWN_OWN, T1, T2, result

INTERRUPTED = result(
    subtype="error_during_execution",
    is_error=True,
    errors=("Request interrupted by user",),
)


def _records(effects: Sequence[object]) -> list[object]:
    return [e for e in effects if isinstance(e, PublishRecord)]


def test_an_error_result_between_turns_is_still_a_record_without_a_stop(
    capable: SessionCore,
) -> None:
    effects = capable.handle(INTERRUPTED)
    assert effects[:2] == [SHOWN_OWN, CLOSE] and _records(effects)


def test_the_stopped_turns_result_only_closes_its_cards_once(capable: SessionCore) -> None:
    assert capable.handle(OwnTurnStopped()) == []
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


def test_a_turn_that_opens_forgets_a_stop_whose_result_never_came(capable: SessionCore) -> None:
    capable.handle(OwnTurnStopped())
    capable.handle(PromptReceived(turn_id=T2))
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=E1, turn_id=T2))
    capable.handle(result())
    assert capable.turn_state is TurnState.IDLE
    assert _records(capable.handle(INTERRUPTED))
