"""The spec's mapping table, row by row: each Claude condition, in both client modes."""

from __future__ import annotations

import pytest

from fsm import PromptEchoed
from fsm.effects import Effect, SendAgentText
from fsm.events import Event, PromptSent, ResultReceived
from fsm.session import SessionCore
from fsm.turn import TurnOutcome, TurnState
from tests.support.session_mapping import MAPPING
from tests.support.session_narrative import (
    END_TURN,
    FALLBACK_TEXT,
    FORWARD,
    NONE,
    T1,
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
    result,
    retried,
    said,
    shown,
)


def _owner(ending: Event) -> list[Effect]:
    """A result that ends the turn is the turn's (docs/decisions.md#result-owner); a lost
    process says nothing of the kind."""
    return [shown(T1)] if isinstance(ending, ResultReceived) else []


@pytest.mark.parametrize("condition", list(MAPPING))
def test_mapping_row_capable_turn_fails_with_a_typed_record(
    capable: SessionCore, condition: str
) -> None:
    row = MAPPING[condition]
    # The prompt goes out; nothing to show yet.
    assert capable.handle(PromptSent(turn_id=T1)) == []
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    # Claude's messages: error prose is held back, it becomes the record's title
    # (docs/decisions.md#capable-clients).
    for event, capable_says, _legacy_says in row.steps:
        assert capable.handle(event) == capable_says
    # The turn ends: one answer, end_turn, with the record on the PromptResponse.
    assert capable.handle(row.ending) == [*_owner(row.ending), *failed_with(row.record)]
    assert (capable.turn_state, capable.turn.outcome) == (TurnState.IDLE, TurnOutcome.FAILED)
    assert capable.active() == [row.record]


@pytest.mark.parametrize("condition", list(MAPPING))
def test_mapping_row_legacy_turn_is_rejected_without_a_record(
    legacy: SessionCore, condition: str
) -> None:
    row = MAPPING[condition]
    assert legacy.handle(PromptSent(turn_id=T1)) == []
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    # Claude's prose stays in the transcript (except the login prompt).
    for event, _capable_says, legacy_says in row.steps:
        assert legacy.handle(event) == legacy_says
    # The prompt is rejected with a JSON-RPC error, Claude's words shown once before it; no
    # record exists anywhere.
    ending = [*_owner(row.ending), *row.legacy_words, WITHDRAW, row.legacy_answer]
    assert legacy.handle(row.ending) == ending
    assert (legacy.turn_state, legacy.turn.outcome) == (TurnState.IDLE, TurnOutcome.FAILED)
    assert legacy.active() == []


def test_mapping_row_retry_without_http_response_is_a_connection_warning(
    capable: SessionCore, legacy: SessionCore
) -> None:
    warning = rec(
        f"{T1}:error",
        1,
        C.CONNECTION,
        WARNING,
        "Reconnecting to Claude, attempt 1 of 10.",
        NONE,
        K.TRANSPORT_LOST,
    )
    # Capable: a warning under the live turn's id, sent as a session_info_update.
    assert capable.handle(PromptSent(turn_id=T1)) == []
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(retried(1, status=None, error="unknown")) == published(warning)
    confirm(capable, warning)
    # A warning does not end the turn.
    assert capable.turn_state is TurnState.RETRYING
    assert capable.active() == [warning]
    # Legacy: nothing at all.
    assert legacy.handle(PromptSent(turn_id=T1)) == []
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    assert legacy.handle(retried(1, status=None, error="unknown")) == []
    assert legacy.turn_state is TurnState.RUNNING


def test_mapping_row_model_fallback_is_an_unknown_warning(
    capable: SessionCore, legacy: SessionCore
) -> None:
    notice = rec(notice_id(1), 1, C.UNKNOWN, WARNING, FALLBACK_TEXT, NONE, K.ADVISORY)
    # Capable: a notice record, whether or not a turn is live (docs/decisions.md#model-fallback).
    assert capable.handle(PromptSent(turn_id=T1)) == []
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(fell_back()) == published(notice)
    confirm(capable, notice)
    # The turn goes on and succeeds; the notice stays.
    assert capable.handle(said("Here you go.")) == [FORWARD]
    assert capable.handle(result(text="Here you go.")) == [shown(T1), WITHDRAW, END_TURN]
    assert capable.active() == [notice]
    # Legacy: the notice is agent text.
    assert legacy.handle(PromptSent(turn_id=T1)) == []
    legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id=T1))
    assert legacy.handle(fell_back()) == [
        SendAgentText(text=f"**Model fallback:** {FALLBACK_TEXT}")
    ]
    assert legacy.turn_state is TurnState.RUNNING
