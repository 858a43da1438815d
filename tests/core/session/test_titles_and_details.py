"""docs/decisions.md#titles and #details: a record's title is Claude's own text, masked; the rest
goes to details."""

from __future__ import annotations

from fsm import PromptEchoed
from fsm.effects import StopReason
from fsm.events import PromptSent
from fsm.session import SessionCore
from tests.support.session_narrative import (
    ERROR,
    FALLBACK_TEXT,
    NEW,
    NONE,
    OVERLOADED_TEXT,
    RETRY,
    SYN,
    T1,
    T2,
    WARNING,
    WITHDRAW,
    C,
    K,
    failed_with,
    fell_back,
    notice_id,
    published,
    rec,
    recovered,
    result,
    said,
    settled,
    shown,
)

# --- docs/decisions.md#titles: titles -------------------------------------------------------------


def test_title_is_claude_text_with_credentials_masked(capable: SessionCore) -> None:
    leaked = "API Error: 401 key sk-ant-api03-AAAA rejected for /home/alice/.claude"
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(said(leaked, model=SYN, error="server_error")) == []
    assert capable.handle(result(is_error=True, text=leaked)) == [
        shown(T1),
        *failed_with(
            rec(
                f"{T1}:error",
                1,
                C.SERVICE,
                ERROR,
                "API Error: 401 key sk-ant-*** rejected for ~/\u2026",
                RETRY,
                K.PROVIDER_ERROR,
            )
        ),
    ]


def test_title_is_never_a_bare_subtype_code(capable: SessionCore) -> None:
    # A turn limit with no words from Claude gets the adapter's sentence, not "error_max_turns".
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    assert capable.handle(result(subtype="error_max_turns", is_error=True)) == [
        shown(T1),
        *failed_with(
            rec(
                f"{T1}:error",
                1,
                C.LIMIT,
                ERROR,
                "This Claude turn reached its configured limit.",
                NEW,
                K.CONTEXT_EXHAUSTED,
            )
        ),
    ]
    # Same for an execution error with nothing said at all.
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    t2 = rec(
        f"{T2}:error",
        1,
        C.SERVICE,
        ERROR,
        "The model provider reported an error.",
        RETRY,
        K.PROVIDER_ERROR,
    )
    # T2's result is the attempt boundary for T1's failure.
    assert capable.handle(result(subtype="error_during_execution", is_error=True)) == [
        shown(T2),
        *failed_with(t2, T2),
        recovered(f"{T1}:error"),
    ]


def test_assistant_error_text_wins_over_result_text(capable: SessionCore) -> None:
    # Claude's own message is first in the spec's order; the result text comes second.
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said(OVERLOADED_TEXT, model=SYN, error="overloaded"))
    assert capable.handle(result(is_error=True, text="API Error")) == [
        shown(T1),
        *failed_with(rec(f"{T1}:error", 1, C.SERVICE, ERROR, OVERLOADED_TEXT, RETRY, K.OVERLOADED)),
    ]


# --- docs/decisions.md#details: details -----------------------------------------------------------


def test_long_claude_text_splits_into_title_and_details(capable: SessionCore) -> None:
    explanation = "Your request was rejected because " + "it was long " * 30
    text = f"API Error: 400 invalid request.\n\n{explanation.strip()}"
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    capable.handle(said(text, model=SYN, error="invalid_request"))
    assert capable.handle(result(is_error=True, text=text)) == [
        shown(T1),
        *failed_with(
            rec(
                f"{T1}:error",
                1,
                C.REQUEST,
                ERROR,
                "API Error: 400 invalid request.",
                NONE,
                K.BAD_REQUEST,
                details=explanation.strip(),
            )
        ),
    ]


def test_fallback_explanation_goes_to_details(capable: SessionCore) -> None:
    assert capable.handle(fell_back("The request touched a restricted topic.")) == published(
        rec(
            notice_id(1),
            1,
            C.UNKNOWN,
            WARNING,
            FALLBACK_TEXT,
            NONE,
            K.ADVISORY,
            details="The request touched a restricted topic.",
        )
    )


# --- Claude Code's internal diagnostics -----------------------------------------------------------

KEPT_PLANNING = "[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use"


def test_a_turn_the_users_answer_stopped_is_cancelled_without_a_record(
    capable: SessionCore, legacy: SessionCore
) -> None:
    # "No, keep planning" denies ExitPlanMode with an interrupt; Claude Code then ends the cycle
    # with this diagnostic as its only error. The user stopped the turn: `cancelled`, no record.
    for core in (capable, legacy):
        core.handle(PromptSent(turn_id=T1))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id=T1))
        core.handle(said("Here is my plan."))
        effects = core.handle(
            result(subtype="error_during_execution", is_error=True, errors=(KEPT_PLANNING,))
        )
        assert effects == [shown(T1), WITHDRAW, settled(T1, StopReason.CANCELLED)]


def test_a_diagnostic_line_never_titles_a_record(capable: SessionCore) -> None:
    # Another diagnostic (not the user's stop) is a failure, titled without the internal line.
    crash = "[ede_diagnostic] result_type=assistant last_content_type=text stop_reason=null"
    capable.handle(PromptSent(turn_id=T1))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T1))
    effects = capable.handle(
        result(
            subtype="error_during_execution",
            is_error=True,
            errors=(crash, "[session_crash] worker gone"),
        )
    )
    assert effects == [
        shown(T1),
        *failed_with(
            rec(
                f"{T1}:error",
                1,
                C.SERVICE,
                ERROR,
                "The model provider reported an error.",
                RETRY,
                K.PROVIDER_ERROR,
            )
        ),
    ]
    # The same in a success-shaped result's text.
    capable.handle(PromptSent(turn_id=T2))
    capable.handle(PromptEchoed(epoch=capable.epoch, turn_id=T2))
    effects = capable.handle(result(is_error=True, text=crash))
    assert "ede_diagnostic" not in str(effects)
