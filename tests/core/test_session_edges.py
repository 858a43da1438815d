"""Edges of the session core found by the stateful search and review, each pinned down."""

from __future__ import annotations

from fsm import PromptEchoed
from fsm.claude.replay import ActiveScan, ReplayPlanner
from fsm.claude.transcript_entries import parse_entry
from fsm.effects import (
    CloseOpenCalls,
    ForwardAssistantMessage,
    LogNotice,
    PublishRecord,
    SendAgentText,
    SettlePrompt,
    StopReason,
    WithdrawQuestions,
)
from fsm.events import (
    AssistantMessageReceived,
    DeliveryConfirmed,
    HistoryFailureFound,
    PromptSent,
    ResultReceived,
    RuntimeStarted,
)
from fsm.session import SessionCore
from fsm.vocabulary import Category, FailureKind, Severity
from tests.support.session_narrative import SHOWN_OWN, shown

CLOSE = CloseOpenCalls()

E = "epoch-1"
LIMIT = "You've hit your individual spend limit \u00b7 run /usage-credits to ask your admin"


def _core(capable: bool = True) -> SessionCore:
    return SessionCore(session_id="sess", epoch=E, capable=capable)


def _said(text: str, model: str, error: str | None = None) -> AssistantMessageReceived:
    return AssistantMessageReceived(
        epoch=E, model=model, text=text, text_block_count=1, error=error
    )


def test_failure_message_then_quiet_result_still_fails_the_turn() -> None:
    core = _core()
    core.handle(PromptSent(turn_id="P"))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id="P"))
    # The prose is withheld for the record...
    assert core.handle(_said(LIMIT, "<synthetic>", error="rate_limit")) == []
    # ...so a result that does not call itself an error must not leave the client with nothing.
    owner, withdraw, effect = core.handle(
        ResultReceived(epoch=E, subtype="success", is_error=False)
    )
    assert (owner, withdraw) == (shown("P"), WithdrawQuestions())
    assert isinstance(effect, SettlePrompt) and effect.record is not None
    assert effect.record.kind is FailureKind.QUOTA_EXHAUSTED
    assert effect.record.title == LIMIT
    assert effect.stop_reason is StopReason.END_TURN


def test_a_real_answer_after_a_failure_message_means_the_turn_got_past_it() -> None:
    core = _core()
    core.handle(PromptSent(turn_id="P"))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id="P"))
    core.handle(_said("API Error: 529 Overloaded", "<synthetic>", error="overloaded"))
    # docs/decisions.md#error-prose-without-record: the withheld error prose becomes no record now,
    # so it goes out first, in place.
    assert core.handle(_said("Here it is after all.", "claude-sonnet-4-5")) == [
        SendAgentText(text="API Error: 529 Overloaded"),
        ForwardAssistantMessage(),
    ]
    assert core.handle(ResultReceived(epoch=E, subtype="success", is_error=False)) == [
        shown("P"),
        WithdrawQuestions(),
        SettlePrompt(stop_reason=StopReason.END_TURN, turn_id="P"),
    ]
    assert core.active() == []


def test_failure_prose_with_no_live_turn_is_a_session_record_or_legacy_prose() -> None:
    # docs/decisions.md#failures-between-turns (it changed how docs/decisions.md#capable-clients was
    # read here): a capable client gets a session-scoped record classified as in a turn, and not the
    # prose as well.
    core = _core()
    [publish] = core.handle(_said("API Error: 500", "<synthetic>", error="server_error"))
    assert isinstance(publish, PublishRecord)
    assert (publish.record.id, publish.record.title, publish.record.category) == (
        "sess:session-error:epoch-1:1",
        "API Error: 500",
        Category.SERVICE,
    )
    # The error result that follows is the same failure: no second record.
    core.handle(DeliveryConfirmed(id=publish.record.id, revision=1))
    assert core.handle(ResultReceived(epoch=E, subtype="success", is_error=True)) == [
        SHOWN_OWN,
        CLOSE,
    ]
    # A legacy client keeps the prose (docs/decisions.md#legacy-clients).
    legacy = _core(capable=False)
    assert legacy.handle(_said("API Error: 500", "<synthetic>", error="server_error")) == [
        ForwardAssistantMessage(mask=True),  # Claude's error prose (docs/decisions.md#secrets)
        LogNotice(message="a failure with no live turn"),
    ]
    legacy.close()
    # The login prompt is never prose, turn or no turn.
    login = "Please run /login \u00b7 API key is invalid"
    assert core.handle(_said(login, "<synthetic>")) == []


def test_the_same_runtime_starting_twice_does_not_reset_its_counter() -> None:
    core = _core()
    first = core.handle(ResultReceived(epoch=E, subtype="success", is_error=True, result="x"))
    [owner, close, publish] = first
    assert (owner, close) == (SHOWN_OWN, CLOSE)
    assert isinstance(publish, PublishRecord)
    assert publish.record.id == "sess:session-error:epoch-1:1"
    assert core.handle(RuntimeStarted(epoch=E)) == [
        LogNotice(message="ignored a second start of the same runtime")
    ]
    again = core.handle(ResultReceived(epoch=E, subtype="success", is_error=True, result="y"))
    assert again[:2] == [SHOWN_OWN, CLOSE] and isinstance(again[2], PublishRecord)
    assert again[2].record.id == "sess:session-error:epoch-1:2"


def test_a_blank_history_title_falls_back_and_leaves_no_half_made_incident() -> None:
    core = _core()
    [effect] = core.handle(HistoryFailureFound(id="P:error", title="   ", active=True))
    assert isinstance(effect, PublishRecord)
    assert effect.record.title == "The Claude account has no available quota."
    assert (effect.record.category, effect.record.severity) == (Category.LIMIT, Severity.ERROR)
    core.handle(DeliveryConfirmed(id="P:error", revision=1))
    assert [r.id for r in core.active()] == ["P:error"]


def _entry(kind: str, uuid: str, text: str, model: str | None = None) -> dict[str, object]:
    message: dict[str, object] = {"role": kind, "content": [{"type": "text", "text": text}]}
    if model is not None:
        message["model"] = model
    return {"type": kind, "uuid": uuid, "message": message}


def test_two_usage_limits_after_one_prompt_get_distinct_ids_and_replay_cleanly() -> None:
    lines = [
        _entry("user", "P", "hello"),
        _entry("assistant", "A1", LIMIT, "<synthetic>"),
        _entry("assistant", "A2", LIMIT, "<synthetic>"),
    ]
    entries = [parse_entry(line) for line in lines]
    scan = ActiveScan()
    for entry in entries:
        scan.feed(entry)
    planner = ReplayPlanner(session_id="sess", capable=True, active_uuid=scan.active_uuid)
    actions = [planner.plan(entry) for entry in entries]
    assert [a.failure_id for a in actions if a.restore] == ["P:error", "sess:history-error:A2"]
    assert [a.active for a in actions if a.restore] == [False, True]
    # Through the core: the first resolves on delivery, the second stays active; no error.
    core = _core()
    for action in actions:
        if action.restore:
            [publish] = core.handle(
                HistoryFailureFound(id=action.failure_id, title=action.title, active=action.active)
            )
            assert isinstance(publish, PublishRecord)
            core.handle(DeliveryConfirmed(id=publish.record.id, revision=1))
    assert [r.id for r in core.active()] == ["sess:history-error:A2"]
