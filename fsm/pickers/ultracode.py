"""When the Ultracode switch is offered, what its value is, and what an effort sent to Claude
Code carries with it (docs/reference-adapter.md#ultracode).

Claude Code's `get_settings` answer says whether ultracode can run for the session's model
(`applied.ultracodeAvailable`) and whether the session asks for it (`applied.ultracodeRequested`).
A model takes ultracode when it takes the `xhigh` effort (Claude Code's one capability check for
both). Workflows are on when Claude Code says ultracode is available, off when it says it is not
on a model that takes it, unknown otherwise; the switch is offered on a model that takes it unless
workflows are off. An effort sent while ultracode is on carries `ultracode: true`: Claude Code
turns ultracode off on an effort change sent without the key. Pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "UltracodeReport",
    "effort_flag_settings",
    "model_takes_ultracode",
    "ultracode_offered",
    "ultracode_report",
    "workflows_enabled",
]


@dataclass(frozen=True, slots=True)
class UltracodeReport:
    """What Claude Code's `get_settings` said (None: it did not say)."""

    available: bool | None
    requested: bool | None


def ultracode_report(response: object) -> UltracodeReport:
    """Claude Code's `get_settings` answer, read; anything else says nothing."""
    applied = response.get("applied") if isinstance(response, Mapping) else None
    if not isinstance(applied, Mapping):
        return UltracodeReport(available=None, requested=None)
    available = applied.get("ultracodeAvailable")
    requested = applied.get("ultracodeRequested")
    return UltracodeReport(
        available=available if isinstance(available, bool) else None,
        requested=requested if isinstance(requested, bool) else None,
    )


def model_takes_ultracode(efforts: Sequence[str]) -> bool:
    """A model takes ultracode when it takes the `xhigh` effort."""
    return "xhigh" in efforts


def workflows_enabled(report: UltracodeReport, takes: bool) -> bool | None:
    """Whether Claude Code's dynamic workflows are on, from its report for a model that `takes`
    ultracode or not (None: the report cannot tell)."""
    if report.available is True:
        return True
    if report.available is False and takes:
        return False
    return None


def ultracode_offered(workflows: bool | None, takes: bool) -> bool:
    """The switch is offered on a model that takes ultracode unless workflows are off."""
    return workflows is not False and takes


def effort_flag_settings(effort: str | None, ultracode: bool) -> dict[str, Any]:
    """The `apply_flag_settings` settings for an effort (None: Claude Code's own): with
    `ultracode: true` while ultracode is on, so the effort change keeps it on."""
    return {"effortLevel": effort, "ultracode": True} if ultracode else {"effortLevel": effort}
