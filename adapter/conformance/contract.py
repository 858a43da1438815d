"""The sessionFailure contract as the checker reads it: its own copy, not the core's.

The checker judges the adapter, so it must not borrow the adapter's code: were it to import the
core's negotiation, id parser or masking, a bug there would pass conformance unseen. Everything
here is written from the extension's text (the negotiation, the record's fields and values, the
four id shapes, what a title must never show), in the checker's own terms.
`tests/shell/test_conformance_contract.py` holds this copy and the core's side by side on the
same inputs, so that a change to either is a reviewed change to both.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = [
    "ACTIONS",
    "CATEGORIES",
    "RECORD_KEYS",
    "SEVERITIES",
    "TITLE_LIMIT",
    "RecordId",
    "agent_error_negotiated",
    "looks_private",
    "read_id",
    "session_failure_negotiated",
]

# --- the record (the extension's field table) ---------------------------------------------

CATEGORIES = frozenset({"connection", "access", "limit", "request", "service", "unknown"})
SEVERITIES = frozenset({"warning", "error"})
ACTIONS = ("retry", "login", "new_session")
# `details` is the one optional field; any other key is an extra one.
RECORD_KEYS = frozenset({"id", "revision", "category", "severity", "title", "details", "actions"})
TITLE_LIMIT = 256

# --- negotiation ----------------------------------------------------------------------------


def _version(value: object) -> bool:
    # "a finite integer greater than or equal to 1": a JSON number, so `true` is not one, and
    # 1.0 is (JavaScript's Number.isInteger(1.0) holds).
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return False
    return value >= 1


def session_failure_negotiated(meta: object) -> bool:
    """The client's `clientCapabilities._meta` turns sessionFailure on: `jetbrains.air` is an
    object with a valid `version` and a `capabilities` list holding "sessionFailure"."""
    jetbrains = meta.get("jetbrains") if isinstance(meta, dict) else None
    air = jetbrains.get("air") if isinstance(jetbrains, dict) else None
    if not isinstance(air, dict) or not _version(air.get("version")):
        return False
    capabilities = air.get("capabilities")
    return isinstance(capabilities, list) and "sessionFailure" in [
        c for c in capabilities if isinstance(c, str)
    ]


def agent_error_negotiated(meta: object) -> bool:
    """The client's `_meta.agentError` is an object with a valid `version`."""
    declared = meta.get("agentError") if isinstance(meta, dict) else None
    return isinstance(declared, dict) and _version(declared.get("version"))


# --- ids ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecordId:
    """What a record's id says: `kind` is "turn", "session-error", "notice" or
    "history-error"; `session` is None for a turn's id; `epoch` and `n` are set for the two
    counted kinds."""

    kind: str
    session: str | None = None
    epoch: str | None = None
    n: int | None = None


# Read from the right: session and turn ids may hold ":" themselves, an epoch never does, and
# a counter starts at 1.
_COUNTED = re.compile(r"(.+):(session-error|notice):([^:]+):([1-9][0-9]*)", re.DOTALL)
_HISTORY = re.compile(r"(.+):history-error:[^:]+", re.DOTALL)
_TURN = re.compile(r".+:error", re.DOTALL)


def read_id(value: str) -> RecordId | None:
    """The shape of a record id: `<turnId>:error`, `<sessionId>:session-error:<epoch>:<n>`,
    `<sessionId>:notice:<epoch>:<n>` or `<sessionId>:history-error:<messageUuid>`; None for
    anything else."""
    if counted := _COUNTED.fullmatch(value):
        session, kind, epoch, n = counted.groups()
        return RecordId(kind, session, epoch, int(n))
    if history := _HISTORY.fullmatch(value):
        return RecordId("history-error", history.group(1))
    if _TURN.fullmatch(value):
        return RecordId("turn")
    return None


# --- what a title never shows: credentials and private paths ---------------------------------

# A Basic/Bearer credential: 8+ token characters with a digit, a base64 mark or a camel hump.
_TOKEN = r"(?=[A-Za-z0-9._~+/=\-]*(?:[0-9=+/]|[a-z][A-Z]))[A-Za-z0-9._~+/=\-]{8,}"
_SECRET_NAME = (
    r"(?:[a-z]+[_-])?(?:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|"
    r"client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|secret|"
    r"password|passwd|authorization|credentials?)"
)
_PRIVATE: tuple[re.Pattern[str], ...] = (
    re.compile(r"sk-ant-[A-Za-z0-9_\-]+"),  # an Anthropic key
    re.compile(r"\b(?:Bearer|Basic)\s+" + _TOKEN),
    re.compile(r"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"),  # a JWT
    re.compile(r"\b(?:AKIA|ASIA|AIDA|AROA)[0-9A-Z]{16}\b"),  # an AWS access key id
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),  # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{8,}"),  # Slack tokens
    re.compile(r"\bxapp-[A-Za-z0-9-]{8,}"),
    # `"api_key": "..."` (unless already masked), `api_key=...`, `password: s3cret1`.
    re.compile(r"\"" + _SECRET_NAME + r"\"\s*:\s*\"(?!\*\*\*\")(?:[^\"\\]|\\.)*\"", re.I),
    re.compile(r"\b" + _SECRET_NAME + r"\s*=\s*(?!\*\*\*(?:[\s&,;]|$))[^\s&,;]+", re.I),
    re.compile(r"\b" + _SECRET_NAME + r"\s*:\s*(?=\S*\d)(?!\*\*\*(?:[\s,;]|$))[^\s,;]{6,}", re.I),
    # Credentials in a URL: scheme://user:password@host, scheme://token@host.
    re.compile(r"[a-z][a-z0-9+.\-]*://(?!\*\*\*@)[^/\s:@]+:[^/\s@]+@", re.I),
    re.compile(r"[a-z][a-z0-9+.\-]*://(?!\*\*\*@)" + _TOKEN + "@", re.I),
    # A user's home, POSIX (`/root` as a whole segment only) and Windows.
    re.compile(r"(?<![\w/])(?:/home/[^/\s]+|/Users/[^/\s]+|/root(?![\w-]))"),
    re.compile(r"\b[A-Za-z]:\\Users\\[^\\\s]+"),
)


def looks_private(text: str) -> bool:
    """Whether `text` shows a credential or a private path."""
    return any(pattern.search(text) for pattern in _PRIVATE)
