"""Rules on what the agent says outside records: its initialize answer, its JSON-RPC errors and
its `agent_error` updates.

Theory of operation: pure functions over one frame's parts, returning `(rule, message)` pairs
for the checker to report. Negotiation state (what the client opted in to, whether a
session/load is replaying) is the checker's and comes in as arguments.
"""

from __future__ import annotations

from typing import Any

from adapter.conformance.frames import as_dict
from adapter.conformance.record_rules import leak

__all__ = ["advertising_problems", "agent_error_problems", "error_problems"]

Problem = tuple[str, str]


def advertising_problems(result: dict[str, Any], *, air: bool = True) -> list[Problem]:
    """The initialize answer offers sessionFailure at version 1 to a client that declared
    `_meta.jetbrains.air` (`air`), and nothing under `_meta.jetbrains` to any other."""
    jetbrains = as_dict(result.get("_meta")).get("jetbrains")
    if not air:
        if jetbrains is None:
            return []
        return [
            (
                "advertised-to-non-air",
                "the initialize answer has _meta.jetbrains for a client "
                "that did not declare _meta.jetbrains.air",
            )
        ]
    declared = as_dict(as_dict(jetbrains).get("air"))
    version, capabilities = declared.get("version"), declared.get("capabilities")
    if (
        type(version) is int
        and version == 1
        and isinstance(capabilities, list)
        and "sessionFailure" in capabilities
    ):
        return []
    return [
        (
            "not-advertised",
            'the initialize answer lacks _meta.jetbrains.air = {"version": 1, '
            '"capabilities": ["sessionFailure"]}',
        )
    ]


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


def error_problems(error: dict[str, Any]) -> list[Problem]:
    """A JSON-RPC error's message and data hold nothing private."""
    for text in _strings([error.get("message"), error.get("data")]):
        found = leak(text)
        if found is not None:
            return [("error-leak", f"a JSON-RPC error holds {found}")]
    return []


def agent_error_problems(
    update: dict[str, Any], *, opted_in: bool, replaying: bool
) -> list[Problem]:
    """An `agent_error` update goes only to a client that asked for it, never in a replay, and
    its message holds nothing private."""
    problems: list[Problem] = []
    if not opted_in:
        problems.append(
            ("agent-error-surface", "an agent_error update to a client that did not opt in")
        )
    if replaying:
        problems.append(
            ("agent-error-surface", "an agent_error update while replaying session/load")
        )
    message = as_dict(update.get("error")).get("message")
    found = leak(message) if isinstance(message, str) else None
    if found is not None:
        problems.append(("error-leak", f"an agent_error message holds {found}"))
    return problems
