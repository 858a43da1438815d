"""The session openings a signal ends (`SessionOpener.opening`, `end_all`), in process: one under
way is cancelled and answered -32800, one asked for after is refused -32800 before it starts,
and any other cancellation stays a cancellation (docs/decisions.md#openings-at-exit). The signal
itself, with a real Claude held before its handshake, is end to end: tests/e2e/test_signals.py."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from acp import RequestError

from adapter.agent.session_opener import SessionOpener


def _opener() -> SessionOpener:
    # Opening itself is not exercised: only the requests' guard.
    return SessionOpener(task_group=cast(Any, None), settings=cast(Any, None), link=cast(Any, None))


@pytest.mark.asyncio
async def test_an_opening_under_way_is_answered_minus_32800_when_the_adapter_ends() -> None:
    opener = _opener()
    started = asyncio.Event()
    reached: list[str] = []

    async def opening() -> None:
        with opener.opening():
            started.set()
            await asyncio.Event().wait()  # Claude's start-up, never over
            reached.append("after the start-up")

    task = asyncio.ensure_future(opening())
    await started.wait()
    opener.end_all()
    with pytest.raises(RequestError) as refused:
        await task
    assert refused.value.code == -32800 and "shutting down" in str(refused.value)
    assert reached == [] and task.cancelling() == 0  # answered, not left cancelling

    with pytest.raises(RequestError) as later, opener.opening():
        reached.append("a later opening")
    assert later.value.code == -32800 and reached == []


@pytest.mark.asyncio
async def test_any_other_cancellation_of_an_opening_stays_a_cancellation() -> None:
    opener = _opener()
    started = asyncio.Event()

    async def opening() -> None:
        with opener.opening():
            started.set()
            await asyncio.Event().wait()

    task = asyncio.ensure_future(opening())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    opener.end_all()  # nothing under way any more: nothing to cancel
    assert task.cancelled()
