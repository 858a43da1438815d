"""Which test modules share a module-scoped fixture, found by reading the test files (`ast`), not
by collecting them: the controller of a `pytest -n N` run collects nothing, yet it is the one
that hands out work, so it must know without importing a test.

A module shares one when one of its tests requests, directly or through other fixtures (its
own, its folder's `conftest.py`'s or a parent folder's, autouse ones included), a fixture of
`scope="module"`, such as the `adapters` of `tests/conftest.py`. Such a module goes to one
worker whole (tests/conftest.py `pytest_xdist_make_scheduler`), so the fixture is built once.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["shared_fixture_modules"]


@dataclass(slots=True)
class _Fixtures:
    """The fixtures one file defines: each one's requested names, and which are module-scoped."""

    requests: dict[str, list[str]] = field(default_factory=dict)
    module_scoped: set[str] = field(default_factory=set)
    autouse: set[str] = field(default_factory=set)


def _fixture_call(decorator: ast.expr) -> ast.Call | ast.Attribute | None:
    """The decorator if it is `pytest.fixture` / `pytest_asyncio.fixture`, called or not."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute) and target.attr == "fixture":
        return decorator if isinstance(decorator, ast.Call) else target
    return None


def _keyword(call: ast.Call | ast.Attribute, name: str) -> object:
    if isinstance(call, ast.Call):
        for keyword in call.keywords:
            if keyword.arg == name and isinstance(keyword.value, ast.Constant):
                return keyword.value.value
    return None


def _arguments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = function.args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Module-level functions and the methods of module-level classes."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node)
        elif isinstance(node, ast.ClassDef):
            found.extend(
                n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            )
    return found


def _fixtures(tree: ast.Module) -> _Fixtures:
    fixtures = _Fixtures()
    for function in _functions(tree):
        for decorator in function.decorator_list:
            call = _fixture_call(decorator)
            if call is None:
                continue
            name = _keyword(call, "name")
            name = name if isinstance(name, str) else function.name
            fixtures.requests[name] = [a for a in _arguments(function) if a != "request"]
            if _keyword(call, "scope") == "module":
                fixtures.module_scoped.add(name)
            if _keyword(call, "autouse") is True:
                fixtures.autouse.add(name)
    return fixtures


def _merged(files: list[_Fixtures]) -> _Fixtures:
    """The fixtures a module sees, outermost conftest first, so nearer definitions override."""
    seen = _Fixtures()
    for fixtures in files:
        for name in fixtures.requests:
            seen.module_scoped.discard(name)
        seen.requests.update(fixtures.requests)
        seen.module_scoped |= fixtures.module_scoped
        seen.autouse |= fixtures.autouse
    return seen


def _shares(tree: ast.Module, seen: _Fixtures) -> bool:
    wanted = set(seen.autouse)
    for function in _functions(tree):
        if function.name.startswith("test"):
            wanted.update(_arguments(function))
    pending = list(wanted)
    while pending:
        name = pending.pop()
        for requested in seen.requests.get(name, []):
            if requested not in wanted:
                wanted.add(requested)
                pending.append(requested)
    return bool(wanted & seen.module_scoped)


def shared_fixture_modules(tests: Path) -> tuple[str, ...]:
    """The test modules under `tests` that share a module-scoped fixture, as node-id prefixes
    (`tests/e2e/test_demo.py`), relative to the folder that holds `tests`."""
    conftests: dict[Path, _Fixtures] = {}

    def conftest_of(folder: Path) -> _Fixtures:
        if folder not in conftests:
            path = folder / "conftest.py"
            tree = (
                ast.parse(path.read_text("utf-8"))
                if path.is_file()
                else ast.Module(body=[], type_ignores=[])
            )
            conftests[folder] = _fixtures(tree)
        return conftests[folder]

    shared: list[str] = []
    for path in sorted(tests.rglob("test_*.py")):
        if "__pycache__" in path.parts:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        folders = [tests, *(p for p in reversed(path.parents) if tests in p.parents)]
        seen = _merged([*(conftest_of(f) for f in folders), _fixtures(tree)])
        if _shares(tree, seen):
            shared.append(path.relative_to(tests.parent).as_posix())
    return tuple(shared)
