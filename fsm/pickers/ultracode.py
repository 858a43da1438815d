"""When the Ultracode switch is offered, what its value is, and what an effort sent to Claude
Code carries with it (docs/reference-adapter.md#ultracode).

Claude Code's `get_settings` answer says whether ultracode can run for the session's model
(`applied.ultracodeAvailable`) and whether the session asks for it (`applied.ultracodeRequested`).
A model takes ultracode when it takes the `xhigh` effort (Claude Code's one capability check for
both). Workflows are on when Claude Code says ultracode is available, off when it says it is not
on a model that takes it, unknown otherwise; the switch is offered on a model that takes it unless
workflows are off. An effort sent while ultracode is on carries `ultracode: true`: Claude Code
turns ultracode off on an effort change sent without the key.

The session's switch (`UltracodeSwitch`) starts from the settings' `ultracode: true` when its
first Claude starts (`ultracode_started`), before Claude Code is asked: a session's answer does
not wait for `get_settings` (docs/decisions.md#ultracode-after-the-answer). Claude Code's answer
then settles it (`ultracode_reported`): workflows for the model it answered for (`applied.model`,
where the model list knows it; else the model the session ran when it asked, unless the model
changed before the answer came: then `available: false` tells nothing, the model it was computed
for being unknown), and the value it reports unless the user chose one meanwhile or an effort or
a switch was sent to Claude Code since the ask (its answer may predate it). An answer that says
nothing of ultracode changes nothing, nor does one from a Claude process that another of the
session replaced since the ask. What the picker shows is `ultracode_shown`; a change of it
is what the client is told. A later Claude process of the
session (a restart) gets the session's value back where it differs from the settings' (what it
starts with), before any effort is sent. Pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "UltracodeAsk",
    "UltracodeReport",
    "UltracodeStart",
    "UltracodeSwitch",
    "effort_flag_settings",
    "model_takes_ultracode",
    "settings_ultracode",
    "ultracode_chosen",
    "ultracode_offered",
    "ultracode_report",
    "ultracode_reported",
    "ultracode_shown",
    "ultracode_started",
    "workflows_enabled",
]


@dataclass(frozen=True, slots=True)
class UltracodeReport:
    """What Claude Code's `get_settings` said (None: it did not say): `model` is the model it
    answered for (`applied.model`, the full model id it runs)."""

    available: bool | None
    requested: bool | None
    model: str | None = None


@dataclass(frozen=True, slots=True)
class UltracodeAsk:
    """The session while Claude Code's `get_settings` was asked: whether the model it ran when
    it asked takes ultracode, whether the model the answer names does (None: the answer names
    none the model list knows), whether the session's model changed (sent to Claude Code or
    followed) between the ask and the answer, whether an effort or an ultracode switch was
    sent to Claude Code meanwhile, and whether another Claude process of the session started
    meanwhile (the answer is the old process's)."""

    takes_asked: bool
    takes_answered: bool | None = None
    model_changed: bool = False
    flags_sent: bool = False
    replaced: bool = False


def ultracode_report(response: object) -> UltracodeReport:
    """Claude Code's `get_settings` answer, read; anything else says nothing."""
    applied = response.get("applied") if isinstance(response, Mapping) else None
    if not isinstance(applied, Mapping):
        return UltracodeReport(available=None, requested=None)
    available = applied.get("ultracodeAvailable")
    requested = applied.get("ultracodeRequested")
    model = applied.get("model")
    return UltracodeReport(
        available=available if isinstance(available, bool) else None,
        requested=requested if isinstance(requested, bool) else None,
        model=model if isinstance(model, str) and model else None,
    )


def model_takes_ultracode(efforts: Sequence[str]) -> bool:
    """A model takes ultracode when it takes the `xhigh` effort."""
    return "xhigh" in efforts


def workflows_enabled(report: UltracodeReport, takes: bool | None) -> bool | None:
    """Whether Claude Code's dynamic workflows are on, from its report for a model that `takes`
    ultracode or not (None: a model not known; None back: the report cannot tell)."""
    if report.available is True:
        return True
    if report.available is False and takes is True:
        return False
    return None


def answered_takes(ask: UltracodeAsk) -> bool | None:
    """Whether the model Claude Code answered for takes ultracode: the one its answer names;
    without it, the one the session ran when it asked, unless the model changed before the
    answer came (None: not known)."""
    if ask.takes_answered is not None:
        return ask.takes_answered
    return None if ask.model_changed else ask.takes_asked


def ultracode_offered(workflows: bool | None, takes: bool) -> bool:
    """The switch is offered on a model that takes ultracode unless workflows are off."""
    return workflows is not False and takes


def effort_flag_settings(effort: str | None, ultracode: bool) -> dict[str, Any]:
    """The `apply_flag_settings` settings for an effort (None: Claude Code's own): with
    `ultracode: true` while ultracode is on, so the effort change keeps it on."""
    return {"effortLevel": effort, "ultracode": True} if ultracode else {"effortLevel": effort}


@dataclass(frozen=True, slots=True)
class UltracodeSwitch:
    """A session's switch: on or off (kept while a model without ultracode hides it), whether
    Claude Code's workflows are on (None: unknown), whether the user chose its value, and
    whether a Claude process of the session has started."""

    on: bool = False
    workflows: bool | None = None
    chosen: bool = False
    started: bool = False


@dataclass(frozen=True, slots=True)
class UltracodeStart:
    """A Claude process started: the switch, the value to send it (None: nothing to send), and
    the switch should it refuse that value (what it runs)."""

    switch: UltracodeSwitch
    send: bool | None
    refused: UltracodeSwitch


def settings_ultracode(tiers: Sequence[Mapping[str, Any]]) -> bool:
    """The merged settings' `ultracode === true`: the highest tier (tiers lowest first) that
    sets the key decides."""
    for tier in reversed(tiers):
        if "ultracode" in tier:
            return tier["ultracode"] is True
    return False


def ultracode_started(switch: UltracodeSwitch | None, settings_on: bool) -> UltracodeStart:
    """A Claude process of the session started with the settings saying `settings_on`: the
    first takes the settings' value; a later one is sent the session's where it differs."""
    if switch is None or not switch.started:
        first = replace(switch or UltracodeSwitch(), on=settings_on, started=True)
        return UltracodeStart(switch=first, send=None, refused=first)
    send = switch.on if switch.on != settings_on else None
    return UltracodeStart(switch=switch, send=send, refused=replace(switch, on=settings_on))


def ultracode_reported(
    switch: UltracodeSwitch, report: UltracodeReport, ask: UltracodeAsk, takes_now: bool
) -> tuple[UltracodeSwitch, bool]:
    """Claude Code's `get_settings` answer, asked as `ask` says: its workflows (for the model
    it answered for), and its value unless the user chose one since or an effort or a switch
    was sent since the ask (an effort sent without `ultracode: true` turns ultracode off, one
    with it keeps it on: Claude Code has the session's value, and its answer may be older than
    the send); and whether what the picker shows changed (on the model that `takes_now`). An
    answer that says nothing of ultracode changes nothing, and so does one from a process that
    another replaced since the ask: the new one starts from the session's switch
    (`ultracode_started`)."""
    if ask.replaced or (report.available is None and report.requested is None):
        return switch, False
    requested, kept = report.requested, switch.chosen or ask.flags_sent
    on = switch.on if kept or requested is None else requested
    settled = replace(switch, workflows=workflows_enabled(report, answered_takes(ask)), on=on)
    return settled, ultracode_shown(settled, takes_now) != ultracode_shown(switch, takes_now)


def ultracode_chosen(switch: UltracodeSwitch, on: bool) -> UltracodeSwitch:
    """The user's choice, which Claude Code took."""
    return replace(switch, on=on, chosen=True)


def ultracode_shown(switch: UltracodeSwitch, takes: bool) -> bool | None:
    """The switch's value as the picker shows it on a model that `takes` ultracode or not
    (None: not offered)."""
    return switch.on if ultracode_offered(switch.workflows, takes) else None
