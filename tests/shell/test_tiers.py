"""The test tiers are folders: `tests/e2e/` and `tests/real_claude/` are marked `e2e` by their
path (tests/conftest.py), and no module elsewhere marks itself, so that `pytest -m "not e2e"`
is exactly the core and the in-process shell; and the core's deep budgets (`--deep`,
tests/support/depth.py) are what the whole check plays."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import E2E_FOLDERS, is_end_to_end
from tests.run import PYTEST
from tests.support import depth

TESTS = Path(__file__).resolve().parents[1]
OUTSIDE = sorted(
    path
    for path in TESTS.rglob("test_*.py")
    if not is_end_to_end(path) and "__pycache__" not in path.parts
)


def _marks_e2e(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "e2e"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
    ]


def test_the_tiers_are_the_folders() -> None:
    assert {"core", "shell"} <= {p.relative_to(TESTS).parts[0] for p in OUTSIDE}
    assert all((TESTS / folder).is_dir() for folder in E2E_FOLDERS)
    assert is_end_to_end(TESTS / "e2e" / "test_smoke.py")
    assert not is_end_to_end(TESTS / "core" / "test_purity.py")


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_module_outside_the_e2e_folders_marks_itself_e2e(path: Path) -> None:
    assert _marks_e2e(path) == []


def test_the_check_sees_a_mark(tmp_path: Path) -> None:
    planted = tmp_path / "test_x.py"
    planted.write_text("import pytest\npytestmark = pytest.mark.e2e\n", encoding="utf-8")
    assert _marks_e2e(planted) == [2]


def test_the_depth_switch_follows_the_option_in_this_process(pytestconfig: pytest.Config) -> None:
    # Under `-n N` this runs in a worker: the option must have reached it before collection.
    assert depth.is_deep() is bool(pytestconfig.getoption("--deep"))
    assert depth.budget(quick=1, deep=2) == (2 if depth.is_deep() else 1)


def test_the_whole_check_plays_the_deep_budgets() -> None:
    # `python3 tests/run.py` is the gate; a bare `pytest tests/core` is the quick loop.
    assert "--deep" in PYTEST
