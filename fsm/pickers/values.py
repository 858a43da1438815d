"""What the model and effort pickers show: their values, the current one, and JetBrains AIR's
`recommendedValue` (docs/client-authors.md, "JetBrains AIR"); and which mode Claude Code
switched to by itself the mode picker follows (`mode_to_follow`).

Theory of operation: Claude Code's model list has a `default` entry, which says which model it
resolves to (`resolvedModel`), and entries for concrete models. A client that negotiated AIR's
`recommendedValue` gets pickers with no "Default" row: the model picker names the concrete
entry the default resolves to (the first whose resolved id, or value, is the same model; the
`-1m` and `[1m]` spellings of a context window are one), shows it as the current value while the
session runs the default, and says so in `_meta.jetbrains.air.recommendedValue`. When no concrete
entry is that model, the picker keeps its `default` row and says nothing. The effort picker
drops its `default` row, recommends `medium` (else the model's first level), and shows the
session's effort when the model takes it, else the recommendation; that shown effort is also
the one Claude runs with (`efforts_to_apply`), so the picker never shows a value Claude is not
using. Every other client gets the pickers as Claude Code lists them, `default` rows included.
The reference adapter's `buildModelConfigOption` and `buildEffortConfigOption` are the model
(docs/reference-adapter.md#config-options). Pure functions of their arguments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fsm.air.meta import with_air_meta

__all__ = [
    "DEFAULT_ENTRY",
    "PickerShown",
    "canonical_model_id",
    "effort_level_name",
    "efforts_shown",
    "efforts_to_apply",
    "mode_to_follow",
    "models_shown",
]

DEFAULT_ENTRY = "default"  # Claude Code's own default, in its model list and for effort
RECOMMENDED_VALUE = "recommendedValue"
_RECOMMENDED_EFFORT = "medium"
_CONTEXT_SUFFIX = re.compile(r"-(\d+m)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class PickerShown:
    """One picker as the client sees it."""

    values: tuple[str, ...]  # in Claude Code's order
    current: str
    meta: dict[str, Any] | None = None  # the option's `_meta` (the recommendation), if any


def canonical_model_id(value: str) -> str:
    """One spelling per model: case and white space ignored, `-1m` written `[1m]`."""
    return _CONTEXT_SUFFIX.sub(r"[\1]", value.strip().lower())


def _recommended_model(entries: Sequence[tuple[str, str | None]]) -> str | None:
    default_resolved = next((r for v, r in entries if v == DEFAULT_ENTRY and r), None)
    if default_resolved is None:
        return None
    wanted = canonical_model_id(default_resolved)
    for value, resolved in entries:
        if value != DEFAULT_ENTRY and canonical_model_id(resolved or value) == wanted:
            return value
    return None


def models_shown(
    recommend: bool, entries: Sequence[tuple[str, str | None]], current: str
) -> PickerShown:
    """The model picker: `entries` are Claude Code's `(value, resolvedModel)` in its order;
    `recommend`: the client negotiated `recommendedValue`."""
    values = tuple(value for value, _ in entries)
    recommended = _recommended_model(entries) if recommend else None
    if recommended is None:
        return PickerShown(values, current)
    return PickerShown(
        tuple(v for v in values if v != DEFAULT_ENTRY),
        recommended if current == DEFAULT_ENTRY else current,
        with_air_meta(None, RECOMMENDED_VALUE, recommended),
    )


def effort_level_name(level: str) -> str:
    """An effort level's name, in the root's effort picker and a child session's alike, as the
    reference's `effortLevelName` makes it (docs/reference-adapter.md#config-options): each part
    between `_` and `-` with its first letter upper case, the rest kept, joined by spaces
    (`x_high` is `X High`)."""
    parts = level.replace("-", "_").split("_")
    return " ".join(part[:1].upper() + part[1:] for part in parts)


def efforts_shown(recommend: bool, levels: Sequence[str], current: str) -> PickerShown | None:
    """The effort picker of a model with `levels` (None: the model takes no effort, so there is
    no picker); `current`: the session's effort (`default`: Claude Code's own)."""
    if not levels:
        return None
    if not recommend:
        values = (DEFAULT_ENTRY, *levels)
        return PickerShown(values, current if current in values else DEFAULT_ENTRY)
    recommended = _RECOMMENDED_EFFORT if _RECOMMENDED_EFFORT in levels else levels[0]
    return PickerShown(
        tuple(levels),
        current if current in levels else recommended,
        with_air_meta(None, RECOMMENDED_VALUE, recommended),
    )


def efforts_to_apply(recommend: bool, shown: PickerShown | None) -> list[str | None]:
    """The effort Claude must be told when a session starts or changes model, so that it runs
    what the picker shows: for a `recommendedValue` client the shown effort, or none at all
    (`None`, Claude Code's own) for a model without effort; nothing for any other client, whose
    `default` row leaves the effort to Claude Code."""
    if not recommend:
        return []
    return [None if shown is None else shown.current]


def mode_to_follow(said: str | None, *, current: str, offered: Sequence[str]) -> str | None:
    """The mode the picker moves to when Claude Code says it switched to `said` by itself (a
    `system/init` or `status` frame, an EnterPlanMode call): `said` when the picker offers it
    and shows another; None otherwise (a mode the session does not offer, such as one a
    settings file names that the session's policy took away, is never shown as current)."""
    if said is None or said == current or said not in offered:
        return None
    return said
