"""The first request that opens a session imports the session side with the cyclic garbage
collector paused, and the collector comes back, with what the imports made frozen, once the
session is built or the request is over (`adapter.agent.session_opener.opens_a_session`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from acp import RequestError

from adapter import lean_imports
from adapter.agent import session_opener


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def first_session(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """As in a process that has opened no session yet; the cache's installs are recorded."""
    installs: list[str] = []
    monkeypatch.setattr(session_opener, "_side", session_opener._SessionSide())
    monkeypatch.setattr(lean_imports, "_paused", [])
    monkeypatch.setattr(lean_imports, "cache_dataclass_code", lambda: installs.append("cache"))
    assert gc.isenabled()
    yield installs
    gc.enable()
    gc.unfreeze()  # this test process's objects go back to being collected


@pytest.mark.anyio
async def test_the_collector_waits_until_the_first_session_is_built(
    first_session: list[str],
) -> None:
    seen: list[bool] = []

    @session_opener.opens_a_session
    async def open_one(name: str) -> str:
        seen.append(gc.isenabled())
        session_opener.session_side_imported()  # what SessionOpener.new says once it built it
        seen.append(gc.isenabled())
        return name

    frozen = gc.get_freeze_count()
    assert await open_one("s") == "s"
    assert seen == [False, True]
    assert gc.get_freeze_count() > frozen  # what the imports made is frozen
    assert first_session == ["cache"]
    # A later opening imports nothing more: the collector runs throughout.
    seen.clear()
    assert await open_one("t") == "t"
    assert seen == [True, True] and first_session == ["cache"]


@pytest.mark.anyio
async def test_a_first_opening_that_fails_brings_the_collector_back(
    first_session: list[str],
) -> None:
    @session_opener.opens_a_session
    async def refused() -> None:
        assert not gc.isenabled()
        raise RequestError.invalid_params({"cwd": "must be an absolute path"})

    with pytest.raises(RequestError):
        await refused()
    assert gc.isenabled()

    # The session side is still to be imported: the next opening pauses the collector again,
    # and puts the cache in place (idempotent) again.
    @session_opener.opens_a_session
    async def opened() -> bool:
        return gc.isenabled()

    assert await opened() is False and gc.isenabled()
    assert first_session == ["cache", "cache"]
