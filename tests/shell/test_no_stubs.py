"""Nothing in `fsm/` or `adapter/` raises `NotImplementedError`, and the session and the agent are
single classes.

A stub standing in for what a sibling class provides is how a class gets split across files by
inheritance (mixins that call each other through declared holes). A class's collaborators are
objects passed in through its constructor instead (`adapter.session.session.Session` builds its
`ClaudeSide`, `FreshContext` and `EffectPerformer`; `adapter.agent.acp_agent.ClaudeAcpAgent`
holds a `SessionOpener`), so no code of ours raises `NotImplementedError`. Catching it is
another matter: `adapter/app/serving.py` suppresses the one asyncio raises where signal handlers
do not exist.
"""

from __future__ import annotations

import ast
from pathlib import Path

from adapter.agent.acp_agent import ClaudeAcpAgent
from adapter.session.session import Session

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("fsm", "adapter")


def raises_not_implemented(source: str) -> list[int]:
    """The lines of `source` that raise `NotImplementedError` (bare, called, or a subclass of
    nothing else: the name is what is looked for)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        name = raised.attr if isinstance(raised, ast.Attribute) else getattr(raised, "id", None)
        if name == "NotImplementedError":
            lines.append(node.lineno)
    return lines


def test_the_scan_finds_every_form_and_lets_a_catch_be() -> None:
    source = '''
import builtins
import contextlib

class Mixin:
    def plain(self) -> None:
        raise NotImplementedError

    async def called(self) -> None:
        """Provided by a sibling."""
        raise NotImplementedError("provided elsewhere")  # pragma: no cover

    def qualified(self) -> None:
        if self:
            raise builtins.NotImplementedError

def caught() -> None:
    with contextlib.suppress(NotImplementedError, RuntimeError):
        pass
    try:
        pass
    except NotImplementedError:
        raise RuntimeError("no") from None
'''
    assert raises_not_implemented(source) == [7, 11, 15]


def test_no_module_of_the_core_or_the_shell_raises_not_implemented() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for line in raises_not_implemented(path.read_text(encoding="utf-8")):
                found.append(f"{path.relative_to(ROOT).as_posix()}:{line}")
    assert found == [], "a collaborator passed in, not a stub a sibling class fills"


def test_the_session_and_the_agent_inherit_nothing_of_ours() -> None:
    # Their parts are objects they hold (`Session.claude`, `.fresh_context`, `.effects`;
    # `ClaudeAcpAgent._opener`), not base classes.
    assert Session.__bases__ == (object,)
    assert ClaudeAcpAgent.__bases__ == (object,)
