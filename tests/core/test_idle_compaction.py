"""Idle compaction (`fsm/idle_compaction.py`): every row of the table on its own, then the
decision through the session core: when the session went idle, the deadline it sets, what
suppresses it, the one `/compact` per idle period, and a client prompt during it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fsm.effects import CompactWhenIdle, LogNotice, SendPrompt, SettlePrompt
from fsm.errors import PeerViolation
from fsm.events import (
    AnswerStreamStarted,
    CancelRequested,
    ContextMeasured,
    DeadlineReached,
    ModelChosen,
    OutputReceived,
    PromptReceived,
    PromptSent,
    RateLimitReported,
    ResultReceived,
    TransportLost,
    WorkerShuttingDown,
)
from fsm.idle_compaction import (
    IDLE_MACHINE,
    LAPSED_AFTER_SECONDS,
    TRANSITIONS,
    IdleCompaction,
    IdlePolicy,
    IdleState,
    _Fact,
)
from fsm.machine import expanded
from fsm.session import SessionCore

RULES = expanded(TRANSITIONS)
E = "epoch-1"
DELAY = 3240.0  # the default: 0.9 h


@pytest.fixture
def model() -> Iterator[IdleCompaction]:
    idle = IdleCompaction(IdlePolicy())
    yield idle
    idle.detach()
    assert idle not in IDLE_MACHINE.models


def _guards(rule: dict[str, Any]) -> dict[str, bool]:
    return {
        **dict.fromkeys(rule.get("conditions", []), True),
        **dict.fromkeys(rule.get("unless", []), False),
    }


@pytest.mark.parametrize(("index", "row"), list(enumerate(RULES)))
def test_row_is_reachable_runs_its_callbacks_and_moves(
    model: IdleCompaction, index: int, row: dict[str, Any]
) -> None:
    # The row's guards hold, each earlier row of its state and trigger fails on a guard this
    # one does not pin, exactly its callbacks run, and the machine ends where the row says.
    guards = _guards(row)
    for other in RULES[:index]:
        if (other["source"], other["trigger"]) != (row["source"], row["trigger"]):
            continue
        free = [(g, v) for g, v in _guards(other).items() if g not in guards]
        assert free, f"row {index} is shadowed by row {RULES.index(other)}"
        guards[free[0][0]] = not free[0][1]
    for name, value in guards.items():
        setattr(model, name, lambda *_, v=value: v)
    called: list[str] = []
    for name in {n for r in RULES for n in r.get("before", [])}:
        setattr(model, name, lambda *_, n=name: called.append(n))
    IDLE_MACHINE.set_state(row["source"], model=model)
    model.fire(row["trigger"], _Fact(now=1.0))
    assert called == row.get("before", [])
    assert model.state is (row["dest"] or row["source"])


def test_every_state_and_trigger_ends_in_an_unguarded_row() -> None:
    pairs = {(r["source"], r["trigger"]) for r in RULES}
    assert len(pairs) == len(IdleState) * 5  # every state answers every trigger
    for source, trigger in pairs:
        last = [r for r in RULES if (r["source"], r["trigger"]) == (source, trigger)][-1]
        assert not last.get("conditions") and not last.get("unless")


def test_a_context_size_is_a_whole_number_of_tokens() -> None:
    for bad in (-1, True, 1.5):
        with pytest.raises(PeerViolation):
            ContextMeasured(epoch=E, tokens=bad)  # type: ignore[arg-type]


# --- through the core ---------------------------------------------------------------------


def _core(policy: IdlePolicy | None = None) -> SessionCore:
    return SessionCore(session_id="s", epoch=E, capable=True, idle=policy or IdlePolicy())


@pytest.fixture
def core() -> Iterator[SessionCore]:
    session = _core()
    yield session
    session.close()


def _turn(
    core: SessionCore,
    turn_id: str,
    *,
    at: float,
    tokens: int | None,
    by_adapter: bool = False,
    ttl: str | None = "1h",
    before_result: tuple[Any, ...] = (),
) -> list[Any]:
    """One whole turn: received, sent at `at`, Claude's request started at `at + 0.5` (its
    `message_start`), its result at `at + 1` with the context it reports."""
    effects = core.handle(PromptReceived(turn_id=turn_id, by_adapter=by_adapter))
    assert SendPrompt(turn_id=turn_id) in effects
    effects = core.handle(PromptSent(turn_id=turn_id, now=at))
    effects += _request(core, at + 0.5)
    for event in before_result:
        effects += core.handle(event)
    effects += core.handle(OutputReceived(epoch=E, now=at + 1))
    if tokens is not None:
        effects += core.handle(ContextMeasured(epoch=E, tokens=tokens, cache_ttl=ttl))
    return effects + core.handle(ResultReceived(epoch=E, subtype="success", is_error=False))


def _request(core: SessionCore, at: float) -> list[Any]:
    """Claude's top-level `message_start`, heard at `at`."""
    effects = core.handle(OutputReceived(epoch=E, now=at))
    return effects + core.handle(AnswerStreamStarted(epoch=E, model="claude-sonnet-4-5"))


def _logs(effects: list[Any]) -> list[str]:
    return [e.message for e in effects if isinstance(e, LogNotice)]


def _state(core: SessionCore) -> IdleState:
    assert core.idle.machine is not None
    return core.idle.machine.state


def test_a_full_context_left_idle_compacts_once_at_the_deadline(core: SessionCore) -> None:
    effects = _turn(core, "t1", at=100.0, tokens=210_000)
    assert any(isinstance(e, SettlePrompt) for e in effects)
    # The deadline counts from the start of Claude's last request (the cache was written then).
    assert core.next_deadline() == 100.5 + DELAY
    assert core.handle(DeadlineReached(now=100.5 + DELAY - 1)) == []
    assert core.handle(DeadlineReached(now=100.5 + DELAY)) == [CompactWhenIdle(number=1)]
    assert core.next_deadline() is None
    # The shell's own turn: sent like any prompt; its end spends the idle period.
    effects = _turn(core, "own", at=4000.0, tokens=9000, by_adapter=True)
    assert any(isinstance(e, SettlePrompt) for e in effects)
    assert _state(core) is IdleState.SPENT
    assert core.next_deadline() is None
    assert core.handle(DeadlineReached(now=99_999.0)) == []
    # The client's next prompt opens a new period (its context is small now: no deadline).
    effects = _turn(core, "t2", at=5000.0, tokens=9500)
    assert _logs(effects) == [
        "idle compaction skipped: context 9500 tokens is below the 200000 minimum"
    ]
    assert core.next_deadline() is None


def test_a_client_prompt_before_the_deadline_ends_the_idle_period(core: SessionCore) -> None:
    _turn(core, "t1", at=100.0, tokens=250_000)
    assert core.next_deadline() == 100.5 + DELAY
    core.handle(PromptReceived(turn_id="t2"))
    assert core.next_deadline() is None
    assert _state(core) is IdleState.WAITING


@pytest.mark.parametrize("event", [ModelChosen(), CancelRequested(now=500.0)])
def test_a_model_chosen_or_a_cancel_while_idle_ends_the_idle_period(
    core: SessionCore, event: Any
) -> None:
    _turn(core, "t1", at=100.0, tokens=250_000)
    core.handle(event)
    assert core.next_deadline() is None
    assert core.handle(DeadlineReached(now=100.5 + DELAY)) == []
    # The next turn opens a new period.
    _turn(core, "t2", at=600.0, tokens=250_000)
    assert core.next_deadline() == 600.5 + DELAY


def test_a_client_prompt_during_the_idle_compaction_waits_for_it(core: SessionCore) -> None:
    _turn(core, "t1", at=100.0, tokens=250_000)
    assert core.handle(DeadlineReached(now=100.5 + DELAY)) == [CompactWhenIdle(number=1)]
    assert SendPrompt(turn_id="own") in core.handle(PromptReceived(turn_id="own", by_adapter=True))
    assert _state(core) is IdleState.COMPACTING
    core.handle(PromptSent(turn_id="own", now=4000.0))
    # The client's prompt is queued behind the adapter's turn, not sent.
    assert core.handle(PromptReceived(turn_id="t2")) == []
    effects = core.handle(ResultReceived(epoch=E, subtype="success", is_error=False))
    assert effects[-1] == SendPrompt(turn_id="t2")
    # The live turn (the adapter's) is settled; the client's is not.
    assert [e.turn_id for e in effects if isinstance(e, SettlePrompt)] == ["own"]
    # The client's turn's own end opens the next idle period, as any turn's does.
    core.handle(PromptSent(turn_id="t2", now=4100.0))
    _request(core, 4100.5)
    core.handle(OutputReceived(epoch=E, now=4101.0))
    core.handle(ContextMeasured(epoch=E, tokens=250_000))
    core.handle(ResultReceived(epoch=E, subtype="success", is_error=False))
    assert core.next_deadline() == 4100.5 + DELAY


def test_a_cancel_during_the_idle_compaction_answers_the_queued_prompt(
    core: SessionCore,
) -> None:
    _turn(core, "t1", at=100.0, tokens=250_000)
    core.handle(DeadlineReached(now=100.5 + DELAY))
    core.handle(PromptReceived(turn_id="own", by_adapter=True))
    core.handle(PromptSent(turn_id="own", now=4000.0))
    core.handle(PromptReceived(turn_id="t2"))
    effects = core.handle(CancelRequested(now=4001.0))
    assert [e.turn_id for e in effects if isinstance(e, SettlePrompt)] == ["t2"]


@pytest.mark.parametrize("status", ["allowed_warning", "rejected"])
def test_a_rate_limit_other_than_allowed_suppresses_it(core: SessionCore, status: str) -> None:
    limit = RateLimitReported(epoch=E, status=status, now=100.7, wall=1.7e9)
    effects = _turn(core, "t1", at=100.0, tokens=250_000, before_result=(limit,))
    assert f"idle compaction skipped: rate limit status is {status}" in _logs(effects)
    assert _state(core) is IdleState.WAITING and core.next_deadline() is None


def test_a_rate_limit_while_idle_is_checked_at_the_deadline(core: SessionCore) -> None:
    _turn(core, "t1", at=100.0, tokens=250_000)
    core.handle(RateLimitReported(epoch=E, status="rejected", now=200.0, wall=1.7e9))
    effects = core.handle(DeadlineReached(now=100.5 + DELAY))
    assert not any(isinstance(e, CompactWhenIdle) for e in effects)
    assert "idle compaction skipped: rate limit status is rejected" in _logs(effects)
    assert _state(core) is IdleState.SPENT


def test_an_allowed_status_keeps_it(core: SessionCore) -> None:
    limit = RateLimitReported(epoch=E, status="allowed", now=100.7, wall=1.7e9)
    _turn(core, "t1", at=100.0, tokens=200_000, before_result=(limit,))  # exactly the minimum
    assert core.handle(DeadlineReached(now=100.5 + DELAY)) == [CompactWhenIdle(number=1)]


def test_a_deadline_long_past_finds_the_cache_gone(core: SessionCore) -> None:
    _turn(core, "t1", at=100.0, tokens=250_000)
    late = 100.5 + DELAY + LAPSED_AFTER_SECONDS + 1
    effects = core.handle(DeadlineReached(now=late))
    assert not any(isinstance(e, CompactWhenIdle) for e in effects)
    assert _logs(effects) == [
        "idle compaction skipped: the deadline passed more than 60 s ago (the cache has expired)"
    ]


@pytest.mark.parametrize(("ttl", "said"), [("5m", "5m"), (None, "unknown")])
def test_only_a_one_hour_cache_is_worth_compacting_for(
    core: SessionCore, ttl: str | None, said: str
) -> None:
    effects = _turn(core, "t1", at=100.0, tokens=250_000, ttl=ttl)
    assert _logs(effects) == [f"idle compaction skipped: cache TTL is {said}, not 1h"]
    assert core.next_deadline() is None


def test_a_request_that_does_not_say_keeps_the_cache_ttl(core: SessionCore) -> None:
    _turn(core, "t1", at=100.0, tokens=150_000)  # too small, but its cache lives an hour
    _turn(core, "t2", at=200.0, tokens=250_000, ttl=None)
    assert core.next_deadline() == 200.5 + DELAY


def test_a_turn_that_made_no_request_starts_no_idle_period(core: SessionCore) -> None:
    # A local command's turn: Claude answered without asking the model.
    core.handle(PromptReceived(turn_id="t1"))
    core.handle(PromptSent(turn_id="t1", now=100.0))
    core.handle(OutputReceived(epoch=E, now=100.5))
    core.handle(ContextMeasured(epoch=E, tokens=250_000, cache_ttl="1h"))
    effects = core.handle(ResultReceived(epoch=E, subtype="success", is_error=False))
    assert _logs(effects) == ["idle compaction skipped: no request recorded in this process"]
    assert core.next_deadline() is None


def test_a_busy_or_broken_session_is_not_compacted(core: SessionCore) -> None:
    _turn(core, "t1", at=100.0, tokens=250_000)
    # Claude's process went away while the session sat idle: nothing to compact with.
    core.handle(TransportLost(epoch=E))
    effects = core.handle(DeadlineReached(now=100.5 + DELAY))
    assert not any(isinstance(e, CompactWhenIdle) for e in effects)
    assert (
        _logs(effects)[-1] == "idle compaction skipped: the session is busy or cannot take a prompt"
    )
    assert _state(core) is IdleState.WAITING


def test_a_worker_shutting_down_is_not_asked_to_compact(core: SessionCore) -> None:
    _turn(core, "t1", at=100.0, tokens=250_000)
    core.handle(WorkerShuttingDown(epoch=E))
    effects = core.handle(DeadlineReached(now=100.5 + DELAY))
    assert not any(isinstance(e, CompactWhenIdle) for e in effects)


def test_settings_that_turn_it_off_never_arm_it() -> None:
    core = _core(IdlePolicy(disabled_by="the idleCompaction setting"))
    try:
        effects = _turn(core, "t1", at=100.0, tokens=250_000)
        assert _logs(effects) == ["idle compaction skipped: disabled by the idleCompaction setting"]
        assert core.next_deadline() is None
    finally:
        core.close()


def test_the_policy_sets_the_delay_and_the_minimum() -> None:
    core = _core(IdlePolicy(delay_seconds=0.5, min_tokens=300_000))
    try:
        _turn(core, "t1", at=100.0, tokens=250_000)
        assert core.next_deadline() is None  # below this policy's minimum
        _turn(core, "t2", at=200.0, tokens=300_000)
        assert core.next_deadline() == 201.0
    finally:
        core.close()


def test_a_core_without_a_policy_never_compacts_when_idle() -> None:
    core = SessionCore(session_id="s", epoch=E, capable=True)
    try:
        effects = _turn(core, "t1", at=100.0, tokens=250_000)
        assert _logs(effects) == [] and core.next_deadline() is None
        assert core.handle(DeadlineReached(now=1e6)) == []
    finally:
        core.close()


def test_closing_the_session_detaches_its_idle_model() -> None:
    core = _core()
    _turn(core, "t1", at=100.0, tokens=250_000)
    machine = core.idle.machine
    assert machine is not None and machine in IDLE_MACHINE.models
    core.close()
    assert machine not in IDLE_MACHINE.models


def test_settings_read_again_count_at_the_next_deadline(core: SessionCore) -> None:
    # docs/decisions.md#settings-read-again: the user turned idle compaction off (or raised its
    # threshold) after the idle period began; the deadline goes by the settings as they are now.
    from fsm.events import IdleSettingsRead

    _turn(core, "t1", at=100.0, tokens=250_000)
    core.handle(IdleSettingsRead(policy=IdlePolicy(disabled_by="the idleCompaction setting")))
    effects = core.handle(DeadlineReached(now=100.5 + DELAY))
    assert not any(isinstance(e, CompactWhenIdle) for e in effects)
    assert _logs(effects) == ["idle compaction skipped: disabled by the idleCompaction setting"]
    assert _state(core) is IdleState.WAITING and core.next_deadline() is None
    # Turned on again: the next idle period counts.
    core.handle(IdleSettingsRead(policy=IdlePolicy()))
    _turn(core, "t2", at=200.0, tokens=250_000)
    core.handle(IdleSettingsRead(policy=IdlePolicy(min_tokens=300_000)))
    effects = core.handle(DeadlineReached(now=200.5 + DELAY))
    assert _logs(effects) == [
        "idle compaction skipped: context 250000 tokens is below the 300000 minimum"
    ]
    core.handle(IdleSettingsRead(policy=IdlePolicy()))
    _turn(core, "t3", at=300.0, tokens=250_000)
    assert core.handle(DeadlineReached(now=300.5 + DELAY)) == [CompactWhenIdle(number=1)]


def test_settings_read_again_before_the_turn_ends_decide_its_idle_period(
    core: SessionCore,
) -> None:
    from fsm.events import IdleSettingsRead

    core.handle(IdleSettingsRead(policy=IdlePolicy(disabled_by="DISABLE_COMPACT")))
    effects = _turn(core, "t1", at=100.0, tokens=250_000)
    assert _logs(effects) == ["idle compaction skipped: disabled by DISABLE_COMPACT"]
    assert core.next_deadline() is None
