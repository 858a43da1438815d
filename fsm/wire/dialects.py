"""Record-to-wire projections: how a `FailureRecord` looks to a client.

Theory of operation: the machines produce `FailureRecord` values; a *dialect* projects them to
JSON. The sessionFailure dialect (the contract) emits exactly `id, revision, category, severity,
title, actions` plus `details` only when set (docs/decisions.md#wire-record and #details), wrapped
as `_meta.jetbrains.air = {"version": 1, "sessionFailure": record}` and merged into whatever
`_meta` the carrier already has. A second dialect is a second projection of the same records;
the machines never change for it.

How a failed turn is *answered* is a dialect of its own, beside these: the turn's
`RecordAnswers` and `LegacyAnswers` (`turn.py`).
"""

from __future__ import annotations

import copy
from typing import Any, Protocol

from fsm.records import FailureRecord
from fsm.vocabulary import Action, FailureKind, Severity

__all__ = [
    "AGENT_ERROR_TYPES",
    "SESSION_FAILURE_KEYS",
    "AgentErrorDialect",
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


# The proposal's closed vocabulary, from our kinds.
AGENT_ERROR_TYPES: dict[FailureKind, str] = {
    FailureKind.RATE_LIMITED: "rate_limit",
    FailureKind.QUOTA_EXHAUSTED: "budget",
    FailureKind.BUDGET_EXHAUSTED: "budget",
    FailureKind.OVERLOADED: "provider_unavailable",
    FailureKind.PROVIDER_ERROR: "provider_unavailable",
    FailureKind.INTERNAL_ERROR: "provider_unavailable",
    FailureKind.TRANSPORT_LOST: "provider_unavailable",
    FailureKind.WORKER_SHUTDOWN: "provider_unavailable",
    FailureKind.CONTEXT_EXHAUSTED: "context_overflow",
    FailureKind.AUTH_REQUIRED: "auth",
    FailureKind.ACCESS_DENIED: "auth",
}


class AgentErrorDialect:
    """The `agent_error` session update (docs/spec/agent-error.md), for errors only.

    Warnings and notices have no form in this dialect: `update_for` returns None for them.
    """

    def update_for(self, record: FailureRecord) -> dict[str, Any] | None:
        if record.severity is not Severity.ERROR:
            return None
        message = record.title if not record.details else f"{record.title}\n\n{record.details}"
        error: dict[str, Any] = {
            "type": AGENT_ERROR_TYPES.get(record.kind, "unknown"),
            "message": message,
            "retryable": Action.RETRY in record.actions,
            "source": "claude",
            "detail": {
                "id": record.id,
                "revision": record.revision,
                "category": record.category.value,
            },
        }
        if record.retry_after_seconds is not None:
            error["retry_after_seconds"] = record.retry_after_seconds
        if record.reset_at_epoch_ms is not None:
            error["reset_at_epoch_ms"] = record.reset_at_epoch_ms
        return {"sessionUpdate": "agent_error", "error": error, "stopReason": "error"}
