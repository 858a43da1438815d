"""`fsm/` is sans-IO (docs/architecture.md), checked by parsing every module, as trio checks its
`_core` layering: no coroutines, no I/O or clock or randomness imports, no printing or file
opening. `fsm/diagrams/__main__.py` is the one exemption: a developer tool that writes the
diagram files.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from transitions import Machine

from fsm.incident import INCIDENT_MACHINE
from fsm.runtime import RUNTIME_MACHINE
from fsm.turn import TURN_MACHINE

FSM = Path(__file__).resolve().parents[2] / "fsm"
EXEMPT = FSM / "diagrams" / "__main__.py"

FORBIDDEN_MODULES = frozenset(
    {
        "asyncio",
        "anyio",
        "acp",
        "claude_agent_sdk",
        "time",
        "datetime",
        "uuid",
        "random",
        "secrets",
        "os",
        "subprocess",
        "socket",
        "logging",
        "threading",
        "pathlib",
        "io",
    }
)
FORBIDDEN_CALLS = frozenset({"open", "print", "input"})

MODULES = sorted(p for p in FSM.rglob("*.py") if p != EXEMPT)


def _violations(path: Path, root: Path = FSM.parent) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.AsyncFunctionDef):
            found.append(f"{where}: async def {node.name}")
        elif isinstance(node, ast.Await):
            found.append(f"{where}: await")
        elif isinstance(node, ast.AsyncFor | ast.AsyncWith):
            found.append(f"{where}: async {type(node).__name__[5:].lower()}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FORBIDDEN_MODULES:
                    found.append(f"{where}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0 and module.split(".")[0] in FORBIDDEN_MODULES:
                found.append(f"{where}: from {module} import ...")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else None
            if name in FORBIDDEN_CALLS:
                found.append(f"{where}: {name}(...)")
            if name == "__import__":
                found.append(f"{where}: __import__(...)")
    return found


def test_the_walk_sees_the_whole_core() -> None:
    # Guard the walk itself: it must find the core's modules and skip exactly one file.
    names = {p.relative_to(FSM).as_posix() for p in MODULES}
    assert {"session.py", "ledger.py", "incident.py", "turn.py", "diagrams/__init__.py"} <= names
    assert EXEMPT.exists()
    assert "diagrams/__main__.py" not in names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(FSM).as_posix())
def test_module_is_sans_io(path: Path) -> None:
    assert _violations(path) == []


def test_the_checker_catches_what_it_forbids(tmp_path: Path) -> None:
    # A module with each forbidden construct is caught once per construct; a relative
    # import of a sibling is fine.
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import os.path\n"
        "from time import monotonic\n"
        "import claude_agent_sdk as sdk\n"
        "from . import sibling\n"
        "async def f():\n"
        "    await g()\n"
        "print('x')\n"
        "open('f')\n",
        encoding="utf-8",
    )
    assert sorted(_violations(bad, tmp_path)) == sorted(
        [
            "bad.py:1: import os.path",
            "bad.py:2: from time import ...",
            "bad.py:3: import claude_agent_sdk",
            "bad.py:5: async def f",
            "bad.py:6: await",
            "bad.py:7: print(...)",
            "bad.py:8: open(...)",
        ]
    )


@pytest.mark.parametrize(
    "machine",
    [INCIDENT_MACHINE, RUNTIME_MACHINE, TURN_MACHINE],
    ids=["incident", "runtime", "turn"],
)
def test_machines_are_built_strict(machine: Machine) -> None:
    # Rule 2 and 5: no implicit to_<state> triggers, invalid triggers are never ignored.
    assert machine.auto_transitions is False
    assert machine.ignore_invalid_triggers in (None, False)
    assert machine.model_override is True
    for state in machine.states.values():
        assert state.ignore_invalid_triggers in (None, False)


def _machine_calls() -> list[tuple[str, ast.Call]]:
    # Every `...Machine(...)` constructor call under fsm/, wherever it is spelled.
    calls = []
    for path in [*MODULES, EXEMPT]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name.endswith("Machine"):
                    calls.append((f"{path.relative_to(FSM).as_posix()}:{node.lineno}", node))
    return calls


def test_every_machine_is_constructed_without_auto_transitions_or_ignored_triggers() -> None:
    calls = _machine_calls()
    # The live machines, all built in fsm/machine.py (the drawings build none: they read the
    # expanded tables).
    assert sorted(where.split(":")[0] for where, _ in calls) == ["machine.py"]
    for where, call in calls:
        keywords = {k.arg: k.value for k in call.keywords}
        auto = keywords.get("auto_transitions")
        assert isinstance(auto, ast.Constant) and auto.value is False, where
        assert "ignore_invalid_triggers" not in keywords, where
        assert None not in keywords, f"{where}: **kwargs could hide a flag"
