"""The choices of the ExitPlanMode question (Claude asks to leave plan mode), as the reference
adapter offers them (docs/reference-adapter.md#plan-exit-options):

| option id                 | label                                     | kind         |
|---------------------------|-------------------------------------------|--------------|
| `exit-plan-default`       | Yes, manually approve edits               | allow_once   |
| `exit-plan-clear-<mode>`  | Yes, clear context (N% used) and <ending> | allow_always |
| `exit-plan-auto`          | Yes, and use auto mode                    | allow_always |
| `exit-plan-bypass`        | Yes, and bypass permissions               | allow_always |
| `exit-plan-accept-edits`  | Yes, auto-accept edits                    | allow_always |
| `reject`                  | No, keep planning                         | reject_once  |

`auto` and `bypass` are there when the session offers those modes, `accept-edits` when it offers
neither; bypass comes before auto when the session was in bypass before it entered plan mode.
The clear-context choice is there when Claude gave a plan, for the first of those mode choices
(`-auto` "use auto mode", `-bypass` "bypass permissions", `-accept-edits` "auto-accept edits").
They are listed in that order: the reference builds clear-context first, then stable-sorts by
kind (allow once, allow always, reject); `default_to_no` then moves the reject first. "(N%
used)" is the context meter's share of the window, left out while the meter knows nothing. Each
"Yes" switches Claude Code to its mode; a "clear context" one also goes on in a fresh context
that carries the plan (`adapter.session.fresh_context`); "No" denies and stops the turn so that
the user can go on planning. An option id the client made up is taken as "No": leaving plan mode
needs the user's yes.

A client that tells options apart by their kind alone (it labels each by its kind and maps kinds
to options: CodeCompanion) would see the `allow_always` ones as one: it gets one choice of each
kind instead, `exit-plan-default`, the first mode choice (keeping the context) and `reject`
(docs/decisions.md#plan-exit-option-kinds).
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import Literal

from acp.schema import PermissionOption

__all__ = ["FRESH_CONTEXT", "KEEP_PLANNING", "PlanChoice", "plan_choices"]

KEEP_PLANNING = "User chose to keep planning"
FRESH_CONTEXT = "User accepted the plan and requested a fresh context"

_Kind = Literal["allow_once", "allow_always", "reject_once"]


@dataclass(frozen=True, slots=True)
class PlanChoice:
    option_id: str
    name: str
    kind: _Kind
    mode: str | None  # the mode it switches to; None: keep planning
    clears_context: bool = False  # goes on in a fresh context with the plan

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


_CLEAR_ENDINGS = {
    "auto": ("auto", "use auto mode"),
    "bypassPermissions": ("bypass", "bypass permissions"),
    "acceptEdits": ("accept-edits", "auto-accept edits"),
}


def _clearing(mode: str, percent_used: int | None) -> PlanChoice:
    suffix, ending = _CLEAR_ENDINGS[mode]
    used = f" ({percent_used}% used)" if percent_used is not None else ""
    name = f"Yes, clear context{used} and {ending}"
    return PlanChoice(f"exit-plan-clear-{suffix}", name, "allow_always", mode, True)


def plan_choices(
    modes: Container[str],
    *,
    plan: str | None = None,
    percent_used: int | None = None,
    before_plan: str | None = None,
    one_per_kind: bool = False,
) -> list[PlanChoice]:
    """The choices for a session that offers `modes`, in the order they are offered; with a
    non-empty `plan`, the clear-context one for the preferred mode (the first elevated one,
    else accept edits) too. `before_plan`: the mode the session left for plan mode (bypass
    puts bypass first, as the reference orders them). `one_per_kind`: for a client that tells
    options apart by kind alone, one choice of each kind: manual edits, the preferred mode
    keeping the context, keep planning (docs/decisions.md#plan-exit-option-kinds)."""
    order = _ELEVATED[::-1] if before_plan == "bypassPermissions" else _ELEVATED
    elevated = [c for c in order if c.mode in modes]
    mode_choices = elevated or [_ACCEPT_EDITS]
    if one_per_kind:
        return [_DEFAULT, mode_choices[0], _REJECT]
    clearing = []
    if plan is not None and plan.strip():
        preferred = mode_choices[0].mode
        assert preferred is not None
        clearing = [_clearing(preferred, percent_used)]
    return [_DEFAULT, *clearing, *mode_choices, _REJECT]
