"""Where `session/fork` cuts a session: JetBrains AIR's fork point
(`_meta.jetbrains.air.fork`), resolved to the transcript entry the copy ends with
(docs/client-authors.md, "JetBrains AIR").

Theory of operation: a client (any client: the key needs no capability) names a message by the
ACP `messageId` it was shown: the Anthropic API message id of an assistant message, else the
transcript uuid of the entry. The point is used only when its `version` is 1 and its
`messageId` is not blank; otherwise the whole session is forked. The id is tried as given and,
when it ends in `:segment:<n>` (older AIR builds), without that suffix. The message is looked
for first on the session's active branch (its last entry with that id), then among every
branch's assistant messages (the last entry of the message); failing both, an assistant
message is found by its content when the client sent a fingerprint (`sha256:<hex>` of the
message's text) and its occurrence (the 1-based count of messages with that fingerprint on the
message's own branch, itself included): a fingerprint only one message has wins outright,
otherwise exactly one message whose occurrence matches. Subagents' and sidechain entries are
never fork points. The reference adapter's `forkPoint`, `forkTranscript` and
`resolveFromFullHistory` are the model (docs/reference-adapter.md#fork-points). Pure functions
of their arguments.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ForkPoint",
    "fork_point",
    "fork_point_missing",
    "fork_point_uuid",
    "message_text_fingerprint",
]

_SEGMENT = re.compile(r":segment:\d+$")
_MAX_SAFE_INTEGER = 2**53 - 1

Entry = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ForkPoint:
    message_id: str
    fingerprint: str | None = None
    occurrence: int | None = None

    def candidates(self) -> list[str]:
        """The ids to look for: as given, then without a `:segment:<n>` suffix."""
        bare = _SEGMENT.sub("", self.message_id)
        return [self.message_id] if bare == self.message_id else [self.message_id, bare]


def fork_point(meta: object) -> ForkPoint | None:
    """The fork point a `session/fork`'s `_meta` names; None: fork the whole session."""
    jetbrains = meta.get("jetbrains") if isinstance(meta, Mapping) else None
    air = jetbrains.get("air") if isinstance(jetbrains, Mapping) else None
    point = air.get("fork") if isinstance(air, Mapping) else None
    if not isinstance(point, Mapping) or point.get("version") != 1 or point.get("version") is True:
        return None
    message_id = point.get("messageId")
    if not isinstance(message_id, str) or not message_id.strip():
        return None
    fingerprint = point.get("messageFingerprint")
    occurrence = point.get("messageOccurrence")
    whole = (
        isinstance(occurrence, int | float)
        and not isinstance(occurrence, bool)
        and float(occurrence).is_integer()
        and 0 < occurrence <= _MAX_SAFE_INTEGER
    )
    return ForkPoint(
        message_id=message_id.strip(),
        fingerprint=fingerprint.strip() or None if isinstance(fingerprint, str) else None,
        occurrence=int(occurrence) if whole else None,  # type: ignore[arg-type]
    )


def fork_point_missing(point: ForkPoint, session_id: str) -> tuple[str, dict[str, str]]:
    """The -32602 message and data when no message of the session is the point."""
    text = f"Fork point message {point.message_id} was not found in session {session_id}"
    return text, {"messageId": point.message_id}


def _grouping_id(entry: Entry) -> str | None:
    """The ACP `messageId` of a transcript entry: an assistant message's API id, else the
    entry's uuid."""
    if entry.get("type") == "assistant":
        message = entry.get("message")
        api_id = message.get("id") if isinstance(message, Mapping) else None
        if isinstance(api_id, str) and api_id:
            return api_id
    uuid = entry.get("uuid")
    return uuid if isinstance(uuid, str) and uuid else None


def _main_thread_assistant(entry: Entry) -> bool:
    return (
        entry.get("type") == "assistant"
        and entry.get("isSidechain") is not True
        and entry.get("parent_tool_use_id") is None
        and entry.get("parent_agent_id") is None
    )


def _text(message: object) -> str:
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        b["text"]
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def message_text_fingerprint(text: str) -> str:
    """`sha256:<hex>` of a message's text, as AIR computes it."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(slots=True)
class _Group:
    text: str = ""
    uuid: str | None = None


def _groups(entries: Sequence[Entry]) -> dict[str, _Group]:
    groups: dict[str, _Group] = {}
    for entry in entries:
        if not _main_thread_assistant(entry):
            continue
        message_id = _grouping_id(entry)
        if message_id is None:
            continue
        group = groups.setdefault(message_id, _Group())
        uuid = entry.get("uuid")
        if isinstance(uuid, str) and uuid:
            group.uuid = uuid
        group.text += _text(entry.get("message"))
    return groups


def _by_uuid(entries: Iterable[Entry]) -> dict[str, Entry]:
    return {e["uuid"]: e for e in entries if isinstance(e.get("uuid"), str)}


def _branch(leaf: str | None, by_uuid: Mapping[str, Entry]) -> list[Entry]:
    """The entries from `leaf` back to the session's start, newest first."""
    found: list[Entry] = []
    seen: set[str] = set()
    cursor = leaf
    while cursor is not None and cursor not in seen:
        seen.add(cursor)
        entry = by_uuid.get(cursor)
        if entry is None:
            break
        found.append(entry)
        parent = entry.get("parentUuid")
        cursor = parent if isinstance(parent, str) else None
    return found


def _active_leaf(entries: Sequence[Entry]) -> str | None:
    for entry in reversed(entries):
        if entry.get("type") in ("user", "assistant") and entry.get("isSidechain") is not True:
            uuid = entry.get("uuid")
            if isinstance(uuid, str) and uuid:
                return uuid
    return None


def _occurrence(
    target: str, fingerprint: str, by_uuid: Mapping[str, Entry], groups: Mapping[str, _Group]
) -> int:
    seen: set[str] = set()
    count = 0
    for entry in _branch(target, by_uuid):
        if not _main_thread_assistant(entry):
            continue
        message_id = _grouping_id(entry)
        if message_id is None or message_id in seen:
            continue
        seen.add(message_id)
        group = groups.get(message_id)
        if group is not None and message_text_fingerprint(group.text) == fingerprint:
            count += 1
    return count


def fork_point_uuid(point: ForkPoint, entries: Sequence[Entry]) -> str | None:
    """The uuid of the transcript entry the fork keeps last, from the session's `entries` in
    file order (every branch); None when no message of the session is the point."""
    by_uuid = _by_uuid(entries)
    active = _branch(_active_leaf(entries), by_uuid)  # newest first
    for candidate in point.candidates():
        for entry in active:
            if _grouping_id(entry) == candidate:
                return str(entry["uuid"])
    groups = _groups(entries)
    for candidate in point.candidates():
        group = groups.get(candidate)
        if group is not None and group.uuid:
            return group.uuid
    if point.fingerprint is None or point.occurrence is None:
        return None
    matches = [
        g.uuid
        for g in groups.values()
        if g.uuid and message_text_fingerprint(g.text) == point.fingerprint
    ]
    if len(matches) == 1:
        return matches[0]
    on_branch = [
        uuid
        for uuid in matches
        if _occurrence(uuid, point.fingerprint, by_uuid, groups) == point.occurrence
    ]
    return on_branch[0] if len(on_branch) == 1 else None
