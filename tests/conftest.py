"""Suite-wide set-up: whatever a test's child processes leave in the temp directory stays in
pytest's own temporary tree (which pytest prunes), never in the system's `/tmp`.

A process killed by a test (SIGKILL leaves a `tempfile.TemporaryDirectory` behind) used to leave
`claude-acp-*` folders in the system temp directory; children inherit `TMPDIR` from here, and
`tests.support.harness.spawn_adapter` passes it explicitly to the adapters it spawns.

Under `pytest -n N` (what `tests/run.py` runs), the tests of a module that share an expensive
module-scoped fixture (a demo run of every scenario, an adapter on the real CLI) run on one
worker, so the fixture is built once rather than once per worker (which modules those are is read
from the test files), and the slower tiers start first, so that none of them is the last thing the
run waits for.

The real-Claude-Code tier's banner lives here too, in the conftest every pytest process loads
(the controller of a `pytest -n N` run collects nothing and never loads `tests/real_claude/`'s
own conftest): where the bundled CLI is missing, the summary says loudly that the tier did not
run.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

from adapter.scripted_claude.scenarios import SCENARIO_MODULES_ENV
from tests.real_claude.banner import pytest_terminal_summary
from tests.support import depth
from tests.support.scheduling import shared_fixture_modules

if TYPE_CHECKING:
    from tests.support.harness import AdapterPool

__all__ = [
    "adapters",
    "contained_temp_dir",
    "is_end_to_end",
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_itemcollected",
    "pytest_terminal_summary",
    "pytest_xdist_make_scheduler",
]

# This suite's own scripted-Claude scenarios (the seeded random sessions), which the product does
# not ship: every launcher a test writes names them (tests/support/scripted/).
os.environ[SCENARIO_MODULES_ENV] = "tests.support.scripted"

# The order work is handed out in: the tiers whose tests take longest first (a real Claude Code,
# then the subprocesses), the in-process tiers last; within a tier, the modules that go to one
# worker whole (below) first, since each is the largest unit of work. Order only, and stable: a
# module's own order is kept, and nothing hand-kept can rot.
TIER_ORDER = ("real_claude", "e2e", "shell", "core")
TESTS = Path(__file__).resolve().parent

# Modules whose tests share an expensive module-scoped fixture (every demo run, an adapter on the
# real CLI, the adapters of `adapters`): their tests go to one worker together, so the fixture is
# built once, not per worker. Derived from the test files themselves (tests/support/scheduling.py),
# because the xdist controller, which hands out the work, collects nothing.
# (xdist's own `loadgroup` cannot do this under pytest 9: it renames items through an attribute
# pytest no longer reads.)
SHARED_FIXTURE_MODULES = shared_fixture_modules(TESTS)


def _rank(item: pytest.Item) -> tuple[int, int]:
    path = item.path.resolve()
    tier = path.relative_to(TESTS).parts[0]
    position = TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER)
    whole = path.relative_to(TESTS.parent).as_posix() in SHARED_FIXTURE_MODULES
    return position, 0 if whole else 1


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `-n N` (xdist's default `load`): each module of `SHARED_FIXTURE_MODULES` is one unit
    of work, every other test its own, handed out in collection order (longest first, below)."""
    if config.getvalue("dist") != "load":
        return None  # an explicit --dist choice stands
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class SharedFixtureScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module.startswith(SHARED_FIXTURE_MODULES) else nodeid

    config.option.loadscopereorder = False  # keep the tier order
    return SharedFixtureScheduling(config, log)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--deep",
        action="store_true",
        help="the core's volume and randomized tests at their deep budgets "
        "(tests/support/depth.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Before collection, in the controller and in every xdist worker (each gets the options).
    depth.configure(deep=bool(config.getoption("--deep")))


# The tiers by folder: whatever lives here runs real subprocesses and is marked `e2e` by its path
# (`pytest -m "not e2e"` runs the core and the in-process shell alone); nothing else may be.
E2E_FOLDERS = ("e2e", "real_claude")


def is_end_to_end(path: Path) -> bool:
    relative = path.resolve().relative_to(TESTS)
    return relative.parts[0] in E2E_FOLDERS


def pytest_itemcollected(item: pytest.Item) -> None:
    if is_end_to_end(item.path):
        item.add_marker(pytest.mark.e2e)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: a module's own order is kept


@pytest.fixture(scope="session", autouse=True)
def contained_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = str(tmp_path_factory.mktemp("tmpdir"))
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = folder
    yield folder
    if saved is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = saved
    tempfile.tempdir = None


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def adapters(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AdapterPool]:
    """A module's shared adapters (tests/support/harness.py `AdapterPool`). Its tests run on the
    module's event loop (`@pytest.mark.asyncio(loop_scope="module")`); the module then goes to
    one worker whole (`SHARED_FIXTURE_MODULES` finds it)."""
    # Imported here: xdist's controller loads this file too, and the harness imports `acp`.
    from tests.support.harness import AdapterPool

    async with AdapterPool(tmp_path_factory.mktemp("shared-adapters")) as pool:
        yield pool
