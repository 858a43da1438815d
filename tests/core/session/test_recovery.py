"""docs/decisions.md#recovery: when each kind of failure recovers, and what never does."""

from __future__ import annotations

import pytest

from fsm import PromptEchoed
from fsm.effects import Effect, PublishRecord, StopReason
from fsm.events import (
    AuthStatusReported,
    CancelRequested,
    Event,
    PromptSent,
    RuntimeStarted,
    StreamEnded,
    TransportLost,
    WorkerShuttingDown,
)
from fsm.session import SessionCore
from fsm.turn import TurnOutcome, TurnState
from tests.support.session_narrative import (
    CLOSE,
    E1,
    E2,
    END_TURN,
    ERROR,
    FALLBACK_TEXT,
    FORWARD,
    FORWARD_MASKED,
    NEW,
    NONE,
    OVERLOADED_TEXT,
    RETRY,
    SHOWN_OWN,
    SPEND_LIMIT,
    SYN,
    T1,
    T2,
    T3,
    WARNING,
    WITHDRAW,
    C,
    K,
    confirm,
    failed_with,
    fell_back,
    notice_id,
    published,
    rec,
    recovered,
    result,
    said,
    session_error_id,
    settled,
    shown,
)

# --- docs/decisions.md#recovery: recovery ---------------------------------------------------------


def test_turn_failure_recovers_at_the_next_result_not_at_the_next_prompt(
    capable: SessionCore,
) -> None:
    failure = rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        shown(T1),
        *failed_with(failure),
    ]
    # Sending the next prompt proves nothing yet.
    assert capable.handle(PromptSent(turn_id=T2)) == []
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    assert capable.active() == [failure]
    # Its result is the confirmed attempt boundary: T1 stops being active, silently.
    assert capable.handle(said("Fine now.")) == [FORWARD]
    assert capable.handle(result(text="Fine now.")) == [
        shown(T2),
        WITHDRAW,
        settled(T2),
        recovered(failure.id),
    ]
    assert (capable.turn_state, capable.turn.outcome, capable.active()) == (
        TurnState.IDLE,
        TurnOutcome.SUCCEEDED,
        [],
    )
    assert capable.ledger.history() == [failure]


@pytest.mark.parametrize(
    ("events", "answer"),
    [
        # An error result of the next turn is a boundary too (its own failure is active).
        (
            [said("API Error: 500", model=SYN, error="server_error"), result(is_error=True)],
            None,
        ),
        # So is a refusal ...
        (
            [said("No.", stop_reason="refusal"), result(stop_reason="refusal")],
            [WITHDRAW, settled(T2, StopReason.REFUSAL)],
        ),
        # ... and a cancelled turn's result.
        (
            [CancelRequested(), result(subtype="error_during_execution", is_error=True)],
            [WITHDRAW, settled(T2, StopReason.CANCELLED)],
        ),
        # ... and a synthetic local answer (it is a result of a user turn).
        (
            [said("No response requested.", model=SYN), result()],
            [WITHDRAW, settled(T2)],
        ),
    ],
    ids=["error", "refusal", "cancelled", "synthetic"],
)
def test_any_later_result_is_the_attempt_boundary(
    capable: SessionCore, events: list[Event], answer: list[Effect] | None
) -> None:
    failure = rec(f"{T1}:error", 1, C.REQUEST, ERROR, "Bad request.", NONE, K.BAD_REQUEST)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Bad request.", model=SYN, error="invalid_request"))
    assert capable.handle(result(is_error=True, text="Bad request.")) == [
        shown(T1),
        *failed_with(failure),
    ]
    # The next turn ends, however it ends.
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    for event in events[:-1]:
        capable.handle(event)
    effects = capable.handle(events[-1])
    assert not any(isinstance(e, PublishRecord) for e in effects)
    if answer is None:
        t2 = rec(f"{T2}:error", 1, C.SERVICE, ERROR, "API Error: 500", RETRY, K.PROVIDER_ERROR)
        assert effects == [shown(T2), *failed_with(t2, T2), recovered(failure.id)]
        assert capable.active() == [t2]
    else:
        assert effects == [shown(T2), *answer, recovered(failure.id)]
        assert capable.active() == []


def test_autonomous_result_is_not_an_attempt_boundary(capable: SessionCore) -> None:
    failure = rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        shown(T1),
        *failed_with(failure),
    ]
    # A background task's result touches no user turn (T2's still waits for Claude to take it
    # up) and recovers nothing.
    capable.handle(PromptSent(turn_id=T2))
    assert capable.handle(result(origin_kind="task-notification", is_error=True)) == [
        SHOWN_OWN,
        CLOSE,
    ]
    assert (capable.turn_state, capable.active()) == (TurnState.PROMPT_SENT, [failure])


def test_quota_stays_active_until_a_real_answer(capable: SessionCore) -> None:
    quota = rec(f"{T1}:error", 1, C.LIMIT, ERROR, SPEND_LIMIT, NONE, K.QUOTA_EXHAUSTED)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(said(SPEND_LIMIT, model=SYN, error="rate_limit")) == []
    assert capable.handle(result(is_error=True, text=SPEND_LIMIT)) == [
        shown(T1),
        *failed_with(quota),
    ]
    # A <synthetic> local answer does not count, although the turn succeeds.
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    assert capable.handle(said("No response requested.", model=SYN)) == [FORWARD_MASKED]
    assert capable.handle(result(text="No response requested.")) == [
        shown(T2),
        WITHDRAW,
        settled(T2),
    ]
    assert capable.active() == [quota]
    # A real answer that ends in an error does not count either; that failure is new.
    capable.handle(PromptSent(turn_id=T3))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T3))
    capable.handle(said("Partial answer"))
    t3 = rec(f"{T3}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        shown(T3),
        *failed_with(t3, T3),
    ]
    assert capable.active() == [quota, t3]
    # A real, successful answer: quota recovers (and so does T3, an earlier turn).
    capable.handle(PromptSent(turn_id="turn-4"))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id="turn-4"))
    assert capable.handle(said("Here it is.")) == [FORWARD]
    assert capable.handle(result(text="Here it is.")) == [
        shown("turn-4"),
        WITHDRAW,
        settled("turn-4"),
        recovered(quota.id, t3.id),
    ]
    assert capable.active() == []


def test_transport_loss_stays_active_until_the_runtime_is_replaced(capable: SessionCore) -> None:
    lost = rec(
        f"{T1}:error",
        1,
        C.CONNECTION,
        ERROR,
        "The connection to Claude was lost.",
        NEW,
        K.TRANSPORT_LOST,
    )
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(TransportLost(epoch=E1)) == failed_with(lost)
    # Neither an auth success nor a later turn's real answer proves the old runtime is back.
    # (The recovery policy is what is under test here, not the plausibility of the events.)
    assert capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False)) == []
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    capable.handle(said("Hello."))
    assert capable.handle(result(text="Hello.")) == [shown(T2), WITHDRAW, settled(T2)]
    assert capable.active() == [lost]
    # Only a replacement runtime does; nothing is published (the log says so).
    assert capable.handle(RuntimeStarted(epoch=E2)) == [recovered(lost.id)]
    assert capable.active() == []


def test_worker_shutdown_stays_active_until_the_runtime_is_replaced(capable: SessionCore) -> None:
    shutdown = rec(
        session_error_id(1),
        1,
        C.CONNECTION,
        ERROR,
        "The Claude worker is shutting down.",
        NEW,
        K.WORKER_SHUTDOWN,
    )
    # Idle: the worker announces its shutdown, then its stream ends.
    assert capable.handle(WorkerShuttingDown(epoch=E1)) == []
    assert capable.handle(StreamEnded(epoch=E1)) == published(shutdown)
    confirm(capable, shutdown)
    assert capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False)) == []
    assert capable.active() == [shutdown]
    assert capable.handle(RuntimeStarted(epoch=E2)) == [recovered(shutdown.id)]
    assert capable.active() == []
    # The new runtime's clean end while idle is no failure: the shutdown flag went with E1.
    assert capable.handle(StreamEnded(epoch=E2)) == []


def test_notices_never_recover(capable: SessionCore) -> None:
    notice = rec(notice_id(1), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    assert capable.handle(fell_back()) == published(notice)
    confirm(capable, notice)
    # Real answers, auth success and a new runtime: the notice stays active.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Hello."))
    assert capable.handle(result(text="Hello.")) == [shown(T1), WITHDRAW, END_TURN]
    capable.handle(AuthStatusReported(epoch=E1, is_authenticating=False))
    capable.handle(RuntimeStarted(epoch=E2))
    assert capable.active() == [notice]


def test_publishing_a_new_incident_never_recovers_an_old_one(capable: SessionCore) -> None:
    first = rec(session_error_id(1), 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
    second = rec(
        session_error_id(2), 1, C.LIMIT, ERROR, "Reached maximum budget", NEW, K.BUDGET_EXHAUSTED
    )
    notice = rec(notice_id(3), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    turn = rec(f"{T1}:error", 1, C.REQUEST, ERROR, "Bad request.", NONE, K.BAD_REQUEST)
    # Two session-scoped failures, a notice and a turn failure pile up; none clears another.
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        SHOWN_OWN,
        CLOSE,
        *published(first),
    ]
    confirm(capable, first)
    assert capable.handle(
        result(subtype="error_max_budget_usd", is_error=True, errors=("Reached maximum budget",))
    ) == [SHOWN_OWN, CLOSE, *published(second)]
    confirm(capable, second)
    assert capable.handle(fell_back()) == published(notice)
    confirm(capable, notice)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("Bad request.", model=SYN, error="invalid_request"))
    assert capable.handle(result(is_error=True, text="Bad request.")) == [
        shown(T1),
        *failed_with(turn),
    ]
    assert capable.active() == [first, second, notice, turn]


def test_session_scoped_turn_kinds_wait_for_a_real_answer(capable: SessionCore) -> None:
    # With no turn whose successor could confirm it, an overload waits for a real answer.
    idle = rec(session_error_id(1), 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.PROVIDER_ERROR)
    assert capable.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        SHOWN_OWN,
        CLOSE,
        *published(idle),
    ]
    confirm(capable, idle)
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said("No response requested.", model=SYN))
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN]
    assert capable.active() == [idle]
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    capable.handle(said("Hello."))
    assert capable.handle(result()) == [shown(T2), WITHDRAW, settled(T2), recovered(idle.id)]
    assert capable.active() == []
