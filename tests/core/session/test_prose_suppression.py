"""docs/decisions.md#capable-clients: error prose reaches only legacy clients; real prose always
passes."""

from __future__ import annotations

from fsm import PromptEchoed
from fsm.events import PromptSent
from fsm.session import SessionCore
from tests.support.session_narrative import (
    END_TURN,
    FORWARD,
    FORWARD_MASKED,
    OVERLOADED_TEXT,
    SPEND_LIMIT,
    SYN,
    T1,
    WITHDRAW,
    result,
    said,
    shown,
)

# --- docs/decisions.md#capable-clients: prose suppression -----------------------------------------


def test_error_prose_is_forwarded_only_to_legacy_clients(
    capable: SessionCore, legacy: SessionCore
) -> None:
    for core in (capable, legacy):
        core.handle(PromptSent(turn_id=T1))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
    message = said(SPEND_LIMIT, model=SYN, error="rate_limit")
    assert capable.handle(message) == []
    # Claude's error prose: masked (docs/decisions.md#secrets).
    assert legacy.handle(message) == [FORWARD_MASKED]


def test_usage_limit_words_from_a_real_model_are_prose(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    # Not <synthetic>: the model is quoting, not the CLI reporting.
    assert capable.handle(said(SPEND_LIMIT)) == [FORWARD]
    assert capable.handle(result(text=SPEND_LIMIT)) == [shown(T1), WITHDRAW, END_TURN]
    assert capable.active() == []


def test_subagent_errors_are_prose(capable: SessionCore) -> None:
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    # A subagent's error message is its parent's business, not the turn's failure.
    # Masked all the same: it is error prose (docs/decisions.md#secrets).
    subagent_error = said(OVERLOADED_TEXT, error="overloaded", top_level=False)
    assert capable.handle(subagent_error) == [FORWARD_MASKED]
    assert capable.handle(said("Done anyway.")) == [FORWARD]
    assert capable.handle(result()) == [shown(T1), WITHDRAW, END_TURN]
