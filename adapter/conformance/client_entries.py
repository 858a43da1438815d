"""The entries of a client's transcript (messages, tool calls, failure records, rejected
prompts), and how a v1 client reads a record out of its carrier's `_meta`.

Split from `client_view.py`, whose `ClientTranscript` builds and revises these entries. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from adapter.conformance.frames import as_dict, record_field_problems

__all__ = [
    "REVISED_FIELDS",
    "Carrier",
    "Entry",
    "FailureEntry",
    "MessageEntry",
    "MessageKind",
    "RejectionEntry",
    "ToolEntry",
    "air_of",
    "block_text",
    "carried_record",
]

MessageKind = Literal["user", "agent", "thought"]
Carrier = Literal["session_info_update", "prompt_response"]


@dataclass(slots=True, kw_only=True)
class MessageEntry:
    kind: MessageKind
    session: str
    text: str
    first_frame: int
    last_frame: int


@dataclass(slots=True, kw_only=True)
class ToolEntry:
    session: str
    tool_call_id: str
    title: str
    status: str
    first_frame: int
    last_frame: int
    kind: Literal["tool"] = "tool"


@dataclass(slots=True, kw_only=True)
class FailureEntry:
    session: str
    id: str
    revision: int
    category: str
    severity: str
    title: str
    details: str | None
    actions: tuple[str, ...]  # as the client keeps them: known, deduplicated, in order
    carrier: Carrier  # of the revision shown
    first_frame: int  # where the entry was inserted (its position never changes)
    last_frame: int  # the frame of the revision shown
    kind: Literal["failure"] = "failure"


@dataclass(slots=True, kw_only=True)
class RejectionEntry:
    """A JSON-RPC error answering a prompt: what a legacy client shows instead of a record."""

    session: str
    code: object
    message: str
    first_frame: int
    last_frame: int
    kind: Literal["rejected"] = "rejected"


Entry = MessageEntry | ToolEntry | FailureEntry | RejectionEntry

# What a higher revision replaces; identity (session, id) and position (first_frame) stay.
REVISED_FIELDS = (
    "revision",
    "category",
    "severity",
    "title",
    "details",
    "actions",
    "carrier",
    "last_frame",
)


def carried_record(air: object) -> dict[str, Any] | None:
    """The record inside a carrier's `_meta.jetbrains.air`, if a v1 client would accept it."""
    air = as_dict(air)
    record = air.get("sessionFailure")
    version = air.get("version")
    if type(version) is not int or version != 1 or record_field_problems(record):
        return None
    return as_dict(record)


def air_of(meta: object) -> object:
    """`meta.jetbrains.air`, whatever shape `meta` has."""
    return as_dict(as_dict(meta).get("jetbrains")).get("air")


def block_text(block: object) -> str:
    """Text as is; other content blocks as a short placeholder, so the entry still shows."""
    block = as_dict(block)
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("resource_link", "resource"):
        resource = as_dict(block.get("resource"))
        return f"[{block.get('name') or block.get('uri') or resource.get('uri') or kind}]"
    return f"[{kind}]" if isinstance(kind, str) else ""
