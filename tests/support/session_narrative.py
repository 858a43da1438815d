"""Building blocks for the `SessionCore` narratives in `tests/core/session/`: the ids and
texts the stories reuse, event makers with the common case as default, and expected records
spelled out field by field. No tests."""

from __future__ import annotations

from fsm import (
    AUTH_REQUIRED_MESSAGE,
    Action,
    AssistantMessageReceived,
    Blame,
    Category,
    CloseOpenCalls,
    DeliveryConfirmed,
    Effect,
    FailureKind,
    FailureRecord,
    ForwardAssistantMessage,
    LogNotice,
    ModelFellBack,
    PublishRecord,
    RejectPrompt,
    ResultReceived,
    RetryAttempted,
    SessionCore,
    SettlePrompt,
    Severity,
    ShowResult,
    StopReason,
    WithdrawQuestions,
)

SID = "sess-1"
E1 = "epoch-1"
E2 = "epoch-2"
T1 = "turn-1"
T2 = "turn-2"
T3 = "turn-3"
REAL = "claude-sonnet-4-5"
SYN = "<synthetic>"

ERROR = Severity.ERROR
WARNING = Severity.WARNING
K = FailureKind
C = Category
RETRY = (Action.RETRY,)
LOGIN = (Action.LOGIN,)
NEW = (Action.NEW_SESSION,)
NONE: tuple[Action, ...] = ()

FORWARD = ForwardAssistantMessage()
# Claude's error prose, forwarded masked (docs/decisions.md#secrets).
FORWARD_MASKED = ForwardAssistantMessage(mask=True)
# Every row that ends a turn takes back its open questions before its one answer.
WITHDRAW = WithdrawQuestions()
END_TURN = SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=T1)
# A result no prompt owns ends its work's open cards (docs/decisions.md#own-work-ends-its-cards).
CLOSE = CloseOpenCalls()

SPEND_LIMIT = (
    "You've hit your individual spend limit \u00b7 run /usage-credits to ask your admin for a "
    "higher limit"
)
LOGIN_TEXT = "Not logged in \u00b7 Please run /login"
# Its record's title: what happened, without the terminal-only /login step.
LOGIN_TITLE = "Not logged in"
OVERLOADED_TEXT = "API Error: 529 Overloaded. Please try again later."


def said(
    text: str,
    *,
    model: str | None = REAL,
    error: str | None = None,
    blocks: int = 1,
    epoch: str = E1,
    top_level: bool = True,
    stop_reason: str | None = None,
    refusal_explanation: str | None = None,
) -> AssistantMessageReceived:
    return AssistantMessageReceived(
        epoch=epoch,
        model=model,
        text=text,
        text_block_count=blocks,
        error=error,
        top_level=top_level,
        stop_reason=stop_reason,
        refusal_explanation=refusal_explanation,
    )


def result(
    *,
    subtype: str = "success",
    is_error: bool = False,
    text: str | None = None,
    errors: tuple[str, ...] = (),
    stop_reason: str | None = None,
    origin_kind: str | None = None,
    epoch: str = E1,
) -> ResultReceived:
    return ResultReceived(
        epoch=epoch,
        subtype=subtype,
        is_error=is_error,
        result=text,
        errors=errors,
        stop_reason=stop_reason,
        origin_kind=origin_kind,
    )


def retried(
    attempt: int,
    *,
    status: int | None = 529,
    error: str | None = "overloaded",
    max_retries: int = 10,
    epoch: str = E1,
) -> RetryAttempted:
    return RetryAttempted(
        epoch=epoch,
        attempt=attempt,
        max_retries=max_retries,
        error_status=status,
        error=error,
    )


def fell_back(explanation: str | None = None, *, epoch: str = E1) -> ModelFellBack:
    return ModelFellBack(
        epoch=epoch,
        original_model="claude-opus-4-1",
        fallback_model="claude-sonnet-4-5",
        refusal_category="cyber",
        explanation=explanation,
    )


FALLBACK_TEXT = (
    "claude-opus-4-1 declined this request (cyber); retried with claude-sonnet-4-5. "
    "The session will continue on claude-sonnet-4-5."
)


def rec(
    id: str,
    revision: int,
    category: Category,
    severity: Severity,
    title: str,
    actions: tuple[Action, ...],
    kind: FailureKind,
    details: str | None = None,
) -> FailureRecord:
    """An expected record, every field spelled out."""
    return FailureRecord(
        id=id,
        revision=revision,
        category=category,
        severity=severity,
        title=title,
        details=details,
        actions=actions,
        kind=kind,
    )


def settled(turn_id: str, stop_reason: StopReason = StopReason.END_TURN) -> SettlePrompt:
    """The answer to prompt `turn_id`, no record on it."""
    return SettlePrompt(stop_reason=stop_reason, turn_id=turn_id)


def recovered(*ids: str) -> LogNotice:
    """What the core logs when active records stopped being active (recovery publishes
    nothing)."""
    return LogNotice(message=f"no longer active: {sorted(ids)}")


def failed_with(record: FailureRecord, turn_id: str = T1) -> list[Effect]:
    return [WITHDRAW, SettlePrompt(stop_reason=StopReason.END_TURN, turn_id=turn_id, record=record)]


def published(record: FailureRecord) -> list[Effect]:
    return [PublishRecord(record=record)]


def confirm(core: SessionCore, record: FailureRecord) -> None:
    # The shell sent the session_info_update: report it, which answers nothing.
    assert core.handle(DeliveryConfirmed(id=record.id, revision=record.revision)) == []


def session_error_id(n: int, epoch: str = E1) -> str:
    return f"{SID}:session-error:{epoch}:{n}"


def notice_id(n: int, epoch: str = E1) -> str:
    return f"{SID}:notice:{epoch}:{n}"


AUTH_REJECTION = RejectPrompt(blame=Blame.AUTH, message=AUTH_REQUIRED_MESSAGE, turn_id=T1)


# Whose a result is, the core's first word on every result (docs/decisions.md#result-owner):
# Claude's own work (no prompt's), or the prompt `turn_id`'s.
SHOWN_OWN = ShowResult()


def shown(turn_id: str = T1) -> ShowResult:
    """The result is prompt `turn_id`'s: its text may be that turn's answer, its tokens count."""
    return ShowResult(turn_id=turn_id)
