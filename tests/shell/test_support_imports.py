"""No test module imports from another test module: what tests share lives in `tests/support/`
(or a tier's own helper modules, such as `tests/real_claude/support.py`).

A helper kept in a test module and imported by another makes one module's tests a dependency of
another's, collects the first module's fixtures and markers into the second, and hides the
helper where nobody looks for it. This reads the imports of every `tests/**/test_*.py` with `ast`
(module level, inside functions and under `TYPE_CHECKING`) and fails on any of a test module.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _is_test_module(dotted: str) -> bool:
    return any(part.startswith("test_") for part in dotted.split("."))


def imported_test_modules(source: str, package: str) -> list[str]:
    """The modules of tests that `source` (a module of `package`, dotted) imports from."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if _is_test_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the module's own package
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            names = [base, *(f"{base}.{a.name}" for a in node.names)]
            found += [name for name in names if _is_test_module(name)][:1]
    return found


def test_the_scan_finds_every_form_of_import() -> None:
    source = """
import tests.e2e.test_turn
from tests.e2e.test_questions import FormClient
from tests.e2e import test_protocol
from .test_asking import AskedClient
from tests.support.harness import Adapter
import json

def later():
    from tests.core.test_tables import RULES
"""
    assert imported_test_modules(source, "tests.real_claude") == [
        "tests.e2e.test_turn",
        "tests.e2e.test_questions",
        "tests.e2e.test_protocol",
        "tests.real_claude.test_asking",
        "tests.core.test_tables",
    ]


def test_no_test_module_imports_another() -> None:
    modules = sorted(TESTS.rglob("test_*.py"))
    assert len(modules) > 100  # the walk found the suite
    offenders = {
        path.relative_to(TESTS).as_posix(): imported
        for path in modules
        if (
            imported := imported_test_modules(
                path.read_text(encoding="utf-8"),
                ".".join(["tests", *path.relative_to(TESTS).parent.parts]),
            )
        )
    }
    assert offenders == {}, "move the shared helpers to tests/support/"
