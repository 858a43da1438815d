"""The choices of the ExitPlanMode question (Claude asks to leave plan mode), as the reference
adapter offers them (`reference-features-2.md` §2.1, less its clear-context options):

| option id                | label                         | kind         | when                   |
|--------------------------|-------------------------------|--------------|------------------------|
| `exit-plan-default`      | Yes, manually approve edits   | allow_once   | always                 |
| `exit-plan-auto`         | Yes, and use auto mode        | allow_always | `auto` is offered      |
| `exit-plan-bypass`       | Yes, and bypass permissions   | allow_always | bypass is offered      |
| `exit-plan-accept-edits` | Yes, auto-accept edits        | allow_always | neither of those is    |
| `reject`                 | No, keep planning             | reject_once  | always                 |

in that order (the reference sorts by kind: allow once, allow always, reject; `default_to_no`
then moves the reject first). Each "Yes" switches Claude Code to its mode; "No" denies and stops
the turn so the user can go on planning. An option id the client made up is taken as "No":
leaving plan mode needs the user's yes.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import Literal

from acp.schema import PermissionOption

__all__ = ["KEEP_PLANNING", "PlanChoice", "plan_choices"]

KEEP_PLANNING = "User chose to keep planning"

_Kind = Literal["allow_once", "allow_always", "reject_once"]


@dataclass(frozen=True, slots=True)
class PlanChoice:
    option_id: str
    name: str
    kind: _Kind
    mode: str | None  # the mode it switches to; None: keep planning

    def option(self) -> PermissionOption:
        return PermissionOption(option_id=self.option_id, name=self.name, kind=self.kind)


_DEFAULT = PlanChoice("exit-plan-default", "Yes, manually approve edits", "allow_once", "default")
_ELEVATED = (
    PlanChoice("exit-plan-auto", "Yes, and use auto mode", "allow_always", "auto"),
    PlanChoice(
        "exit-plan-bypass", "Yes, and bypass permissions", "allow_always", "bypassPermissions"
    ),
)
_ACCEPT_EDITS = PlanChoice(
    "exit-plan-accept-edits", "Yes, auto-accept edits", "allow_always", "acceptEdits"
)
_REJECT = PlanChoice("reject", "No, keep planning", "reject_once", None)


def plan_choices(modes: Container[str]) -> list[PlanChoice]:
    """The choices for a session that offers `modes`, in the order they are offered."""
    elevated = [c for c in _ELEVATED if c.mode in modes]
    return [_DEFAULT, *(elevated or [_ACCEPT_EDITS]), _REJECT]
