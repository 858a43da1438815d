"""The pure core alone: events/s through `SessionCore.handle`, and memory per incident.

No I/O: events are built up front and fed the way `adapter.session.session.Session.feed` does,
with a `DeliveryConfirmed` for every `PublishRecord` (the shell reports each send). Two turn shapes:

- failing turn (an incident): PromptSent, two 429 `api_retry` warnings (each published and
  confirmed), the synthetic rate-limit assistant message and its `is_error` result, which
  settles the prompt with the record revised to an error: 7 events.
- good turn: PromptSent, a real assistant message, a success result: 3 events.

Memory: `tracemalloc` growth of one `SessionCore` over N incidents, divided by N, for
(a) turn incidents (each later turn's result resolves the previous one, so state should stay
bounded) and (b) session-scoped incidents that stay active (errors with no live turn, which
only a real model answer resolves), the worst case a long session can accumulate.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
import uuid
from dataclasses import dataclass

from adapter.scripted_claude.texts import TEXTS
from fsm import (
    AssistantMessageReceived,
    DeliveryConfirmed,
    Effect,
    Event,
    PromptSent,
    PublishRecord,
    ResultReceived,
    RetryAttempted,
    RuntimeStarted,
    SessionCore,
)

__all__ = ["CoreResult", "run_core"]

_EPOCH = "bench-epoch"
_RATE = TEXTS["rate_limit"]


@dataclass(frozen=True, slots=True)
class CoreResult:
    events: int
    seconds: float
    incidents: int
    turn_incident_bytes: float  # growth per failing turn (resolved by later turns)
    turn_growth_kib: tuple[tuple[int, float], ...]  # (incidents, total growth KiB), 2 sizes
    active_incident_bytes: float  # growth per session-scoped incident left active
    turn_incident_peak_kib: float  # tracemalloc peak while feeding the turn incidents

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else float("nan")

    @property
    def microseconds_per_event(self) -> float:
        return self.seconds / self.events * 1e6 if self.events else float("nan")


def _failing_turn(turn_id: str) -> list[Event]:
    retries: list[Event] = [
        RetryAttempted(
            epoch=_EPOCH, attempt=n, max_retries=10, error_status=429, error="rate_limit"
        )
        for n in (1, 2)
    ]
    return [
        PromptSent(turn_id=turn_id),
        *retries,
        AssistantMessageReceived(
            epoch=_EPOCH, model="<synthetic>", text=_RATE, text_block_count=1, error="rate_limit"
        ),
        ResultReceived(epoch=_EPOCH, subtype="success", is_error=True, result=_RATE),
    ]


def _good_turn(turn_id: str) -> list[Event]:
    return [
        PromptSent(turn_id=turn_id),
        AssistantMessageReceived(
            epoch=_EPOCH, model="claude-sonnet-4-5", text="Done.", text_block_count=1
        ),
        ResultReceived(epoch=_EPOCH, subtype="success", is_error=False, result="Done."),
    ]


def _new_core() -> SessionCore:
    core = SessionCore(session_id=str(uuid.uuid4()), epoch=_EPOCH, capable=True)
    core.handle(RuntimeStarted(epoch=_EPOCH))
    return core


def _feed(core: SessionCore, events: list[Event]) -> int:
    """Feed like the shell does; returns how many events went in (confirmations included)."""
    fed = 0
    for event in events:
        pending: list[Effect] = core.handle(event)
        fed += 1
        while pending:
            effect = pending.pop(0)
            if isinstance(effect, PublishRecord):
                record = effect.record
                pending.extend(
                    core.handle(DeliveryConfirmed(id=record.id, revision=record.revision))
                )
                fed += 1
    return fed


def _growth(build: list[list[Event]]) -> tuple[float, float]:
    """(bytes per batch, peak KiB) of feeding `build` into one fresh core."""
    core = _new_core()
    _feed(core, build[0])  # first-use allocations are not per incident
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for events in build[1:]:
            _feed(core, events)
        gc.collect()
        after, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return (after - before) / max(1, len(build) - 1), peak / 1024


def run_core(turns: int = 20_000, memory_incidents: int = 2_000) -> CoreResult:
    ids = [str(uuid.uuid4()) for _ in range(turns)]
    batches = [_failing_turn(t) if i % 2 == 0 else _good_turn(t) for i, t in enumerate(ids)]
    core = _new_core()
    _feed(core, [e for batch in batches[:200] for e in batch])  # warm-up
    core = _new_core()
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        events = 0
        for batch in batches:
            events += _feed(core, batch)
        seconds = time.perf_counter() - started
    finally:
        gc.enable()
    incidents = (turns + 1) // 2

    growth: list[tuple[int, float]] = []
    turn_bytes = turn_peak = 0.0
    for n in (memory_incidents, memory_incidents * 4):
        failing = [_failing_turn(str(uuid.uuid4())) for _ in range(n + 1)]
        per, peak = _growth(failing)
        growth.append((n, per * n / 1024))
        if n == memory_incidents:
            turn_bytes, turn_peak = per, peak
    scoped: list[list[Event]] = [
        [ResultReceived(epoch=_EPOCH, subtype="success", is_error=True, result=_RATE)]
        for _ in range(memory_incidents + 1)
    ]
    active_bytes, _ = _growth(scoped)
    return CoreResult(
        events=events,
        seconds=seconds,
        incidents=incidents,
        turn_incident_bytes=turn_bytes,
        turn_growth_kib=tuple(growth),
        active_incident_bytes=active_bytes,
        turn_incident_peak_kib=turn_peak,
    )
