"""What a closed session leaves behind (nothing per closed session).

The core's machines are shared `transitions` machines that hold their models strongly, so a
session whose core was never detached stayed alive, core and all, for the process's life; and
the agent remembers closed ids only up to a bound. The resident set of a real agent over
hundreds of closed sessions and load/fork rounds is measured in `tests/e2e/test_memory.py`.
"""

from __future__ import annotations

import gc
import weakref

import anyio
import pytest

from adapter.agent.session_opener import ClosedIds
from fsm import RuntimeStarted
from fsm.notices import NOTICE_MACHINE
from fsm.runtime import RUNTIME_MACHINE
from fsm.turn import TURN_MACHINE
from tests.support.shell_harness import EPOCH, session_with_fakes


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_closed_session_detaches_its_core_and_is_freed() -> None:
    async with session_with_fakes() as (session, _, _, _):
        core = session.core
        assert core.turn in TURN_MACHINE.models and core.runtime in RUNTIME_MACHINE.models
        assert core.notices_routing in NOTICE_MACHINE.models
    # `session_with_fakes` closed it on the way out.
    assert core.turn not in TURN_MACHINE.models
    assert core.runtime not in RUNTIME_MACHINE.models
    assert core.notices_routing not in NOTICE_MACHINE.models
    # A late fact (a reader's last frame) is dropped, never fed to the detached core.
    await session.feed(RuntimeStarted(epoch=EPOCH))
    assert core.runtime not in RUNTIME_MACHINE.models
    gone = weakref.ref(session)
    del session, core
    await anyio.sleep(0)
    gc.collect()
    assert gone() is None, [type(r).__name__ for r in gc.get_referrers(gone())]


@pytest.mark.anyio
async def test_a_session_replaced_by_a_load_or_resume_detaches_its_core() -> None:
    # `session/load` or `session/resume` of a live session shuts the old one down and never
    # closes it: each replaced session's core stayed attached to the shared machines.
    async with session_with_fakes() as (session, _, _, _):
        core = session.core
        await session.shutdown(grace=None)
        assert core.turn not in TURN_MACHINE.models
        assert core.runtime not in RUNTIME_MACHINE.models
        assert core.notices_routing not in NOTICE_MACHINE.models
    gone = weakref.ref(session)
    del session, core
    await anyio.sleep(0)
    gc.collect()
    assert gone() is None, [type(r).__name__ for r in gc.get_referrers(gone())]


@pytest.mark.anyio
async def test_closing_twice_detaches_once() -> None:
    async with session_with_fakes() as (session, _, _, _):
        await session.close()
    # the fixture's own close ran too, without `remove_model` raising for a model gone


def test_closed_ids_keep_the_newest_ones_only() -> None:
    closed = ClosedIds(kept=3)
    for n in range(5):
        closed.add(f"s{n}")
    assert len(closed) == 3
    assert "s0" not in closed and "s1" not in closed
    assert all(f"s{n}" in closed for n in (2, 3, 4))
    closed.add("s2")  # closed again: now the newest, so s3 is the oldest
    closed.add("s5")
    assert "s3" not in closed and "s2" in closed
    closed.discard("s2")
    assert "s2" not in closed and len(closed) == 2
