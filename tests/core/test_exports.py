"""The core's front door, `fsm/__init__.py`, in the style of trio's `test_exports`.

`fsm.__all__` is the public surface: every name in it is defined exactly once among the core's
modules and is that very object; everything the shell imports of the core is in it (the
layering test makes `from fsm import ...` the shell's only way in). The core's room has no
stubs: no method raises `NotImplementedError` because a sibling class is meant to supply it.
"""

from __future__ import annotations

import ast
import importlib
from collections import Counter
from pathlib import Path

import pytest

import fsm
from fsm import events
from fsm.machine import one_row_per_trigger
from fsm.turn import TRANSITIONS, TURN_TRIGGERS

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(
    p for p in (ROOT / "fsm").rglob("*.py") if p.name != "__init__.py" and "diagrams" not in p.parts
)


def _defined(path: Path) -> set[str]:
    """The names a module defines at its top level (classes, functions, assignments)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


DEFINED = {
    ".".join(path.relative_to(ROOT / "fsm").with_suffix("").parts): _defined(path)
    for path in MODULES
}


def test_the_walk_sees_the_core() -> None:
    # A wrong root would make the checks below pass vacuously.
    assert {"session", "turn", "events", "effects", "ledger"} <= set(DEFINED)
    assert "SessionCore" in DEFINED["session"] and "Turn" in DEFINED["turn"]


def test_every_export_is_named_once() -> None:
    assert [name for name, n in Counter(fsm.__all__).items() if n > 1] == []


@pytest.mark.parametrize("name", fsm.__all__)
def test_each_export_is_defined_in_exactly_one_module_and_is_that_object(name: str) -> None:
    homes = [module for module, names in DEFINED.items() if name in names]
    assert homes == [fsm._HOMES[name]], f"{name} is defined in {homes}"
    home = importlib.import_module(f"fsm.{homes[0]}")
    assert getattr(fsm, name) is getattr(home, name)


def test_the_lazy_table_the_typed_imports_and_all_name_the_same_things() -> None:
    # `_HOMES` serves `from fsm import X` at run time; the `TYPE_CHECKING` imports are what
    # the type checker reads: they must agree, name for name and module for module.
    tree = ast.parse((ROOT / "fsm" / "__init__.py").read_text(encoding="utf-8"))
    typed = {
        alias.name: node.module.removeprefix("fsm.")
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fsm.")
        for alias in node.names
    }
    assert typed == fsm._HOMES
    assert sorted(fsm._HOMES) == sorted(fsm.__all__)


def test_a_name_the_front_door_does_not_export_is_refused() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Turn'"):
        fsm.Turn  # noqa: B018 - the attribute access is the test


def test_everything_the_shell_imports_of_the_core_is_exported() -> None:
    imported: set[tuple[str, str]] = set()
    for path in sorted((ROOT / "adapter").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "fsm" and not node.level:
                imported.update((str(path.relative_to(ROOT)), a.name) for a in node.names)
    assert len(imported) > 40  # the shell does import the core this way
    assert sorted((where, name) for where, name in imported if name not in fsm.__all__) == []


def stubs(paths: list[Path]) -> list[str]:
    """`file:line` of every `raise NotImplementedError` in `paths`."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                    found.append(f"{path.name}:{node.lineno}")
    return found


def test_the_core_has_no_stubs() -> None:
    assert stubs(sorted((ROOT / "fsm").rglob("*.py"))) == []


def test_the_checks_see_a_planted_stub_and_a_second_definition(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "class A:\n    def f(self) -> None:\n        raise NotImplementedError('a sibling')\n",
        encoding="utf-8",
    )
    assert stubs([planted]) == ["planted.py:3"]
    planted.write_text("SessionCore: object = None\n", encoding="utf-8")
    assert "SessionCore" in _defined(planted)  # a second home would be counted


def test_every_turn_trigger_is_the_trigger_of_an_event() -> None:
    # The turn machine takes an event when its table names the event's trigger; a trigger no
    # event class spells would be a row nothing can reach.
    event_types = [
        value
        for value in vars(events).values()
        if isinstance(value, type) and issubclass(value, events.Event)
    ]
    spelled = {t.trigger for t in event_types}
    named = {row["trigger"] for row in one_row_per_trigger(TRANSITIONS)}
    assert named == TURN_TRIGGERS
    assert sorted(named - spelled) == []


@pytest.mark.parametrize(
    ("event_type", "trigger"),
    [
        (events.PromptReceived, "prompt_received"),
        (events.AssistantMessageReceived, "assistant_message_received"),
        (events.InternalFaultOccurred, "internal_fault_occurred"),
        (events.McpServersReported, "mcp_servers_reported"),
    ],
)
def test_a_trigger_is_the_class_name_in_snake_case(
    event_type: type[events.Event], trigger: str
) -> None:
    assert event_type.trigger == events.trigger_of(event_type) == trigger
