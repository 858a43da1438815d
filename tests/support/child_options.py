"""The options a JetBrains AIR child session is told, spelled out as the reference's
`childModelOption` writes them: what the core's tests expect."""

from __future__ import annotations

from typing import Any


def model_option(value: str, name: str) -> dict[str, Any]:
    """A child's `model` option: a select offering only `value`, named `name`."""
    return {
        "id": "model",
        "name": "Model",
        "category": "model",
        "type": "select",
        "currentValue": value,
        "options": [{"value": value, "name": name}],
    }
