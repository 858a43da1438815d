"""Capability negotiation for the sessionFailure extension (docs/decisions.md#negotiation and
#advertising).

Theory of operation: the client's `clientCapabilities._meta` arrives as arbitrary JSON. The
extension is on iff `_meta.jetbrains.air` is an object whose `version` is an integer >= 1 (a
JSON number: Python's `bool` is an `int` and must not pass; a float passes only when finite and
whole, as JavaScript's `Number.isInteger` would say) and whose `capabilities` is a list holding
the exact string "sessionFailure". Anything else means legacy, silently; this never raises.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "AGENT_ERROR",
    "CAPABILITY",
    "Dialects",
    "agent_error_negotiated",
    "keys_options_by_kind",
    "negotiate",
    "session_failure_negotiated",
]

AGENT_ERROR = "agentError"

CAPABILITY = "sessionFailure"


def _is_version(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 1
    if isinstance(value, float):
        return math.isfinite(value) and value.is_integer() and value >= 1
    return False


def session_failure_negotiated(client_meta: object) -> bool:
    """True iff the client's capabilities `_meta` opts in to sessionFailure."""
    if not isinstance(client_meta, dict):
        return False
    jetbrains = client_meta.get("jetbrains")
    if not isinstance(jetbrains, dict):
        return False
    air = jetbrains.get("air")
    if not isinstance(air, dict):
        return False
    capabilities = air.get("capabilities")
    return (
        _is_version(air.get("version"))
        and isinstance(capabilities, list)
        and any(isinstance(c, str) and c == CAPABILITY for c in capabilities)
    )


def agent_error_negotiated(client_meta: object) -> bool:
    """True iff `_meta.agentError` is an object whose `version` is an integer >= 1 (the same
    strictness as the sessionFailure check)."""
    if not isinstance(client_meta, dict):
        return False
    declared = client_meta.get(AGENT_ERROR)
    return isinstance(declared, dict) and _is_version(declared.get("version"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Dialects:
    """Which failure wire forms the client asked for; neither means a legacy client."""

    session_failure: bool = False
    agent_error: bool = False
    # `clientCapabilities.session.notices` (an object): ACP `notice` updates
    # (docs/decisions.md#acp-notices).
    acp_notices: bool = False
    # `clientCapabilities.session.compaction` (an object): `compaction_update`s, not the card.
    acp_compaction: bool = False

    @property
    def capable(self) -> bool:
        return self.session_failure or self.agent_error


# Clients known to tell permission options apart by their `kind` alone: they label each option by
# its kind and map kinds to options, so two options of one kind are one to them
# (docs/decisions.md#plan-exit-option-kinds). Matched against the start of
# `initialize`'s `clientInfo.name`, case-insensitively.
_KIND_KEYED_CLIENTS = ("codecompanion",)


def keys_options_by_kind(client_name: object) -> bool:
    """Whether the client that named itself `client_name` in `initialize` keys permission
    options by kind; anything that is not a name is a client that reads option names."""
    if not isinstance(client_name, str):
        return False
    return client_name.strip().lower().startswith(_KIND_KEYED_CLIENTS)


def negotiate(client_meta: object) -> Dialects:
    return Dialects(
        session_failure=session_failure_negotiated(client_meta),
        agent_error=agent_error_negotiated(client_meta),
    )
