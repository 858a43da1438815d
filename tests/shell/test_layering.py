"""The shell's layers import one way (docs/architecture.md, "The shell"), and nothing imports in a
cycle.

Every import counts: at module level, inside functions and under `TYPE_CHECKING`, read from the
sources with `ast` as `tests/core/test_purity.py` reads the core. The order, left to right:

    app -> agent -> session -> controls -> claude -> wire -> fsm

A package imports itself and the packages to its right, never one to its left. `view/` is a pure
leaf that only `session/` uses: no other part of `adapter/`, no `claude_agent_sdk`, no `anyio`,
and of `acp` only `acp.schema`. The tools (`demo/`, `scripted_claude/`, `conformance/`) are
leaves that only `app/cli.py` imports (and `demo/` runs `scripted_claude/`); none imports the
core (`conformance/` judges it with its own copy of the contract). `lean_imports` runs before
anything else and imports nothing of ours; anyone may import it. The core has one front door:
`adapter/` imports `fsm` only as `from fsm import ...` (the names of `fsm.__all__`, checked by
`tests/core/test_exports.py`), never one of its modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LAYERS = ("app", "agent", "session", "controls", "claude", "wire")
TOOLS = frozenset({"demo", "scripted_claude", "conformance"})
# Who may import each tool, besides itself.
TOOL_USERS = {"demo": {"app"}, "scripted_claude": {"app", "demo"}, "conformance": {"app"}}
# What each tool may import of ours, besides itself.
TOOL_IMPORTS = {"demo": {"scripted_claude"}, "scripted_claude": set(), "conformance": set()}


def modules(root: Path) -> dict[str, Path]:
    """Every module of `fsm/` and `adapter/` under `root`, by dotted name."""
    found: dict[str, Path] = {}
    for package in ("fsm", "adapter"):
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _targets(node: ast.AST, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        parts = module.split(".")
        keep = len(parts) - node.level + (1 if is_package else 0)
        base = ".".join(parts[:keep] + ([base] if base else []))
    return [f"{base}.{alias.name}" for alias in node.names]  # a name or a submodule of `base`


def imports(known: Mapping[str, Path]) -> dict[str, set[str]]:
    """For each module, the modules of ours and the outside top-level packages it imports."""
    edges: dict[str, set[str]] = {}
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        found: set[str] = set()
        for node in ast.walk(tree):
            for target in _targets(node, module, is_package):
                name = target
                while name and name not in known:
                    name = name.rpartition(".")[0]
                if not name:
                    found.add(target)  # outside: kept whole (`acp.schema`, `anyio`, ...)
                elif name != module and not module.startswith(name + "."):
                    found.add(name)  # a package's own parents run first anyway: no edge
        edges[module] = found
    return edges


def _area(module: str) -> str:
    """`fsm`, a layer, `view`, a tool, `lean_imports`, `package` (`adapter` itself) or `main`."""
    parts = module.split(".")
    if parts[0] == "fsm":
        return "fsm"
    if len(parts) == 1:
        return "package"
    return "main" if parts[1] == "__main__" else parts[1]


def violations(edges: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import that breaks the layer rules, as `importer -> imported: why`."""
    found: list[str] = []
    for module, targets in sorted(edges.items()):
        source = _area(module)
        for target in sorted(targets):
            why = _why_not(source, target, edges)
            if why:
                found.append(f"{module} -> {target}: {why}")
    return found


def _why_not(source: str, target: str, edges: Mapping[str, object]) -> str | None:
    if target not in edges:  # outside fsm/ and adapter/
        top = target.split(".")[0]
        impure = top in ("claude_agent_sdk", "anyio") or (
            top == "acp" and not target.startswith("acp.schema")
        )
        return "the view is pure" if source == "view" and impure else None
    dest = _area(target)
    if dest == "fsm" and source != "fsm" and target != "fsm":
        return "the shell imports the core only through its front door, `from fsm import ...`"
    if source == "fsm":
        return None if dest == "fsm" else "the core imports nothing of the adapter"
    if dest in (source, "lean_imports", "package"):
        return None
    if source == "lean_imports":
        return "lean_imports runs first and imports nothing of ours"
    if dest == "main" or source == "main":
        return None if dest == "app" else "`__main__` only starts the command line"
    if source == "view":
        return None if dest == "fsm" else "the view imports only itself and the core"
    if dest in TOOLS:
        return None if source in TOOL_USERS[dest] else "only the command line imports a tool"
    if source in TOOLS:
        return None if dest in TOOL_IMPORTS[source] else "a tool is a leaf"
    if dest == "fsm":
        return None
    if dest == "view":
        return None if source == "session" else "only the session shell uses the view"
    if LAYERS.index(dest) < LAYERS.index(source):
        return f"{source}/ may not import {dest}/, a layer to its left"
    return None


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Groups of modules that import each other (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in edges:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


EDGES = imports(modules(ROOT))


def test_the_walk_sees_every_layer() -> None:
    areas = {_area(module) for module in EDGES}
    assert {*LAYERS, *TOOLS, "view", "fsm", "lean_imports", "package", "main"} == areas


def test_every_import_points_down_the_layers() -> None:
    assert violations(EDGES) == []


def test_no_module_imports_itself_through_others() -> None:
    assert cycles(EDGES) == []


def test_at_most_four_modules_sit_directly_in_adapter() -> None:
    direct = sorted(p.name for p in (ROOT / "adapter").glob("*.py"))
    assert len(direct) <= 4, direct


LATE_IMPORT = "def f():\n    from adapter.app import cli\n"
TYPING_IMPORT = "import typing\nif typing.TYPE_CHECKING:\n    from adapter.agent import opening\n"
PLANTED = [
    ("adapter/wire/bad.py", "from adapter.session.session import Session\n", "to its left"),
    ("adapter/view/bad.py", "import anyio\n", "the view is pure"),
    ("adapter/view/bad.py", "from acp import RequestError\n", "the view is pure"),
    ("adapter/view/bad.py", "from adapter.wire.json_codec import decode_line\n", "only itself"),
    ("adapter/claude/bad.py", "from adapter.view.plan import plan_update\n", "only the session"),
    ("adapter/session/bad.py", "from adapter.demo.runner import run\n", "only the command line"),
    ("fsm/bad.py", "from adapter.wire.stdio import open_stdio\n", "nothing of the adapter"),
    ("adapter/claude/bad.py", "from fsm.records import redact\n", "front door"),
    ("adapter/view/bad.py", "from fsm import ledger\n", "front door"),
    ("adapter/session/bad.py", "import fsm.session\n", "front door"),
    ("adapter/wire/bad.py", LATE_IMPORT, "to its left"),
    ("adapter/wire/bad.py", TYPING_IMPORT, "to its left"),
]


@pytest.mark.parametrize(("module", "source", "why"), PLANTED)
def test_the_checker_catches_a_planted_upward_import(
    tmp_path: Path, module: str, source: str, why: str
) -> None:
    for package in ("fsm", "adapter"):
        for path in (ROOT / package).rglob("*.py"):
            copy = tmp_path / path.relative_to(ROOT)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / module).write_text(source, encoding="utf-8")
    found = violations(imports(modules(tmp_path)))
    name = module.removesuffix(".py").replace("/", ".")
    assert len(found) == 1 and found[0].startswith(f"{name} -> ") and why in found[0], found


def test_the_checker_catches_a_planted_cycle() -> None:
    planted = {**{k: set(v) for k, v in EDGES.items()}}
    planted["adapter.wire.stdio"] = {*planted["adapter.wire.stdio"], "adapter.wire.trace"}
    assert "adapter.wire.stdio" in planted["adapter.wire.trace"]  # trace imports stdio today
    new = [group for group in cycles(planted) if group not in cycles(EDGES)]
    assert new == [["adapter.wire.stdio", "adapter.wire.trace"]]
    # A cycle through a lazy import inside a function is one too.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
