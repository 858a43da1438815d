"""The recovery policy is the incident's guarded rows; what they retire is a reviewed table.

`tests/golden/recovery.md` says, for every (failure kind, severity, scope) incident and every
boundary reached at its own turn, at another turn or between turns, whether the real ledger
retires it. It is generated (`python -m tests.support.recovery_table`) and reviewed like
`diagrams/*.md`: a policy change shows as a diff of that table, and this test fails until the
table is written again.
"""

from __future__ import annotations

from fsm.incident import IncidentTrigger
from fsm.ledger import Ledger
from fsm.vocabulary import FailureKind, Severity
from tests.support.recovery_table import BOUNDARIES, GOLDEN, render, retires


def test_the_ledger_retires_what_the_reviewed_table_says() -> None:
    assert render() == GOLDEN.read_text(encoding="utf-8"), (
        "the recovery policy changed: review `python -m tests.support.recovery_table`'s diff"
    )


def test_the_table_can_say_both_yes_and_no() -> None:
    # A warning of this turn is retired by this turn's real answer; a session failure is not
    # retired by a turn's attempt (docs/decisions.md#recovery), so the table is no constant.
    answer, attempt = IncidentTrigger.REAL_ANSWER_GIVEN, IncidentTrigger.ATTEMPT_CONFIRMED
    assert retires(FailureKind.RATE_LIMITED, Severity.WARNING, "turn", answer, "turn-1")
    assert not retires(FailureKind.AUTH_REQUIRED, Severity.ERROR, "session", attempt, "turn-2")


def test_a_notice_never_recovers_at_a_boundary() -> None:
    ledger = Ledger(session_id="s", epoch="e")
    try:
        notice = ledger.propose_notice("Claude fell back to another model.", turn_id=None)
        ledger.confirm(notice.id, notice.revision)
        for boundary in BOUNDARIES:
            for at in ("turn-1", None):
                assert ledger.reach(boundary, at) == []
        assert ledger.active() == [notice]
    finally:
        ledger.close()
