"""The effort a session's picker starts from when nobody chose one: what the settings say for
the model, as the reference adapter reads them (`settingsEffortForModel`, `mergeEffortSettings`:
docs/reference-adapter.md#effort-seeds).

A settings file may name an effort per model (`modelSettings: {<model>: {effortLevel}}`, keyed
by the model's resolved id, its picker value or its id, a `-1m` suffix spelling the same `[1m]`
key) or for every model (`effortLevel`). Tiers are given lowest first (user, project, local,
managed, then the client's own `_meta.claudeCode.options.settings`): the highest tier that sets
`effortLevel` wins, and `modelSettings` entries are joined, a higher tier's entry replacing a
lower one's for the same model. The picker shows the effort only where the model takes it
(`fsm.pickers.values`); the settings are read again at each model change
(docs/decisions.md#settings-read-again). Pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fsm.pickers.values import canonical_model_id

__all__ = ["settings_effort"]


def _model_settings(tiers: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    joined: dict[str, Mapping[str, Any]] = {}
    for tier in tiers:
        entries = tier.get("modelSettings")
        if not isinstance(entries, Mapping):
            continue
        for key, entry in entries.items():
            if isinstance(key, str) and isinstance(entry, Mapping):
                for old in [k for k in joined if canonical_model_id(k) == canonical_model_id(key)]:
                    del joined[old]
                joined[key] = entry
    return joined


def settings_effort(
    tiers: Sequence[Mapping[str, Any]], model: str | None, resolved: str | None = None
) -> str | None:
    """The effort the settings name for the model the picker entry `model` resolves to
    (`resolved`); None when they name none."""
    by_model = _model_settings(tiers)
    for key in (resolved, model):
        if not key:
            continue
        exact = by_model.get(key, {}).get("effortLevel")
        if isinstance(exact, str):
            return exact
        wanted = canonical_model_id(key)
        for candidate, entry in by_model.items():
            level = entry.get("effortLevel")
            if canonical_model_id(candidate) == wanted and isinstance(level, str):
                return level
    for tier in reversed(tiers):
        level = tier.get("effortLevel")
        if isinstance(level, str):
            return level
    return None
