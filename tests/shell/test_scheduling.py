"""The scheduling of `pytest -n N` is derived, not kept by hand (tests/conftest.py): the modules
that go to one worker whole are the ones whose tests request a module-scoped fixture, found by
reading the files (tests/support/scheduling.py), and the work is handed out in tier order."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SHARED_FIXTURE_MODULES, TESTS, TIER_ORDER
from tests.support.scheduling import shared_fixture_modules

# The list tests/conftest.py kept by hand until the derivation replaced it.
HAND_WRITTEN = (
    "tests/e2e/test_demo.py",
    "tests/e2e/test_conformance.py",
    "tests/e2e/test_agent_error.py",
    "tests/e2e/test_failure_matrix.py",
    "tests/e2e/test_claude_faults.py",
    "tests/e2e/test_adapter_pool.py",
    "tests/e2e/test_protocol.py",
    "tests/e2e/test_concurrency.py",
)


def test_the_derivation_finds_the_hand_written_list() -> None:
    assert set(HAND_WRITTEN) <= set(SHARED_FIXTURE_MODULES)
    # The hand-written "tests/real_claude/" stood for every module of that folder.
    real = {f"tests/real_claude/{p.name}" for p in (TESTS / "real_claude").glob("test_*.py")}
    assert real <= set(SHARED_FIXTURE_MODULES)
    # Two modules with module-scoped fixtures of their own that the hand-written list missed.
    assert {"tests/e2e/test_wire_guard.py", "tests/e2e/test_initialize_fuzz.py"} <= set(
        SHARED_FIXTURE_MODULES
    )
    # And nothing in process: those tiers share no expensive fixture.
    assert [m for m in SHARED_FIXTURE_MODULES if m.split("/")[1] in ("core", "shell")] == []


def _plant(root: Path, files: dict[str, str]) -> tuple[str, ...]:
    tests = root / "tests"
    for name, text in files.items():
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).write_text(text, encoding="utf-8")
    return shared_fixture_modules(tests)


FIXTURE = "import pytest\n\n@pytest.fixture(scope={scope!r})\ndef {name}():\n    return 1\n"


def test_a_module_scoped_fixture_is_found_wherever_it_is_defined(tmp_path: Path) -> None:
    found = _plant(
        tmp_path,
        {
            "conftest.py": FIXTURE.format(scope="module", name="pool"),
            "a/conftest.py": FIXTURE.format(scope="module", name="folder_wide")
            + "\n@pytest.fixture\ndef through(pool):\n    return pool\n",
            "a/test_own.py": FIXTURE.format(scope="module", name="own")
            + "\ndef test_x(own):\n    pass\n",
            "a/test_folder.py": "def test_x(folder_wide):\n    pass\n",
            "a/test_through.py": "class TestX:\n    def test_x(self, through):\n        pass\n",
            "b/test_root.py": "async def test_x(pool):\n    pass\n",
            "b/test_plain.py": "def test_x(tmp_path):\n    pass\n",
            "b/test_function.py": FIXTURE.format(scope="function", name="pool")
            + "\ndef test_x(pool):\n    pass\n",
            "c/conftest.py": "import pytest\n\n@pytest.fixture(autouse=True)\n"
            "def each(pool):\n    yield\n",
            "c/test_autouse.py": "def test_x():\n    pass\n",
        },
    )
    assert found == (
        "tests/a/test_folder.py",
        "tests/a/test_own.py",
        "tests/a/test_through.py",
        "tests/b/test_root.py",
        "tests/c/test_autouse.py",
    )


def test_every_tier_has_its_place_in_the_order() -> None:
    tiers = {p.name for p in TESTS.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert tiers == set(TIER_ORDER)
