"""Escalation is a row: which callback settles an error result depends on whether a warning
of the turn is out, and a reviewer can point at each row in `diagrams/turn.md`.

- RETRYING `[is_an_error, has_a_warning_out] / escalate_warning`: the warning's entry becomes
  the error (same id, next revision); FAILING has the same twin.
- PROMPT_SENT, RUNNING `[is_an_error] / fail_with_result`: a record of its own, revision 1;
  so does RETRYING when the warning's delivery failed (nothing of it reached the client).
Each test records which of the two callbacks the machine ran, and what the client gets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from fsm import PromptEchoed
from fsm.effects import Effect, SettlePrompt, StopReason
from fsm.errors import FsmError
from fsm.events import (
    AssistantMessageReceived,
    DeliveryConfirmed,
    DeliveryFailed,
    PromptSent,
    ResultReceived,
    RetryAttempted,
)
from fsm.records import FailureRecord
from fsm.session import SessionCore
from fsm.turn import TurnState
from fsm.vocabulary import FailureKind, Severity

E1, T1 = "epoch-1", "turn-1"
OVERLOADED = "API Error: 529 Overloaded. Please try again later."
CALLBACKS = ("escalate_warning", "fail_with_result")


@pytest.fixture
def core() -> Iterator[SessionCore]:
    session = SessionCore(session_id="sess-1", epoch=E1, capable=True)
    yield session
    session.close()


def _spy(core: SessionCore) -> list[str]:
    # transitions looks a row's callbacks up on the model by name when the row runs.
    ran: list[str] = []

    def recording(name: str) -> Callable[[ResultReceived], None]:
        real = getattr(core.turn, name)

        def run(event: ResultReceived) -> None:
            ran.append(name)
            real(event)

        return run

    for name in CALLBACKS:
        setattr(core.turn, name, recording(name))
    return ran


def _retry(attempt: int) -> RetryAttempted:
    return RetryAttempted(epoch=E1, attempt=attempt, max_retries=10, error_status=529, error="x")


def _error_result() -> ResultReceived:
    return ResultReceived(epoch=E1, subtype="success", is_error=True, result=OVERLOADED)


def _said(text: str, *, model: str, error: str | None = None) -> AssistantMessageReceived:
    return AssistantMessageReceived(
        epoch=E1, model=model, text=text, text_block_count=1, error=error, top_level=True
    )


def _warn(core: SessionCore, *, delivered: bool = True) -> FailureRecord:
    (effect,) = core.handle(_retry(1))
    record: FailureRecord = effect.record  # type: ignore[attr-defined]
    report = DeliveryConfirmed if delivered else DeliveryFailed
    core.handle(report(id=record.id, revision=record.revision))
    return record


def _settled_record(effects: list[Effect]) -> FailureRecord:
    (settled,) = [e for e in effects if isinstance(e, SettlePrompt)]
    assert settled.stop_reason is StopReason.END_TURN and settled.record is not None
    return settled.record


def test_an_error_while_a_warning_is_out_revises_that_warning(core: SessionCore) -> None:
    ran = _spy(core)
    core.handle(PromptSent(turn_id=T1))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
    warning = _warn(core)
    assert (core.turn_state, warning.severity) == (TurnState.RETRYING, Severity.WARNING)
    record = _settled_record(core.handle(_error_result()))
    assert ran == ["escalate_warning"]
    assert (record.id, record.revision, record.severity) == (warning.id, 2, Severity.ERROR)
    assert core.active() == [record]


def test_an_error_with_no_warning_out_is_a_record_of_its_own(core: SessionCore) -> None:
    ran = _spy(core)
    core.handle(PromptSent(turn_id=T1))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
    core.handle(_said("Working on it.", model="claude-sonnet-4-5"))
    assert core.turn_state is TurnState.RUNNING
    record = _settled_record(core.handle(_error_result()))
    assert ran == ["fail_with_result"]
    assert (record.id, record.revision, record.severity) == (f"{T1}:error", 1, Severity.ERROR)


def test_a_warning_whose_delivery_failed_is_not_escalated(core: SessionCore) -> None:
    ran = _spy(core)
    core.handle(PromptSent(turn_id=T1))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
    _warn(core, delivered=False)
    assert core.turn_state is TurnState.RETRYING
    record = _settled_record(core.handle(_error_result()))
    assert ran == ["fail_with_result"]
    assert (record.id, record.revision) == (f"{T1}:error", 1)


def test_failing_escalates_the_warning_that_is_out(core: SessionCore) -> None:
    ran = _spy(core)
    core.handle(PromptSent(turn_id=T1))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
    warning = _warn(core)
    core.handle(_said(OVERLOADED, model="<synthetic>", error="overloaded"))
    assert core.turn_state is TurnState.FAILING
    record = _settled_record(core.handle(_error_result()))
    assert ran == ["escalate_warning"]
    assert (record.id, record.revision, record.kind) == (warning.id, 2, FailureKind.OVERLOADED)


def test_getting_past_a_failure_with_a_warning_out_goes_back_to_retrying(
    core: SessionCore,
) -> None:
    ran = _spy(core)
    core.handle(PromptSent(turn_id=T1))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
    warning = _warn(core)
    core.handle(_said(OVERLOADED, model="<synthetic>", error="overloaded"))
    core.handle(_said("Here is the answer.", model="claude-sonnet-4-5"))
    # RETRYING, not RUNNING: the warning is still out, so an error now escalates it.
    assert core.turn_state is TurnState.RETRYING
    record = _settled_record(core.handle(_error_result()))
    assert ran == ["escalate_warning"]
    assert (record.id, record.revision) == (warning.id, 2)


def test_escalate_warning_refuses_when_no_warning_is_out(core: SessionCore) -> None:
    core.handle(PromptSent(turn_id=T1))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
    with pytest.raises(FsmError, match="no warning"):
        core.turn.escalate_warning(_error_result())
    assert core.active() == []
