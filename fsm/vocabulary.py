"""The wire vocabulary and the one table of failure kinds.

Theory of operation: categories, severities and actions are the exact strings the
sessionFailure record carries. A `FailureKind` is our internal name for a class of Claude
condition; `KIND_POLICIES` gives each kind its category, its actions when it is an error, the
adapter-authored title used only when Claude supplied no text, and its recovery policy. The table
is docs/decisions.md#auth-failure-capable-client to #actions and #recovery written as data; tests
read it row by row.

The recovery policy listed is the one for a turn-scoped error. The incident machine's rows
(`incident.py`, drawn in `diagrams/incident.md`) read it as it is, with two more guards: a
warning recovers at the next attempt whatever its kind (a notice never), and a session-scoped
occurrence that would recover at the next attempt has no turn whose successor could confirm it,
so it recovers at a real answer instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "KIND_POLICIES",
    "Action",
    "Category",
    "FailureKind",
    "KindPolicy",
    "RecoveryPolicy",
    "Severity",
    "policy_for",
]


class Category(StrEnum):
    CONNECTION = "connection"
    ACCESS = "access"
    LIMIT = "limit"
    REQUEST = "request"
    SERVICE = "service"
    UNKNOWN = "unknown"


class Severity(StrEnum):
    WARNING = "warning"
    ERROR = "error"


class Action(StrEnum):
    RETRY = "retry"
    LOGIN = "login"
    NEW_SESSION = "new_session"


class FailureKind(StrEnum):
    RATE_LIMITED = "rate_limited"
    QUOTA_EXHAUSTED = "quota_exhausted"
    AUTH_REQUIRED = "auth_required"
    ACCESS_DENIED = "access_denied"
    BAD_REQUEST = "bad_request"
    CONTEXT_EXHAUSTED = "context_exhausted"
    BUDGET_EXHAUSTED = "budget_exhausted"
    OVERLOADED = "overloaded"
    PROVIDER_ERROR = "provider_error"
    INTERNAL_ERROR = "internal_error"
    TRANSPORT_LOST = "transport_lost"
    WORKER_SHUTDOWN = "worker_shutdown"
    ADVISORY = "advisory"
    MCP_SERVER_FAILED = "mcp_server_failed"
    MCP_NEEDS_AUTH = "mcp_needs_auth"


class RecoveryPolicy(StrEnum):
    """When an active incident stops being active (docs/decisions.md#recovery). Never serialized."""

    NEXT_ATTEMPT = "next_attempt"
    REAL_MODEL_SUCCESS = "real_model_success"
    AUTH_STATUS = "auth_status"
    RUNTIME_REBIND = "runtime_rebind"
    # An early limit warning (docs/decisions.md#early-limit-warning): until its window resets or
    # reports `allowed`.
    LIMIT_WINDOW = "limit_window"
    NEVER = "never"


@dataclass(frozen=True, slots=True, kw_only=True)
class KindPolicy:
    category: Category
    actions: tuple[Action, ...]
    fallback_title: str
    recovery: RecoveryPolicy


_RETRY = (Action.RETRY,)
_NEW = (Action.NEW_SESSION,)

KIND_POLICIES: dict[FailureKind, KindPolicy] = {
    FailureKind.RATE_LIMITED: KindPolicy(
        category=Category.LIMIT,
        actions=_RETRY,
        fallback_title="Claude is temporarily rate limited.",
        recovery=RecoveryPolicy.NEXT_ATTEMPT,
    ),
    # docs/decisions.md#recovery, as in the reference adapter: quota stays active until a real model
    # answer, live or restored.
    FailureKind.QUOTA_EXHAUSTED: KindPolicy(
        category=Category.LIMIT,
        actions=(),
        fallback_title="The Claude account has no available quota.",
        recovery=RecoveryPolicy.REAL_MODEL_SUCCESS,
    ),
    FailureKind.AUTH_REQUIRED: KindPolicy(
        category=Category.ACCESS,
        actions=(Action.LOGIN,),
        fallback_title="Sign in to continue using Claude.",
        recovery=RecoveryPolicy.AUTH_STATUS,
    ),
    # docs/decisions.md#verification-and-cloud-credentials: signing in again does not fix
    # verification or cloud credentials.
    FailureKind.ACCESS_DENIED: KindPolicy(
        category=Category.ACCESS,
        actions=_RETRY,
        fallback_title="Claude could not access the account or provider credentials.",
        recovery=RecoveryPolicy.NEXT_ATTEMPT,
    ),
    FailureKind.BAD_REQUEST: KindPolicy(
        category=Category.REQUEST,
        actions=(),
        fallback_title="Claude could not process this request.",
        recovery=RecoveryPolicy.NEXT_ATTEMPT,
    ),
    FailureKind.CONTEXT_EXHAUSTED: KindPolicy(
        category=Category.LIMIT,
        actions=_NEW,
        fallback_title="This Claude turn reached its configured limit.",
        recovery=RecoveryPolicy.NEXT_ATTEMPT,
    ),
    FailureKind.BUDGET_EXHAUSTED: KindPolicy(
        category=Category.LIMIT,
        actions=_NEW,
        fallback_title="This Claude session reached its configured budget.",
        recovery=RecoveryPolicy.NEXT_ATTEMPT,
    ),
    FailureKind.OVERLOADED: KindPolicy(
        category=Category.SERVICE,
        actions=_RETRY,
        fallback_title="Claude is temporarily overloaded.",
        recovery=RecoveryPolicy.NEXT_ATTEMPT,
    ),
    FailureKind.PROVIDER_ERROR: KindPolicy(
        category=Category.SERVICE,
        actions=_RETRY,
        fallback_title="The model provider reported an error.",
        recovery=RecoveryPolicy.NEXT_ATTEMPT,
    ),
    # docs/decisions.md#internal-errors: strict reading of "recoverable internal error: retry" (the
    # reference adapter adds new_session).
    FailureKind.INTERNAL_ERROR: KindPolicy(
        category=Category.SERVICE,
        actions=_RETRY,
        fallback_title="Claude Agent encountered an internal error.",
        recovery=RecoveryPolicy.NEXT_ATTEMPT,
    ),
    FailureKind.TRANSPORT_LOST: KindPolicy(
        category=Category.CONNECTION,
        actions=_NEW,
        fallback_title="The connection to Claude was lost.",
        recovery=RecoveryPolicy.RUNTIME_REBIND,
    ),
    FailureKind.WORKER_SHUTDOWN: KindPolicy(
        category=Category.CONNECTION,
        actions=_NEW,
        fallback_title="The Claude worker is shutting down.",
        recovery=RecoveryPolicy.RUNTIME_REBIND,
    ),
    FailureKind.ADVISORY: KindPolicy(
        category=Category.UNKNOWN,
        actions=(),
        fallback_title="Claude reported a notice.",
        recovery=RecoveryPolicy.NEVER,
    ),
    # docs/decisions.md#mcp-server-problems: notices (warnings in the notice namespace), which never
    # recover (docs/decisions.md#recovery).
    FailureKind.MCP_SERVER_FAILED: KindPolicy(
        category=Category.SERVICE,
        actions=(),
        fallback_title="An MCP server failed to start.",
        recovery=RecoveryPolicy.NEVER,
    ),
    FailureKind.MCP_NEEDS_AUTH: KindPolicy(
        category=Category.ACCESS,
        actions=(),
        fallback_title="An MCP server needs authentication.",
        recovery=RecoveryPolicy.NEVER,
    ),
}


def policy_for(kind: FailureKind) -> KindPolicy:
    return KIND_POLICIES[kind]
