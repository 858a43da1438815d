"""Incident id formats (docs/decisions.md#retry-progress, #turn-ids, #session-scoped-ids and
#replay-ids): spelled in one place, read back by `parse_id`."""

from __future__ import annotations

import pytest

from fsm import ids
from fsm.ids import IdKind, ParsedId, parse_id
from fsm.ledger import Ledger
from fsm.vocabulary import FailureKind, Severity

SESSION = "0b7e6f1c-2f3a-4c44-9a0e-5d2b8f9c1a00"
EPOCH = "9f1d2c3b-aaaa-4bbb-8ccc-123456789abc"


def test_each_format_is_spelled_as_the_decisions_say() -> None:
    assert ids.turn_failure_id("P") == "P:error"
    assert ids.session_failure_id("s", "e", 3) == "s:session-error:e:3"
    assert ids.notice_id("s", "e", 4) == "s:notice:e:4"
    assert ids.history_failure_id("s", "m-1") == "s:history-error:m-1"


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        (
            ids.session_failure_id(SESSION, EPOCH, 12),
            ParsedId(kind=IdKind.SESSION, session_id=SESSION, epoch=EPOCH, n=12),
        ),
        (
            ids.notice_id(SESSION, EPOCH, 1),
            ParsedId(kind=IdKind.NOTICE, session_id=SESSION, epoch=EPOCH, n=1),
        ),
        (
            ids.history_failure_id(SESSION, "m-7"),
            ParsedId(kind=IdKind.HISTORY, session_id=SESSION, message_uuid="m-7"),
        ),
        (ids.turn_failure_id("turn-1"), ParsedId(kind=IdKind.TURN, turn_id="turn-1")),
        # Colons inside a session id or a turn id do not confuse the namespaces.
        (
            ids.notice_id("a:b", EPOCH, 2),
            ParsedId(kind=IdKind.NOTICE, session_id="a:b", epoch=EPOCH, n=2),
        ),
        (ids.turn_failure_id("x:y"), ParsedId(kind=IdKind.TURN, turn_id="x:y")),
    ],
)
def test_parse_reads_back_what_was_spelled(value: str, parsed: ParsedId) -> None:
    assert parse_id(value) == parsed


@pytest.mark.parametrize(
    "value",
    [
        "",
        "error",
        ":error:",
        "plain-id",
        f"{SESSION}:session-error:{EPOCH}:0",  # the counter starts at 1
        f"{SESSION}:notice:{EPOCH}:x",
        f"{SESSION}:notice:{EPOCH}",
        f"{SESSION}:history-error:",
    ],
)
def test_parse_rejects_what_no_ledger_mints(value: str) -> None:
    assert parse_id(value) is None


def test_parse_checks_the_session_when_asked() -> None:
    other = ids.session_failure_id("other", EPOCH, 1)
    assert parse_id(other, session_id=SESSION) is None
    assert parse_id(ids.session_failure_id(SESSION, EPOCH, 1), session_id=SESSION) is not None
    # A turn id names no session: it stands whoever asks.
    assert parse_id("P:error", session_id=SESSION) == ParsedId(kind=IdKind.TURN, turn_id="P")


def test_the_ledger_mints_parsable_ids_on_one_counter_per_epoch() -> None:
    ledger = Ledger(session_id=SESSION, epoch=EPOCH)

    def propose_session() -> str:
        return ledger.propose_session(
            kind=FailureKind.PROVIDER_ERROR, severity=Severity.ERROR, text="x"
        ).id

    minted = [
        propose_session(),
        ledger.propose_notice("A fallback.", turn_id=None).id,
        ledger.propose_notice("B", turn_id=None).id,
    ]
    assert [parse_id(m, session_id=SESSION) for m in minted] == [
        ParsedId(kind=IdKind.SESSION, session_id=SESSION, epoch=EPOCH, n=1),
        ParsedId(kind=IdKind.NOTICE, session_id=SESSION, epoch=EPOCH, n=2),
        ParsedId(kind=IdKind.NOTICE, session_id=SESSION, epoch=EPOCH, n=3),
    ]
    ledger.open_turn("P")
    turn = ledger.propose_turn(kind=FailureKind.PROVIDER_ERROR, severity=Severity.ERROR, text="x")
    assert parse_id(turn.id) == ParsedId(kind=IdKind.TURN, turn_id="P")
    # A new runtime starts a new namespace: its epoch, its counter from 1.
    ledger.replace_runtime("epoch-2")
    assert parse_id(propose_session()) == ParsedId(
        kind=IdKind.SESSION, session_id=SESSION, epoch="epoch-2", n=1
    )
    ledger.close()
