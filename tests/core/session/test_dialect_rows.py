"""The dialect forks as rows: `[takes_records]` rows beside their legacy twins,
and the answer dialect that turns one failed settle into each client's answer.

Each test drives one row of `fsm/turn.py`'s table for both kinds of client and asserts whole
effects, so a fork that moved back into a callback, or a twin that went missing, fails here.
"""

from __future__ import annotations

from dataclasses import replace

from fsm import PromptEchoed
from fsm.effects import (
    Blame,
    FailedTurn,
    LogNotice,
    PublishRecord,
    RejectPrompt,
    SendAgentText,
    SettlePrompt,
    StopReason,
)
from fsm.events import PromptSent, TransportLost, WorkerShuttingDown
from fsm.ledger import Ledger
from fsm.session import SessionCore
from fsm.turn import TRANSITIONS, LegacyAnswers, RecordAnswers, TurnState, answer_dialect
from fsm.vocabulary import FailureKind
from tests.support.session_narrative import (
    AUTH_REJECTION,
    CLOSE,
    E1,
    FORWARD_MASKED,
    LOGIN_TEXT,
    OVERLOADED_TEXT,
    SHOWN_OWN,
    SYN,
    T1,
    WITHDRAW,
    result,
    said,
    shown,
)


def _guarded(callback: str) -> list[list[str]]:
    return [row.get("conditions", []) for row in TRANSITIONS if callback in row.get("before", [])]


def test_the_forks_are_visible_guards() -> None:
    # Every callback that makes a record for a client that takes them is guarded so, and its
    # legacy twin is a row of its own.
    for callback in (
        "withhold_failure",
        "report_failure_message",
        "report_error_result",
        "report_transport_lost",
        "report_worker_shutdown",
    ):
        assert _guarded(callback) and all("takes_records" in g for g in _guarded(callback))
    for twin in ("log_failure_message", "log_error_result", "log_transport_lost"):
        assert _guarded(twin) and all("takes_records" not in g for g in _guarded(twin))


# --- a failure message inside a turn: withheld, forwarded, or neither ------------------------


def test_a_failure_message_is_withheld_for_the_record(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded")) == []
    assert capable.turn_state is TurnState.FAILING
    assert capable.turn.withheld == [OVERLOADED_TEXT]


def test_a_failure_message_is_forwarded_to_a_legacy_client(legacy: SessionCore) -> None:
    legacy.handle(PromptSent(turn_id=T1))
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    # Claude's error prose: masked (docs/decisions.md#secrets).
    overloaded = said(OVERLOADED_TEXT, model=SYN, error="overloaded")
    assert legacy.handle(overloaded) == [FORWARD_MASKED]
    assert (legacy.turn_state, legacy.turn.withheld) == (TurnState.FAILING, [])
    # A second one, in FAILING, is forwarded too.
    assert legacy.handle(overloaded) == [FORWARD_MASKED]


def test_a_login_prompt_is_neither_withheld_nor_forwarded(
    capable: SessionCore, legacy: SessionCore
) -> None:
    for core in (capable, legacy):
        core.handle(PromptSent(turn_id=T1))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
        assert core.handle(said(LOGIN_TEXT, model=SYN)) == []
        assert (core.turn_state, core.turn.withheld, core.turn.login) == (
            TurnState.FAILING,
            [],
            True,
        )


# --- the failed turn: one settle, two answers ------------------------------------------------


def test_a_failed_turn_is_a_legacy_error_and_no_record(legacy: SessionCore) -> None:
    legacy.handle(PromptSent(turn_id=T1))
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    legacy.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    # Claude's words went out as they came; the error names the kind
    # (docs/decisions.md#legacy-error-text-once).
    assert legacy.handle(result(is_error=True, text=OVERLOADED_TEXT)) == [
        shown(T1),
        WITHDRAW,
        RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: Claude is temporarily overloaded.",
            error_kind="overloaded",
            turn_id=T1,
        ),
    ]
    assert legacy.active() == [] and legacy.ledger.history() == []


def test_a_failed_turn_is_a_record_on_the_response(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    owner, withdraw, settle = capable.handle(result(is_error=True, text=OVERLOADED_TEXT))
    assert (owner, withdraw) == (shown(T1), WITHDRAW)
    assert isinstance(settle, SettlePrompt) and settle.failure is None
    assert settle.turn_id == T1
    assert settle.record is not None and settle.record.id == f"{T1}:error"
    assert capable.active() == [settle.record]


def test_the_legacy_answers() -> None:
    auth = FailedTurn(kind=FailureKind.AUTH_REQUIRED, text="Sign in", error_kind=None)
    lost = FailedTurn(kind=FailureKind.TRANSPORT_LOST, text="Gone", error_kind=None)
    answers = LegacyAnswers()
    settle = SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=T1, failure=auth)
    assert answers.answer(settle) == [AUTH_REJECTION]
    # The adapter's own words: the error's message is where they are told.
    assert answers.answer(
        SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=T1, failure=lost)
    ) == [
        RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: Gone",
            error_kind="transport_lost",
            turn_id=T1,
        )
    ]
    # Every answer names its prompt; a turn that did not fail is answered as for anyone.
    queued = SettlePrompt(stop_reason=StopReason.END_TURN, failure=lost, turn_id="t9")
    assert answers.answer(queued) == [
        RejectPrompt(
            blame=Blame.INTERNAL,
            message="Internal error: Gone",
            error_kind="transport_lost",
            turn_id="t9",
        )
    ]
    done = SettlePrompt(stop_reason=StopReason.CANCELLED, turn_id=T1)
    assert answers.answer(done) == [done]


def test_the_legacy_answers_show_claudes_words_once() -> None:
    # docs/decisions.md#legacy-error-text-once: Claude's words are agent text, once; the
    # JSON-RPC message is the kind's short title.
    answers = LegacyAnswers()
    shown = FailedTurn(
        kind=FailureKind.OVERLOADED,
        text="API Error: 529",
        error_kind="overloaded",
        claudes_words=True,
        shown=True,
    )
    short = RejectPrompt(
        blame=Blame.INTERNAL,
        message="Internal error: Claude is temporarily overloaded.",
        error_kind="overloaded",
        turn_id=T1,
    )
    assert answers.answer(
        SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=T1, failure=shown)
    ) == [short]
    unshown = replace(shown, shown=False)
    assert answers.answer(
        SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=T1, failure=unshown)
    ) == [
        SendAgentText(text="API Error: 529"),
        short,
    ]
    # After text that ends mid-line, the words start a line of their own.
    mid_line = replace(unshown, line_open=True)
    assert answers.answer(
        SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=T1, failure=mid_line)
    ) == [
        SendAgentText(text="\nAPI Error: 529"),
        short,
    ]


def test_the_record_answers_need_the_open_turn() -> None:
    ledger = Ledger(session_id="s", epoch=E1)
    answers = answer_dialect(ledger, takes_records=True)
    assert isinstance(answers, RecordAnswers)
    assert isinstance(answer_dialect(ledger, takes_records=False), LegacyAnswers)
    ledger.open_turn(T1)
    failed = FailedTurn(
        kind=FailureKind.RATE_LIMITED, text="Slow down", error_kind=None, reset_at_epoch_ms=5000
    )
    [answer] = answers.answer(
        SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=T1, failure=failed)
    )
    assert isinstance(answer, SettlePrompt) and answer.record is not None
    assert (answer.record.title, answer.record.reset_at_epoch_ms) == ("Slow down", 5000)
    assert ledger.active() == [answer.record]  # current at once: it rides on the response
    ledger.close()


# --- between turns (docs/decisions.md#failures-between-turns): a record, or a log line ------------


def test_a_failure_message_between_turns(capable: SessionCore, legacy: SessionCore) -> None:
    message = said(OVERLOADED_TEXT, model=SYN, error="overloaded")
    [published] = capable.handle(message)
    assert isinstance(published, PublishRecord)
    assert capable.turn.between_failure_reported
    assert legacy.handle(message) == [
        FORWARD_MASKED,
        LogNotice(message="a failure with no live turn"),
    ]
    assert not legacy.turn.between_failure_reported
    # A login prompt between turns is nothing, for either.
    assert capable.handle(said(LOGIN_TEXT, model=SYN)) == []
    assert legacy.handle(said(LOGIN_TEXT, model=SYN)) == []


def test_an_error_result_between_turns_is_logged_for_a_legacy_client(legacy: SessionCore) -> None:
    assert legacy.handle(result(is_error=True, text="API Error: 500")) == [
        SHOWN_OWN,
        CLOSE,
        LogNotice(message="provider_error with no live turn: API Error: 500"),
    ]


def test_a_loss_between_turns_is_logged_for_a_legacy_client(legacy: SessionCore) -> None:
    assert legacy.handle(TransportLost(epoch=E1)) == [
        LogNotice(message="transport_lost with no live turn: The connection to Claude was lost.")
    ]
    assert legacy.active() == []


def test_a_shutdown_between_turns(capable: SessionCore, legacy: SessionCore) -> None:
    for core in (capable, legacy):
        core.handle(WorkerShuttingDown(epoch=E1))
    [published] = capable.handle(TransportLost(epoch=E1))
    assert isinstance(published, PublishRecord)
    assert published.record.kind is FailureKind.WORKER_SHUTDOWN
    assert legacy.handle(TransportLost(epoch=E1)) == [
        LogNotice(message="worker_shutdown with no live turn: The Claude worker is shutting down.")
    ]
