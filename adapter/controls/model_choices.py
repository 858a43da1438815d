"""One entry of the model picker, read from Claude Code's initialize answer (`models`).

Claude Code's entries are taken as they come: an entry without a string `value` is dropped, and
a missing name or description falls back rather than failing the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ModelChoice", "model_choice"]


@dataclass(frozen=True, slots=True)
class ModelChoice:
    value: str
    name: str
    description: str | None = None
    efforts: tuple[str, ...] = ()
    resolved: str | None = None  # the full model id Claude Code resolves this entry to
    auto: bool = False  # `supportsAutoMode`
    fast: bool = False  # `supportsFastMode`


def model_choice(entry: Any) -> ModelChoice | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("value"), str):
        return None
    value = entry["value"]
    name = entry.get("displayName")
    description = entry.get("description")
    levels = entry.get("supportedEffortLevels") if entry.get("supportsEffort") else None
    efforts = tuple(x for x in levels if isinstance(x, str)) if isinstance(levels, list) else ()
    resolved = entry.get("resolvedModel")
    return ModelChoice(
        value=value,
        name=name if isinstance(name, str) and name else value,
        description=description if isinstance(description, str) else None,
        efforts=efforts,
        resolved=resolved if isinstance(resolved, str) and resolved else None,
        auto=entry.get("supportsAutoMode") is True,
        fast=entry.get("supportsFastMode") is True,
    )
