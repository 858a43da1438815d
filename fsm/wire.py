"""Record-to-wire projections: how a `FailureRecord` looks to a client.

Theory of operation: the machines produce `FailureRecord` values; a *dialect* projects them to
JSON. The sessionFailure dialect (the contract) emits exactly `id, revision, category, severity,
title, actions` plus `details` only when set (DECISIONS row 3, 10), wrapped as
`_meta.jetbrains.air = {"version": 1, "sessionFailure": record}` and merged into whatever
`_meta` the carrier already has. A second dialect is a second projection of the same records;
the machines never change for it.
"""

from __future__ import annotations

import copy
from typing import Any, Protocol

from fsm.records import FailureRecord

__all__ = [
    "SESSION_FAILURE_KEYS",
    "Dialect",
    "SessionFailureDialect",
    "merge_meta",
    "session_failure_record",
]

SESSION_FAILURE_KEYS = frozenset(
    {"id", "revision", "category", "severity", "title", "details", "actions"}
)


class Dialect(Protocol):
    """A wire form for failure records."""

    def meta_for(self, record: FailureRecord) -> dict[str, Any]:
        """The `_meta` content that carries `record`."""
        ...


def session_failure_record(record: FailureRecord) -> dict[str, Any]:
    """The record as the sessionFailure contract spells it: exactly the allowed keys."""
    wire: dict[str, Any] = {
        "id": record.id,
        "revision": record.revision,
        "category": record.category.value,
        "severity": record.severity.value,
        "title": record.title,
    }
    if record.details:
        wire["details"] = record.details
    wire["actions"] = [action.value for action in record.actions]
    return wire


class SessionFailureDialect:
    def meta_for(self, record: FailureRecord) -> dict[str, Any]:
        return {
            "jetbrains": {"air": {"version": 1, "sessionFailure": session_failure_record(record)}}
        }


def merge_meta(base: dict[str, Any] | None, addition: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge `addition` into a copy of `base`, keeping every other namespace."""
    merged: dict[str, Any] = copy.deepcopy(base) if base else {}
    for key, value in addition.items():
        existing = merged.get(key)
        if isinstance(existing, dict) and isinstance(value, dict):
            merged[key] = merge_meta(existing, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged
