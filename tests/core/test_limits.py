"""Usage limits through `SessionCore.handle`: the early warning
(docs/decisions.md#early-limit-warning), the reset of a failed limit
(docs/decisions.md#limit-that-resets), transition by transition, with the core's own clock events.

Time is what the shell would report: monotonic seconds (`now`) and epoch seconds (`wall`),
here `wall = W0 + (now - 100)`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Sequence

import pytest

from fsm import PromptEchoed
from fsm.effects import LogNotice, PublishRecord, SendNotice, SettlePrompt, StopReason
from fsm.events import (
    AssistantMessageReceived,
    DeadlineReached,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    LimitWindow,
    PromptReceived,
    PromptSent,
    RateLimitReported,
    ResultReceived,
    RuntimeStarted,
)
from fsm.ledger import RESET_SENTENCE
from fsm.limits import MAX_WINDOWS, reset_clock, window_label
from fsm.records import FailureRecord
from fsm.session import SessionCore
from fsm.turn import TurnState
from fsm.vocabulary import Action, Category, FailureKind, Severity
from fsm.wire.dialects import AgentErrorDialect

SID, E1, E2 = "sess-1", "epoch-1", "epoch-2"
W0 = 1_796_160_000  # 2026-12-01 21:20 UTC
RESET = W0 + 2876  # 22:07:56 UTC, shown as 10:08pm
LIMIT_TEXT = "You've hit your 5-hour limit \u00b7 resets 10:08pm (UTC)"
WARN_92 = "You've used 92% of your 5-hour limit \u00b7 resets 10:08pm (UTC)"


def wall(now: float) -> float:
    return W0 + (now - 100)


def window(
    status: str = "allowed_warning",
    utilization: float | None = 0.92,
    resets_at: int | None = RESET,
    name: str = "five_hour",
) -> LimitWindow:
    return LimitWindow(name=name, status=status, utilization=utilization, resets_at=resets_at)


def reported(*windows: LimitWindow, now: float = 101.0, epoch: str = E1) -> RateLimitReported:
    rejected = [w for w in windows if w.status == "rejected"]
    first = rejected[0] if rejected else windows[0]
    return RateLimitReported(
        epoch=epoch,
        status=first.status,
        resets_at=first.resets_at,
        windows=windows,
        now=now,
        wall=wall(now),
        zone="UTC",
    )


def deadline(now: float) -> DeadlineReached:
    return DeadlineReached(now=now, wall=wall(now))


def limit_said(epoch: str = E1) -> AssistantMessageReceived:
    return AssistantMessageReceived(
        epoch=epoch, model="<synthetic>", text=LIMIT_TEXT, text_block_count=1, error="rate_limit"
    )


def error_result(epoch: str = E1) -> ResultReceived:
    return ResultReceived(epoch=epoch, subtype="success", is_error=True, result=LIMIT_TEXT)


def answered(text: str = "Hello.", epoch: str = E1) -> list[Event]:
    said = AssistantMessageReceived(
        epoch=epoch, model="claude-sonnet-4-5", text=text, text_block_count=1
    )
    return [said, ResultReceived(epoch=epoch, subtype="success", is_error=False, result=text)]


def make(*, capable: bool = True, notices: bool | None = None, acp: bool = False) -> SessionCore:
    return SessionCore(session_id=SID, epoch=E1, capable=capable, notices=notices, acp_notices=acp)


@pytest.fixture
def core() -> Iterator[SessionCore]:
    made = make()
    yield made
    made.close()


def start_turn(core: SessionCore, turn_id: str, now: float = 100.0) -> None:
    core.handle(PromptReceived(turn_id=turn_id))
    core.handle(PromptSent(turn_id=turn_id, now=now))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id=turn_id))


def publish(core: SessionCore, effects: Sequence[object]) -> FailureRecord:
    """The one record `effects` publish, reported delivered."""
    (effect,) = [e for e in effects if isinstance(e, PublishRecord)]
    core.handle(DeliveryConfirmed(id=effect.record.id, revision=effect.record.revision))
    return effect.record


def fail_on_the_limit(core: SessionCore, turn_id: str, now: float = 100.0) -> FailureRecord:
    """A turn that Claude rejects at the 5-hour limit (the rejection first, then its words)."""
    start_turn(core, turn_id, now)
    core.handle(reported(window("rejected", 1.0), now=now + 1))
    core.handle(limit_said())
    (settled,) = [e for e in core.handle(error_result()) if isinstance(e, SettlePrompt)]
    assert settled.record is not None and settled.turn_id == turn_id
    return settled.record


# --- titles -------------------------------------------------------------------------------------


def test_reset_clock_is_claude_codes_style() -> None:
    assert reset_clock(RESET, 0, "UTC", wall(100)) == "10:08pm (UTC)"
    on_the_hour = int(datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.UTC).timestamp())
    assert reset_clock(on_the_hour, 0, "UTC", None) == "9am (UTC)"
    assert reset_clock(on_the_hour, 3600, "Europe/Paris", None) == "10am (Europe/Paris)"
    assert reset_clock(on_the_hour - 9 * 3600, 0, "UTC", None) == "12am (UTC)"
    # More than a day ahead: the date first (a weekly window).
    assert reset_clock(on_the_hour + 6 * 86_400, 0, "UTC", on_the_hour) == "Dec 7, 9am (UTC)"


def test_window_names_read_as_claude_code_names_them() -> None:
    assert window_label("five_hour") == "5-hour"
    assert window_label("seven_day") == "weekly"
    assert window_label("seven_day_opus") == "weekly Opus"
    assert window_label("seven_day_haiku") == "seven-day haiku"  # unknown, still readable
    assert window_label("<script>") == "usage"


# --- the early warning (docs/decisions.md#early-limit-warning) ------------------------------------


def test_a_warning_window_is_one_limit_warning_in_the_notice_namespace(
    core: SessionCore,
) -> None:
    start_turn(core, "t1")
    effects = core.handle(reported(window(), window("allowed", 0.41, W0 + 400_000, "seven_day")))
    record = publish(core, effects)
    assert (record.id, record.revision) == (f"{SID}:notice:{E1}:1", 1)
    assert (record.category, record.severity, record.actions) == (
        Category.LIMIT,
        Severity.WARNING,
        (),
    )
    assert record.title == WARN_92
    # It never touches the turn, which goes on and ends as it would.
    assert core.turn_state is TurnState.RUNNING
    assert core.active() == [record]


def test_the_warning_is_revised_only_when_the_whole_percent_changes(core: SessionCore) -> None:
    first = publish(core, core.handle(reported(window(utilization=0.92))))
    assert core.handle(reported(window(utilization=0.925), now=102)) == []
    second = publish(core, core.handle(reported(window(utilization=0.93), now=103)))
    assert (second.id, second.revision) == (first.id, 2)
    assert second.title == WARN_92.replace("92%", "93%")


def test_a_new_reset_time_is_a_new_occurrence(core: SessionCore) -> None:
    first = publish(core, core.handle(reported(window())))
    later = publish(core, core.handle(reported(window(resets_at=RESET + 3600), now=102)))
    assert later.id != first.id and later.revision == 1
    assert later.title.endswith("resets 11:08pm (UTC)")
    assert core.active() == [later]  # the old one is history; nothing was published for it


def test_allowed_retires_the_warning_and_publishes_nothing(core: SessionCore) -> None:
    warning = publish(core, core.handle(reported(window())))
    allowed = reported(window("allowed", 0.1, RESET + 18_000), now=102)
    # Recovery publishes nothing; the log says so.
    assert core.handle(allowed) == [LogNotice(message=f"no longer active: {[warning.id]}")]
    assert core.active() == []
    assert core.next_deadline() is None


def test_the_warning_stops_being_active_at_its_reset_time(core: SessionCore) -> None:
    warning = publish(core, core.handle(reported(window())))
    due = 100 + (RESET - W0)
    assert core.next_deadline() == pytest.approx(due)
    assert core.handle(deadline(due - 1)) == []
    assert len(core.active()) == 1
    assert core.handle(deadline(due)) == [LogNotice(message=f"no longer active: {[warning.id]}")]
    assert core.active() == [] and core.next_deadline() is None


def test_a_failed_send_publishes_the_warning_again_at_the_next_percent(core: SessionCore) -> None:
    (effect,) = core.handle(reported(window()))
    assert isinstance(effect, PublishRecord)
    core.handle(DeliveryFailed(id=effect.record.id, revision=1))
    again = publish(core, core.handle(reported(window(utilization=0.95), now=102)))
    assert again.revision == 1 and core.active() == [again]


def test_legacy_and_agent_error_clients_get_nothing_for_a_warning() -> None:
    for made in (make(capable=False), make(capable=True, notices=False)):
        assert made.handle(reported(window())) == []
        assert made.active() == [] and made.next_deadline() is None
        made.close()


def test_an_acp_notices_client_gets_a_notice_once_per_percent() -> None:
    made = make(capable=False, acp=True)
    assert made.handle(reported(window())) == [SendNotice(severity="warning", title=WARN_92)]
    assert made.handle(reported(window(utilization=0.921), now=102)) == []
    (notice,) = made.handle(reported(window(utilization=0.97), now=103))
    assert isinstance(notice, SendNotice) and "97%" in notice.title
    made.close()


@pytest.mark.parametrize(
    "nonsense",
    [
        window(utilization=None),
        window(utilization=-0.5),
        window(resets_at=None),
        window(resets_at=W0 - 60),  # in the past
        window(resets_at=W0 + 400 * 86_400),  # far in the future
    ],
)
def test_nonsense_windows_make_no_record(core: SessionCore, nonsense: LimitWindow) -> None:
    assert core.handle(reported(nonsense)) == []
    assert core.active() == [] and core.next_deadline() is None


def test_an_unknown_window_is_warned_of_in_readable_words(core: SessionCore) -> None:
    record = publish(core, core.handle(reported(window(name="seven_day_haiku"))))
    assert record.title == WARN_92.replace("5-hour", "seven-day haiku")


def test_a_flood_of_window_names_is_bounded(core: SessionCore) -> None:
    names = [f"window_{n}" for n in range(MAX_WINDOWS + 5)]
    effects = core.handle(reported(*(window(name=name) for name in names)))
    assert len(effects) == MAX_WINDOWS


# --- the reset of a failed limit (docs/decisions.md#limit-that-resets) ----------------------------


def test_the_failure_carries_its_reset_and_agent_error_shows_it(core: SessionCore) -> None:
    record = fail_on_the_limit(core, "t1")
    assert (record.id, record.kind, record.actions) == ("t1:error", FailureKind.QUOTA_EXHAUSTED, ())
    assert record.reset_at_epoch_ms == RESET * 1000
    update = AgentErrorDialect().update_for(record)
    assert update is not None and update["error"]["reset_at_epoch_ms"] == RESET * 1000


def test_at_the_reset_the_same_record_says_so_once(core: SessionCore) -> None:
    failed = fail_on_the_limit(core, "t1")
    due = 100 + (RESET - W0)
    assert core.next_deadline() == pytest.approx(due)
    assert core.handle(deadline(due - 0.5)) == []
    (effect,) = core.handle(deadline(due))
    assert isinstance(effect, PublishRecord) and effect.agent_error is False
    reset = effect.record
    assert (reset.id, reset.revision, reset.category, reset.severity) == (
        failed.id,
        2,
        Category.LIMIT,
        Severity.ERROR,
    )
    assert reset.actions == (Action.RETRY,)
    assert reset.title == LIMIT_TEXT + RESET_SENTENCE
    core.handle(DeliveryConfirmed(id=reset.id, revision=2))
    # Once per incident; it stays active until a real answer (docs/decisions.md#recovery).
    assert core.next_deadline() is None
    assert core.handle(deadline(due + 60)) == []
    assert core.active() == [reset]


def test_a_real_answer_before_the_reset_cancels_it(core: SessionCore) -> None:
    fail_on_the_limit(core, "t1")
    start_turn(core, "t2", now=200)
    for event in answered():
        core.handle(event)
    assert core.active() == []
    assert core.next_deadline() is None
    assert core.handle(deadline(100 + RESET - W0)) == []


def test_a_replaced_runtime_cancels_the_reset(core: SessionCore) -> None:
    fail_on_the_limit(core, "t1")
    core.handle(RuntimeStarted(epoch=E2))
    assert len(core.active()) == 1  # the limit itself is still active
    assert core.next_deadline() is None
    assert core.handle(deadline(100 + RESET - W0)) == []


def test_a_closed_session_has_no_reset_to_wait_for() -> None:
    made = make()
    fail_on_the_limit(made, "t1")
    assert made.next_deadline() is not None
    made.close()
    assert made.next_deadline() is None


def test_a_later_rejection_moves_the_reset(core: SessionCore) -> None:
    fail_on_the_limit(core, "t1")
    later = RESET + 600
    core.handle(reported(window("rejected", 1.0, later), now=150))
    assert core.next_deadline() == pytest.approx(100 + later - W0)
    assert core.handle(deadline(100 + RESET - W0)) == []
    (effect,) = core.handle(deadline(100 + later - W0))
    assert isinstance(effect, PublishRecord) and effect.record.id == "t1:error"


def test_a_prompt_before_the_reset_fails_again_and_its_reset_is_tracked(
    core: SessionCore,
) -> None:
    fail_on_the_limit(core, "t1")
    # Claude Code reports a window only when its status changes: no new event this time.
    start_turn(core, "t2", now=300)
    core.handle(limit_said())
    (settled,) = [e for e in core.handle(error_result()) if isinstance(e, SettlePrompt)]
    assert settled.stop_reason is StopReason.END_TURN
    assert settled.record is not None and settled.record.id == "t2:error"
    assert settled.record.reset_at_epoch_ms == RESET * 1000
    # The newest failure carries the reset; nothing is published twice.
    (effect,) = core.handle(deadline(100 + RESET - W0))
    assert isinstance(effect, PublishRecord) and effect.record.id == "t2:error"
    core.handle(DeliveryConfirmed(id="t2:error", revision=2))
    assert core.handle(deadline(100 + RESET - W0 + 5)) == []


def test_a_prompt_after_the_reset_carries_no_stale_reset(core: SessionCore) -> None:
    fail_on_the_limit(core, "t1")
    due = 100 + RESET - W0
    publish(core, core.handle(deadline(due)))
    start_turn(core, "t2", now=due + 10)
    for event in answered():
        core.handle(event)
    assert core.active() == [] and core.next_deadline() is None


def test_an_agent_error_only_client_gets_no_reset_revision() -> None:
    made = make(capable=True, notices=False)
    record = fail_on_the_limit(made, "t1")
    assert record.reset_at_epoch_ms == RESET * 1000
    assert made.next_deadline() is None
    assert made.handle(deadline(100 + RESET - W0)) == []
    made.close()


def test_a_warning_is_not_a_rejection(core: SessionCore) -> None:
    start_turn(core, "t1")
    publish(core, core.handle(reported(window())))
    core.handle(limit_said())
    (settled,) = [e for e in core.handle(error_result()) if isinstance(e, SettlePrompt)]
    assert settled.record is not None
    assert settled.record.reset_at_epoch_ms is None  # only a rejected window's reset counts


# --- the window machine's table -----------------------------------------------------------------


def test_the_window_table_is_row_32() -> None:
    from fsm.limits import TRANSITIONS, WindowState

    q, w = WindowState.QUIET, WindowState.WARNED
    rows = [
        (r["trigger"], r["source"], r["dest"], tuple(r.get("conditions", ())), r.get("before"))
        for r in TRANSITIONS
    ]
    assert rows == [
        ("window_reported", q, w, ("is_a_warning", "takes_records"), ["warn", "record_warning"]),
        ("window_reported", q, w, ("is_a_warning",), ["warn", "send_notice"]),
        ("window_reported", q, None, (), None),
        ("window_reported", w, q, ("is_allowed",), ["retire_warning"]),
        (
            "window_reported",
            w,
            w,
            ("is_a_warning", "is_a_new_reset", "takes_records"),
            ["retire_warning", "warn", "record_warning"],
        ),
        (
            "window_reported",
            w,
            w,
            ("is_a_warning", "is_a_new_reset"),
            ["retire_warning", "warn", "send_notice"],
        ),
        (
            "window_reported",
            w,
            None,
            ("is_a_warning", "has_a_new_percent", "takes_records"),
            ["note_percent", "record_warning"],
        ),
        (
            "window_reported",
            w,
            None,
            ("is_a_warning", "has_a_new_percent"),
            ["note_percent", "send_notice"],
        ),
        ("window_reported", w, None, (), None),
        ("reset_passed", w, q, ("its_reset_passed",), ["retire_warning"]),
        ("reset_passed", [q, w], None, (), None),
    ]
