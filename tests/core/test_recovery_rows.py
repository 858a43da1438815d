"""The recovery policy is the incident's guarded rows, with no rewrite before them.

The ledger used to rewrite a kind's recovery policy before the incident's guards read it (a
warning recovered at the next attempt unless it was a notice, and a session-scoped next-attempt
incident at a real answer instead). The rows now read the kind's own policy with two more
guards, `is_a_warning` and `is_session_scoped`. This test keeps the old rewrite and the old rows
as the oracle and runs every (kind, severity, scope, boundary, whose boundary) through the real
ledger: each must resolve exactly when the old rules said it would.
"""

from __future__ import annotations

import itertools

import pytest

from fsm.incident import IncidentTrigger
from fsm.ledger import Ledger
from fsm.vocabulary import FailureKind, RecoveryPolicy, Severity, policy_for

P = RecoveryPolicy
T = IncidentTrigger
OWN, OTHER = "turn-1", "turn-2"
BOUNDARIES = [T.ATTEMPT_CONFIRMED, T.REAL_ANSWER_GIVEN, T.AUTH_CONFIRMED, T.RUNTIME_REPLACED]
CASES = list(
    itertools.product(FailureKind, Severity, ["turn", "session"], BOUNDARIES, [OWN, OTHER, None])
)


def _old_rewrite(policy: P, severity: Severity, turn_id: str | None) -> P:
    # `fsm/ledger.py`'s `_recovery`, as it was.
    if severity is Severity.WARNING and policy is not P.NEVER:
        policy = P.NEXT_ATTEMPT
    if turn_id is None and policy is P.NEXT_ATTEMPT:
        policy = P.REAL_MODEL_SUCCESS
    return policy


def _old_rows(boundary: T, policy: P, severity: Severity, own: str | None, at: str | None) -> bool:
    # The incident's rows as they were, over the rewritten policy.
    match boundary:
        case T.ATTEMPT_CONFIRMED:
            return policy is P.NEXT_ATTEMPT and own != at
        case T.REAL_ANSWER_GIVEN:
            warning_of_this_turn = severity is Severity.WARNING and own is not None and own == at
            return policy in (P.REAL_MODEL_SUCCESS, P.AUTH_STATUS) or warning_of_this_turn
        case T.AUTH_CONFIRMED:
            return policy is P.AUTH_STATUS
        case T.RUNTIME_REPLACED:
            return policy is P.RUNTIME_REBIND
    raise AssertionError(boundary)  # pragma: no cover


@pytest.mark.parametrize(
    ("kind", "severity", "scope", "boundary", "at"),
    CASES,
    ids=[f"{k.value}-{s.value}-{sc}-{b.value}-{a}" for k, s, sc, b, a in CASES],
)
def test_the_rows_recover_as_the_old_rewrite_did(
    kind: FailureKind, severity: Severity, scope: str, boundary: T, at: str | None
) -> None:
    ledger = Ledger(session_id="s", epoch="e")
    try:
        own: str | None = None
        if scope == "turn":
            own = OWN
            ledger.open_turn(OWN)
            record = ledger.propose_turn(kind=kind, severity=severity, text="it failed")
        else:
            record = ledger.propose_session(kind=kind, severity=severity, text="it failed")
        ledger.confirm(record.id, record.revision)
        assert ledger.active() == [record]
        policy = _old_rewrite(policy_for(kind).recovery, severity, own)
        expected = _old_rows(boundary, policy, severity, own, at)
        assert (ledger.reach(boundary, at) == [record.id]) is expected
    finally:
        ledger.close()


def test_a_notice_never_recovers_at_a_boundary() -> None:
    ledger = Ledger(session_id="s", epoch="e")
    try:
        notice = ledger.propose_notice("Claude fell back to another model.", turn_id=None)
        ledger.confirm(notice.id, notice.revision)
        for boundary in BOUNDARIES:
            for at in (OWN, None):
                assert ledger.reach(boundary, at) == []
        assert ledger.active() == [notice]
    finally:
        ledger.close()
