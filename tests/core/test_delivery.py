"""docs/decisions.md#delivery: a failed send changes no revision and no active state.

`tests/core/session/` walks this rule through narratives (a lost retry warning, a lost
notice revision, a lost session-scoped record, a lost replayed usage limit) and
`tests/core/test_stateful.py` keeps it as an invariant of random runs. This file states it once,
generically: for every way the core publishes a `session_info_update`, whatever the session
held before the publish is exactly what it holds after the send failed: the active set, the
history, and every incident's state, current record, pending revision and recovery policy. Only
the session-scoped counter may move (a failed send leaves a gap in it, never a reused id).

The last test states the rule one level down, on `fsm.ledger.Ledger` itself: a revision that was
proposed and then failed must not have changed the incident's recovery policy. The session core
never proposes a warning under the id of an active error today, so this is latent there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fsm.effects import PublishRecord
from fsm.events import (
    AssistantMessageReceived,
    ClaudeSilent,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    HistoryFailureFound,
    ModelFellBack,
    PromptSent,
    ResultReceived,
    RetryAttempted,
    TransportLost,
)
from fsm.ledger import Ledger
from fsm.session import SessionCore
from fsm.vocabulary import FailureKind, Severity

E1 = "epoch-1"


def _snapshot(core: SessionCore) -> Any:
    ledger = core.ledger
    incidents = {
        incident_id: (incident.state, incident.policy, incident.current, incident.pending)
        for incident_id, incident in ledger._incidents.items()
    }
    # (Not the turn's state: the event that published also told the core Claude responded,
    # which moves a turn on whatever became of the send.)
    return (tuple(core.active()), tuple(ledger.history()), core.turn.turn_id, incidents)


def _retry(attempt: int, status: int | None = 529) -> RetryAttempted:
    return RetryAttempted(
        epoch=E1, attempt=attempt, max_retries=10, error_status=status, error="overloaded"
    )


def _fallback(model: str = "claude-sonnet-4-5") -> ModelFellBack:
    return ModelFellBack(epoch=E1, original_model="claude-opus-4-5", fallback_model=model)


def _failed_result() -> ResultReceived:
    return ResultReceived(epoch=E1, subtype="success", is_error=True, result="API Error: 500")


# (name, events that set the scene, every PublishRecord delivered; the event whose publish fails)
CASES: dict[str, tuple[Callable[[], list[Event]], Callable[[], Event]]] = {
    "first retry warning of a turn": (lambda: [PromptSent(turn_id="t1")], lambda: _retry(1)),
    "a later revision of the turn's warning": (
        lambda: [PromptSent(turn_id="t1"), _retry(1)],
        lambda: _retry(2),
    ),
    "a stall warning": (
        lambda: [PromptSent(turn_id="t1"), _retry(1)],
        lambda: ClaudeSilent(epoch=E1, waited_seconds=120),
    ),
    "a session-scoped retry warning": (lambda: [], lambda: _retry(1, status=None)),
    "a session-scoped error": (lambda: [_retry(1)], _failed_result),
    "a session-scoped transport loss": (lambda: [_retry(1)], lambda: TransportLost(epoch=E1)),
    "a new notice": (lambda: [_fallback("a")], lambda: _fallback("b")),
    "a notice's next revision": (lambda: [_fallback()], lambda: _fallback()),
    "a replayed usage limit, active": (
        lambda: [],
        lambda: HistoryFailureFound(id="u1:error", title="You've hit your limit", active=True),
    ),
    "a replayed usage limit, historical": (
        lambda: [HistoryFailureFound(id="u0:error", title="You've hit your limit", active=True)],
        lambda: HistoryFailureFound(id="u1:error", title="You've hit your limit", active=False),
    ),
    # docs/decisions.md#failures-between-turns: between turns the failure message itself is the
    # record.
    "a session-scoped auth failure": (
        lambda: [_retry(1)],
        lambda: AssistantMessageReceived(
            epoch=E1,
            model="<synthetic>",
            text="Invalid API key",
            text_block_count=1,
            error="authentication_failed",
        ),
    ),
}


def _deliver_all(core: SessionCore, event: Event) -> None:
    for effect in core.handle(event):
        if isinstance(effect, PublishRecord):
            record = effect.record
            core.handle(DeliveryConfirmed(id=record.id, revision=record.revision))


@pytest.mark.parametrize("name", list(CASES))
def test_a_failed_publish_changes_nothing(name: str) -> None:
    scene, failing = CASES[name]
    core = SessionCore(session_id="s-1", epoch=E1, capable=True)
    try:
        for event in scene():
            _deliver_all(core, event)
        before = _snapshot(core)
        [effect] = [e for e in core.handle(failing()) if isinstance(e, PublishRecord)]
        record = effect.record
        core.handle(DeliveryFailed(id=record.id, revision=record.revision))
        assert _snapshot(core) == before
        # And the next attempt at the same incident takes the revision the client never saw.
        open_incident = core.ledger.incident(record.id)
        if open_incident is not None:
            assert open_incident.next_revision == record.revision
    finally:
        core.close()


def test_a_failed_revision_keeps_the_incidents_recovery_policy() -> None:
    # The same rule one level down: proposing a revision must not change what recovers the
    # incident until that revision is delivered. Here an active quota error (recovers only at a
    # real answer) gets a warning revision whose send fails: the incident must still be the
    # quota error, recovering the way a quota error does.
    ledger = Ledger(session_id="s-1", epoch=E1)
    ledger.open_turn("t1")
    first = ledger.propose_turn(
        kind=FailureKind.QUOTA_EXHAUSTED, severity=Severity.ERROR, text="You've hit your limit"
    )
    ledger.confirm(first.id, first.revision)
    quota = ledger.incident(first.id)
    assert quota is not None
    policy = quota.policy
    lost = ledger.propose_turn(
        kind=FailureKind.OVERLOADED,
        severity=Severity.WARNING,
        text="Retrying Claude, attempt 1 of 10.",
    )
    ledger.fail(lost.id, lost.revision)
    assert ledger.active() == [first]
    assert ledger.incident(first.id) is quota and quota.policy is policy
    ledger.close()
