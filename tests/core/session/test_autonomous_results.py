"""Which results no user turn asked for: the core decides from the result's origin kind.

Claude Code marks a result it produced on its own (a background task's notification, a peer or
coordinator agent, an observer) with `origin.kind`; such a result ends no user turn and is no
recovery boundary. The shell passes the kind as it read it; `is_autonomous_origin` is the one
rule, used by the turn table's `is_autonomous` guard and by the shell's fast-mode mirror.
"""

from __future__ import annotations

import pytest

from fsm import (
    AUTONOMOUS_ORIGINS,
    InternalFaultOccurred,
    PromptEchoed,
    PromptReceived,
    PromptSent,
    ResultReceived,
    SessionCore,
    SettlePrompt,
    TurnWentIdle,
    is_autonomous_origin,
)
from fsm.turn import TurnState
from tests.support.session_narrative import CLOSE, E1, SHOWN_OWN, T1, result

AUTONOMOUS = ["task-notification", "peer", "coordinator", "observer", "observer-activity"]
THE_USERS = [None, "user", "human", "", "Task-Notification", "task_notification"]


def test_the_rule_names_exactly_these_origins() -> None:
    assert sorted(AUTONOMOUS_ORIGINS) == sorted(AUTONOMOUS)


@pytest.mark.parametrize("kind", AUTONOMOUS)
def test_an_autonomous_origin_is_no_users_turn(kind: str) -> None:
    assert is_autonomous_origin(kind) is True


@pytest.mark.parametrize("kind", THE_USERS)
def test_any_other_origin_is_the_users(kind: str | None) -> None:
    assert is_autonomous_origin(kind) is False


def _running(core: SessionCore) -> None:
    core.handle(PromptReceived(turn_id=T1))
    core.handle(PromptSent(turn_id=T1))


@pytest.mark.parametrize("heard", [False, True], ids=["prompt-sent", "running"])
@pytest.mark.parametrize("kind", AUTONOMOUS)
def test_an_autonomous_result_leaves_the_turn_as_it_was(
    capable: SessionCore, kind: str, heard: bool
) -> None:
    _running(capable)
    if heard:
        capable.handle(PromptEchoed(epoch=E1, turn_id=T1))
    effects = capable.handle(result(origin_kind=kind))
    assert effects == [
        SHOWN_OWN,
        CLOSE,
    ]  # its own cards end (docs/decisions.md#own-work-ends-its-cards)
    # Claude's own work is no sign that it took the prompt up.
    assert capable.turn_state is (TurnState.RUNNING if heard else TurnState.PROMPT_SENT)


def test_the_idle_after_its_own_work_is_the_previous_turns(capable: SessionCore) -> None:
    # Claude's own work after the last turn's result, and the idle it ends with, written before
    # Claude read the next prompt: that prompt waits for its own answer, it does not fail.
    _running(capable)
    assert capable.handle(result(origin_kind="task-notification")) == [SHOWN_OWN, CLOSE]
    assert capable.handle(TurnWentIdle(epoch=E1)) == []
    assert capable.turn_state is TurnState.PROMPT_SENT
    effects = capable.handle(result())
    [settled] = [e for e in effects if isinstance(e, SettlePrompt)]
    assert (settled.turn_id, settled.stop_reason, settled.record) == (T1, "end_turn", None)


@pytest.mark.parametrize("kind", THE_USERS)
def test_a_users_result_ends_the_turn(capable: SessionCore, kind: str | None) -> None:
    _running(capable)
    effects = capable.handle(result(origin_kind=kind))
    assert [type(e) for e in effects if isinstance(e, SettlePrompt)] == [SettlePrompt]
    assert capable.turn_state is TurnState.IDLE


def test_an_autonomous_error_between_turns_is_not_reported(capable: SessionCore) -> None:
    failed = ResultReceived(
        epoch=E1, subtype="error_during_execution", is_error=True, origin_kind="peer"
    )
    assert capable.handle(failed) == [SHOWN_OWN, CLOSE]


@pytest.mark.parametrize("kind", [*AUTONOMOUS, *THE_USERS])
def test_a_result_between_turns_ends_its_works_cards_whatever_its_origin(
    capable: SessionCore, legacy: SessionCore, kind: str | None
) -> None:
    # A `/loop` fire or a scheduled task has no origin that marks it as Claude's own: no
    # prompt is live, so its result still ends the work's cards
    # (docs/decisions.md#own-work-ends-its-cards).
    for core in (capable, legacy):
        assert core.handle(result(origin_kind=kind)) == [SHOWN_OWN, CLOSE]
        assert core.turn_state is TurnState.IDLE


def test_a_broken_session_closes_nothing(capable: SessionCore) -> None:
    capable.handle(InternalFaultOccurred())
    assert capable.turn_state is TurnState.BROKEN
    assert capable.handle(result()) == [SHOWN_OWN]
