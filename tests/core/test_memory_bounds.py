"""Bounded memory: a session with many failing turns holds about what a session with ten does.

Every failing turn creates an incident. Once it is resolved (the next attempt's result, a new
runtime, a successful auth_status) only the record the client already has is history, and the
ledger keeps a short window of those (`fsm.ledger.HISTORY_LIMIT`); nothing about a resolved
incident may pile up: not in the ledger, not in the machines' model registries, not in the
session core. Measured here with `tracemalloc` over `SessionCore` driven directly with events,
capable and legacy, through a cycle of failure kinds that each resolve the way
docs/decisions.md#recovery says. The resident set of a real adapter process over many failing turns
is measured in `tests/e2e/test_memory.py`.

How many turns: 10,000 (3,000 with notices) under `--deep`, as the whole check runs it, and
1,000 otherwise (tests/support/depth.py). The allowance is per turn, so both budgets flag the
same leak: anything near 200 bytes a turn; and 1,000 turns overflow every bounded window
(`HISTORY_LIMIT`, `NOTICE_LIMIT`) dozens of times. Most of the time is `tracemalloc`'s, not the
core's.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from fsm.effects import Effect, PublishRecord, RejectPrompt, SettlePrompt
from fsm.events import (
    AssistantMessageReceived,
    AuthStatusReported,
    ClaudeSilent,
    DeliveryConfirmed,
    DeliveryFailed,
    Event,
    ModelFellBack,
    PromptEchoed,
    PromptSent,
    ResultReceived,
    RetryAttempted,
    RuntimeStarted,
    StreamEnded,
    TransportLost,
    TurnWentIdle,
    WorkerShuttingDown,
)
from fsm.incident import INCIDENT_MACHINE
from fsm.ledger import HISTORY_LIMIT, NOTICE_LIMIT
from fsm.session import SessionCore
from fsm.vocabulary import FailureKind
from tests.support.depth import budget

MB = 1024 * 1024
SYN = "<synthetic>"
REAL = "claude-sonnet-4-5"
# "Within a few MB": 2 MB for 9,990 more failing turns than the baseline, in bytes per turn.
ALLOWANCE_PER_TURN = 2 * MB / 10_000
TURNS = budget(quick=1_000, deep=10_000)
# With a notice every ninth turn each result scans more active incidents, so fewer turns; the
# allowance is the same 2 MB as 10,000 plain turns get, spread over these.
NOTICE_TURNS = budget(quick=1_000, deep=3_000)
NOTICE_ALLOWANCE_PER_TURN = 2 * MB / 3_000


class _Driver:
    """Plays failing turns into one core the way the shell does: every PublishRecord is
    reported back (delivered, or failed when `lose` says so), a dead runtime is replaced before
    the next prompt, and each prompt gets exactly one answer."""

    def __init__(self, core: SessionCore, *, notices: bool = False) -> None:
        self.core = core
        self.notices = notices
        self.turns = 0
        self.epochs = 0
        self.answers = 0
        self.epoch = core.epoch

    def _feed(self, event: Event, *, lose: bool = False) -> None:
        for effect in self.core.handle(event):
            self._perform(effect, lose)

    def _perform(self, effect: Effect, lose: bool) -> None:
        if isinstance(effect, PublishRecord):
            record = effect.record
            report = DeliveryFailed if lose else DeliveryConfirmed
            for follow in self.core.handle(report(id=record.id, revision=record.revision)):
                self._perform(follow, lose)
        elif isinstance(effect, SettlePrompt | RejectPrompt):
            self.answers += 1

    def _said(self, text: str, *, error: str | None, model: str = SYN) -> AssistantMessageReceived:
        return AssistantMessageReceived(
            epoch=self.epoch, model=model, text=text, text_block_count=1, error=error
        )

    def _failed_result(self, subtype: str = "success", text: str = "") -> ResultReceived:
        return ResultReceived(
            epoch=self.epoch, subtype=subtype, is_error=True, result=text, errors=(text,)
        )

    def _retry(self, attempt: int, status: int | None) -> RetryAttempted:
        return RetryAttempted(
            epoch=self.epoch,
            attempt=attempt,
            max_retries=10,
            error_status=status,
            error="overloaded" if status else None,
            retry_delay_ms=500,
        )

    def _new_runtime(self) -> None:
        self.epochs += 1
        self.epoch = f"epoch-{self.epochs}"
        self._feed(RuntimeStarted(epoch=self.epoch))

    def turn(self) -> None:
        """One failing turn; the kind cycles through every way a turn fails."""
        if self.core.runtime_lost:
            self._new_runtime()
        self.turns += 1
        turn_id = f"{self.turns:08d}-turn-uuid-0000-000000000000"
        self._feed(PromptSent(turn_id=turn_id))
        self._feed(PromptEchoed(epoch=self.epoch, turn_id=turn_id))
        kind = self.turns % 9
        if kind == 0:  # retries that escalate to a rate-limit error
            self._feed(self._retry(1, 429))
            self._feed(self._retry(2, 429))
            self._feed(self._said("API Error: Request rejected (429)", error="rate_limit"))
            self._feed(self._failed_result(text="API Error: Request rejected (429)"))
        elif kind == 1:  # a retry whose delivery failed, then a server error
            self._feed(self._retry(1, 529), lose=True)
            self._feed(self._said("API Error: 500 Internal server error.", error="server_error"))
            self._feed(self._failed_result(text="API Error: 500 Internal server error."))
        elif kind == 2:  # a first answer, silence, then idle without a result
            self._feed(self._said("Here is the first part.", error=None, model=REAL))
            self._feed(ClaudeSilent(epoch=self.epoch, waited_seconds=120))
            self._feed(TurnWentIdle(epoch=self.epoch))
        elif kind == 3:  # the stream ends cleanly mid-turn
            self._feed(StreamEnded(epoch=self.epoch))
        elif kind == 4:  # the process dies after a reconnect warning
            self._feed(self._retry(1, None))
            self._feed(TransportLost(epoch=self.epoch))
        elif kind == 5:  # a configured limit
            self._feed(self._failed_result("error_max_turns", "Reached maximum number of turns"))
        elif kind == 6:  # (a model-fallback notice,) then overloaded
            if self.notices:
                self._feed(
                    ModelFellBack(
                        epoch=self.epoch,
                        original_model="claude-opus-4-5",
                        fallback_model="claude-sonnet-4-5",
                    )
                )
            self._feed(self._said("API Error: 529 Overloaded.", error="overloaded"))
            self._feed(self._failed_result(text="API Error: 529 Overloaded."))
        elif kind == 7:  # worker shutdown
            self._feed(WorkerShuttingDown(epoch=self.epoch))
            self._feed(StreamEnded(epoch=self.epoch))
        else:  # authentication, then a successful auth_status
            self._feed(
                self._said("Invalid API key · Fix external API key", error="authentication_failed")
            )
            self._feed(self._failed_result(text="Invalid API key · Fix external API key"))
            self._feed(AuthStatusReported(epoch=self.epoch, is_authenticating=False))


def _held_after(turns: int, *, capable: bool, notices: bool) -> tuple[int, _Driver]:
    """Bytes still allocated (traced) after `turns` failing turns, with the core alive."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    core = SessionCore(session_id="memory-session", epoch="epoch-0", capable=capable)
    driver = _Driver(core, notices=notices)
    for _ in range(turns):
        driver.turn()
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    return held, driver


def _measure(*, capable: bool, notices: bool = False, turns: int) -> tuple[int, int, _Driver]:
    tracemalloc.start()
    try:
        # Warm every code path (caches, interned strings, the machines' lazy state) first.
        _held_after(200, capable=capable, notices=notices)[1].core.close()
        small, small_driver = _held_after(10, capable=capable, notices=notices)
        small_driver.core.close()
        large, driver = _held_after(turns, capable=capable, notices=notices)
    finally:
        tracemalloc.stop()
    return small, large, driver


@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
def test_many_failing_turns_hold_what_ten_do(capable: bool) -> None:
    small, large, driver = _measure(capable=capable, turns=TURNS)
    try:
        assert driver.answers == TURNS  # one answer per prompt, all along
        ledger = driver.core.ledger
        assert len(ledger.history()) <= HISTORY_LIMIT
        assert len(ledger.active()) <= 2, ledger.active()
        held = f"{small / 1024:.1f} KiB after 10 turns, {large / 1024:.1f} KiB after {TURNS:,}"
        print(f"\ncore: {held}")
        assert large - small < ALLOWANCE_PER_TURN * TURNS, (small, large)
    finally:
        driver.core.close()


def test_model_fallback_notices_do_not_pile_up() -> None:
    # The same cycle, with a model-fallback notice in every ninth turn. A notice never recovers
    # (docs/decisions.md#recovery), but each runtime mints a new notice id even for the same title
    # (docs/decisions.md#session-scoped-ids), so unless a newer notice retires the older one, every
    # runtime replacement that saw a fallback leaves one more active incident behind for the rest of
    # the session. A few hundred notices are enough to see it (and with one more active incident per
    # notice, every result scans them all, so 10,000 turns take long).
    small, large, driver = _measure(capable=True, notices=True, turns=NOTICE_TURNS)
    try:
        active = driver.core.ledger.active()
        print(f"\nwith notices: {small / 1024:.1f} KiB after 10 turns, {large / 1024:.1f} KiB")
        print(f"after {NOTICE_TURNS:,} turns, {len(active)} active incidents")
        # Bounded: at most NOTICE_LIMIT notices stay active, older ones become history.
        notices = [r for r in active if r.kind is FailureKind.ADVISORY]
        assert len(notices) <= NOTICE_LIMIT, f"{len(notices)} active notices"
        assert len(active) - len(notices) <= 3, active
        assert large - small < NOTICE_ALLOWANCE_PER_TURN * NOTICE_TURNS, (small, large)
    finally:
        driver.core.close()


def test_resolved_incidents_leave_the_machine_registry() -> None:
    # The shared incident machine holds its models strongly: an incident never detached is
    # never freed, whatever the ledger forgets.
    gc.collect()
    before = len(INCIDENT_MACHINE.models)
    core = SessionCore(session_id="registry-session", epoch="epoch-0", capable=True)
    driver = _Driver(core)
    for _ in range(2_000):
        driver.turn()
    attached = len(INCIDENT_MACHINE.models) - before
    core.close()
    assert attached <= HISTORY_LIMIT + 2, attached
    assert len(INCIDENT_MACHINE.models) == before
