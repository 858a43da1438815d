"""The CLI's permission hints applied to a question's options.

Claude Code says how it wants a question asked: `default_to_no` (the reject options first: ACP
has no pre-selection, so order is the only way to say it), and `suppress_always_allow_rule` or
a matched `permissions.ask` rule (no "always" option: the user asked to be asked every time).
Everything else stays as built. ExitPlanMode keeps its mode options whatever the hints say,
as Claude Code's own dialog does; only the order follows `default_to_no`.
"""

from __future__ import annotations

from typing import Any

from acp.schema import PermissionOption

__all__ = ["hinted"]

_REJECT_KINDS = frozenset({"reject_once", "reject_always"})


def hinted(
    options: list[PermissionOption], context: Any, *, keep_always: bool = False
) -> list[PermissionOption]:
    """`options` as the hints on `context` (a `HintedContext`, or any context) want them."""
    hints = getattr(context, "hints", None)
    if getattr(hints, "no_always", False) and not keep_always:
        options = [o for o in options if o.kind != "allow_always"]
    if getattr(hints, "default_to_no", False):
        options = sorted(options, key=lambda o: 0 if o.kind in _REJECT_KINDS else 1)
    return options
