"""The real-Claude-Code tier's fixtures, and its refusal to pass silently where it cannot run.

Where claude-agent-sdk ships no bundled CLI for this platform (or it does not run), every test
of the tier is skipped with that reason, and the pytest summary ends with a banner saying so
(`banner.py`, hooked in from `tests/conftest.py` so that it works under xdist too).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.real_claude.api_double import MessagesApiDouble
from tests.real_claude.support import MISSING_REASON, real_adapter
from tests.support.harness import Adapter

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents and MISSING_REASON is not None:
            item.add_marker(pytest.mark.skip(reason=MISSING_REASON))


@pytest.fixture(scope="module")
def double() -> Iterator[MessagesApiDouble]:
    with MessagesApiDouble() as api:
        yield api


@pytest.fixture(autouse=True)
def _fresh_script(double: MessagesApiDouble) -> Iterator[None]:
    """Each test scripts its own replies; none may leave loopback or ask for the unscripted."""
    double.reset()
    yield
    assert double.escapes == [], f"the CLI tried to reach beyond loopback: {double.escapes}"
    assert double.pending == 0, "the CLI did not ask for every reply the test scripted"
    unexpected = [
        (r.method, r.path)
        for r in double.requests
        if not r.is_messages and not r.is_title and not r.is_count
    ]
    assert unexpected == [], f"the CLI asked the API double for more than messages: {unexpected}"


@pytest.fixture(scope="module", params=["capable", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def adapter(
    mode: str, double: MessagesApiDouble, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Adapter]:
    """One adapter process per module and client mode (Claude Code starts slowly)."""
    async with real_adapter(
        tmp_path_factory.mktemp(f"real-{mode}"), double, capable=mode == "capable"
    ) as running:
        yield running
