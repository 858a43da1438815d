"""The agent's task group is entered when something first uses it (adapter/app/serving.py,
`LateTaskGroup`): `initialize` is answered, and a first session's Claude spawned, before anyio's
asyncio backend (which the task group needs) is imported. A call started before then waits for
the group and starts, in order, once serving enters it."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from adapter.app.serving import LateTaskGroup


@pytest.mark.asyncio
async def test_calls_before_the_group_is_entered_start_in_order_once_it_is() -> None:
    late = LateTaskGroup()
    serving: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    needed = asyncio.ensure_future(late.until_needed(serving))
    await asyncio.sleep(0)
    assert not needed.done()  # nothing asked for it yet
    ran: list[str] = []

    async def note(word: str) -> None:
        ran.append(word)

    late.start_soon(note, "first")
    late.start_soon(note, "second")
    await needed  # asked for: serving enters it now
    assert ran == []
    with pytest.raises(RuntimeError, match="before it was entered"):
        _ = late.cancel_scope
    async with anyio.create_task_group() as tg:
        late.enter(tg)
        late.start_soon(note, "after")
        assert late.cancel_scope is tg.cancel_scope
    assert ran == ["first", "second", "after"]
    serving.cancel()


@pytest.mark.asyncio
async def test_start_waits_for_the_group_and_serving_ending_ends_the_wait() -> None:
    late = LateTaskGroup()

    async def ready(*, task_status: anyio.abc.TaskStatus[str]) -> None:
        task_status.started("ready")

    starting = asyncio.ensure_future(late.start(ready))
    serving: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    await late.until_needed(serving)  # `start` asked for it
    async with anyio.create_task_group() as tg:
        late.enter(tg)
        assert await starting == "ready"
    # Nothing asks for another one: the wait ends with serving.
    other = LateTaskGroup()
    serving.set_result(None)
    await other.until_needed(serving)
