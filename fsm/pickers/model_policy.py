"""The model picker's policy from settings, as the reference adapter reads it, and the
settings Claude Code starts with from the host's `CLAUDE_MODEL_CONFIG` (its `parseModelConfig`)
(docs/reference-adapter.md#model-policy). What the policy makes of Claude Code's model list,
and the names its entries show, is `fsm.pickers.model_entries`: a session's start needs the
policy read, the list only once Claude Code has reported it (docs/performance.md).

Which settings count (`model_policy_from`; docs/decisions.md#model-picker-policy): the managed
tier's `availableModels`, when it sets one, is the whole list (a repository cannot widen an
administrator's allowlist); otherwise the user, project and local lists are joined, as Claude
Code joins arrays. `deniedModels` is read from the managed tier only. `modelOverrides` is the
whole map of the highest tier that sets it, dropped when that tier sits below the one whose
`availableModels` counts (a repository cannot redirect an administrator's allowlist). An entry
that is not a string, is empty, over 256 characters or holds a control character is left out.
Pure functions of their arguments.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fsm.visible_text import visible

__all__ = ["MODEL_CONFIG_ENV", "ModelPolicy", "model_config_settings", "model_policy_from"]

# The host's model settings for Claude Code (Bedrock overrides, an allowlist), as the reference
# adapter reads them (`parseModelConfig`).
MODEL_CONFIG_ENV = "CLAUDE_MODEL_CONFIG"
_MAX_ENTRY = 256
_MAX_ENTRIES = 500
# Tiers from the lowest; `managed` is the administrator's.
_TIERS = ("user", "project", "local", "managed")


@dataclass(frozen=True, slots=True)
class ModelPolicy:
    """The settings that shape the model picker (`model_policy_from`)."""

    available: tuple[str, ...] | None = None  # None: no allowlist
    overrides: Mapping[str, str] = field(default_factory=dict)
    denied: tuple[str, ...] = ()


def _entries(value: object) -> tuple[str, ...] | None:
    """A settings list of model names as the policy takes it (None: not a list)."""
    if not isinstance(value, list):
        return None
    found: list[str] = []
    for entry in value[:_MAX_ENTRIES]:
        if not isinstance(entry, str):
            continue
        text = entry.strip()
        if text and len(text) <= _MAX_ENTRY and visible(text) == text and text not in found:
            found.append(text)
    return tuple(found)


def model_policy_from(tiers: Sequence[tuple[str, Mapping[str, Any]]]) -> ModelPolicy:
    """The model policy of a session's settings files, given as `(tier, settings)` with the
    tier one of `user`, `project`, `local`, `managed` (see the module doc)."""
    by_tier = {tier: data for tier, data in tiers if tier in _TIERS and isinstance(data, Mapping)}
    managed = by_tier.get("managed", {})
    available = _entries(managed.get("availableModels"))
    available_rank = _TIERS.index("managed") if available is not None else -1
    if available is None:
        for rank, tier in enumerate(_TIERS[:-1]):
            listed = _entries(by_tier.get(tier, {}).get("availableModels"))
            if listed is None:
                continue
            joined = available or ()
            available = joined + tuple(e for e in listed if e not in joined)
            available_rank = rank
    overrides: dict[str, str] = {}
    for rank in range(len(_TIERS) - 1, -1, -1):
        found = by_tier.get(_TIERS[rank], {}).get("modelOverrides")
        if not isinstance(found, Mapping):
            continue
        if rank >= available_rank:
            overrides = {
                k.strip(): v.strip()
                for k, v in found.items()
                if isinstance(k, str) and isinstance(v, str) and _entries([k]) and _entries([v])
            }
        break
    return ModelPolicy(
        available=available,
        overrides=overrides,
        denied=_entries(managed.get("deniedModels")) or (),
    )


def model_config_settings(
    raw: str | None, given: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """The settings Claude Code starts with when the host sets `CLAUDE_MODEL_CONFIG` (`raw`, a
    JSON object): its `modelOverrides` and `availableModels`, under the client's own settings
    object (`given`, whose keys win), as the reference adapter passes them to its SDK; None
    when it is unset or names neither. Raises ValueError for a value that is not a JSON object
    (the reference refuses the session then)."""
    if not raw:
        return None
    parsed = json.loads(raw)
    if not isinstance(parsed, dict):
        raise ValueError(f"{MODEL_CONFIG_ENV} must be a JSON object")
    found = {k: parsed[k] for k in ("modelOverrides", "availableModels") if k in parsed}
    if not found:
        return None
    return {**found, **(given or {})}
