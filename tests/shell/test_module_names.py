"""No module name is used twice in `adapter/`, nor in `fsm/` (docs/architecture.md, "Names").

A name in a log line, a traceback or a review comment then points at one file. The scripted
Claude (`adapter/scripted_claude/`), a separate program standing in for Claude Code's process,
is named by Claude Code's own words and left out.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXEMPT = {"scripted_claude"}
PACKAGE_FILES = {"__init__.py", "__main__.py"}


def reused_names(paths: list[Path]) -> dict[str, list[str]]:
    """Each module file name that more than one of `paths` has, with where."""
    where: defaultdict[str, list[str]] = defaultdict(list)
    for path in paths:
        if path.name not in PACKAGE_FILES:
            where[path.name].append(path.as_posix())
    return {name: places for name, places in where.items() if len(places) > 1}


def _core_modules() -> list[Path]:
    return [path.relative_to(ROOT) for path in sorted((ROOT / "fsm").rglob("*.py"))]


def _adapter_modules() -> list[Path]:
    return [
        path.relative_to(ROOT)
        for path in sorted((ROOT / "adapter").rglob("*.py"))
        if not EXEMPT & set(path.relative_to(ROOT).parts)
    ]


def test_the_check_finds_a_name_used_in_two_layers() -> None:
    paths = [Path("adapter/agent/x.py"), Path("adapter/claude/x.py"), Path("adapter/app/y.py")]
    assert reused_names(paths) == {"x.py": ["adapter/agent/x.py", "adapter/claude/x.py"]}


def test_every_module_name_in_adapter_is_used_once() -> None:
    modules = _adapter_modules()
    assert len(modules) > 50  # the walk found the package
    assert reused_names(modules) == {}


def test_every_module_name_in_fsm_is_used_once() -> None:
    # The core's rooms (`fsm/claude/`, `fsm/air/`, ...) drop a prefix the room already says
    # (`fsm/air/meta.py`), never so far that two rooms hold the same name.
    modules = _core_modules()
    assert len(modules) > 30  # the walk found the packages
    assert reused_names(modules) == {}
