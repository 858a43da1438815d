"""History replay planning (session/load): which stored entries become typed records.

Theory of operation: the shell reads a session's transcript (Claude Code's JSONL, one entry
per line) holding O(1) state:

1. The usage-limit failure that is still active is the latest top-level `<synthetic>`
   usage-limit message that no later real-model answer (`classify.is_real_model`) followed. A
   `<synthetic>` local-command answer ("No response requested.") proves nothing and leaves it
   active. Only the last usage limit or real answer decides, so `active_from_newest` reads the
   entries newest first and stops at the first that decides (usually within the last few
   lines); `ActiveScan` finds the same reading oldest first.
   Live and replay differ here, knowingly: both apply `classify.recovers_a_usage_limit`, but
   live the turn's result says whether it failed, and a transcript keeps no result. So a real
   answer in a turn that then ended in error leaves the limit active live, and inactive after
   `session/load` (pinned by `tests/core/test_answer_rules.py`).
2. One pass in order: `ReplayPlanner.plan(entry)` says what to do with each entry: restore a
   usage limit as a typed failure (capable clients only), skip a non-message line, and replay
   everything else as its original transcript text, for every client: the synthetic login
   message and other error prose included (DECISIONS row 28). A restored failure's id is the
   id its occurrence had live (DECISIONS row 14): the last real prompt's uuid plus `:error`,
   or `<sessionId>:history-error:<messageUuid>` when no prompt precedes it or the last one was
   stored without a uuid. Tool-result carrier messages and meta messages are not prompts
   (`is_prompt_entry`, the one rule the shell's transcript tail uses too).

`parse_entry` turns one decoded JSON line into a `TranscriptEntry`, raising `PeerViolation` for
shapes it cannot read; the shell skips and counts those. A line of a known non-message type
(`NON_MESSAGE_TYPES`) is a `NON_MESSAGE` entry: skipped too, but it is not corrupt.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple

from fsm import classify, ids
from fsm.errors import PeerViolation

__all__ = [
    "NON_MESSAGE_TYPES",
    "ActiveScan",
    "EntryKind",
    "ReplayAction",
    "ReplayPlanner",
    "TranscriptEntry",
    "active_from_newest",
    "is_prompt_entry",
    "parse_entry",
]

# Entry types Claude Code writes that carry no conversation message: never replayed (one,
# `api-request-blob`, holds the request with its system prompt), skipped silently, and counted
# apart from corrupt lines. Taken from the entry-type table of the Claude Code CLI 2.1.332
# bundled with the pinned claude-agent-sdk; a type missing here is read as a corrupt line.
NON_MESSAGE_TYPES = frozenset(
    {
        "agent-color",
        "agent-name",
        "agent-setting",
        "ai-title",
        "api-request",
        "api-request-blob",
        "api-request-resumed",
        "api-request-shape",
        "artifact-autoreact-ledger",
        "artifact-comment-monitor",
        "atis-latch",
        "attachment",
        "attribution-snapshot",
        "bridge-session",
        "content-replacement",
        "continued-in",
        "cost-state",
        "custom-title",
        "data-flow-incomplete",
        "data-flow-records",
        "derived-from",
        "dev-mods",
        "ended-by-model",
        "file-history-delta",
        "file-history-snapshot",
        "fork-context-ref",
        "frame-link",
        "history-suppression",
        "host-row",
        "hybrid-organization",
        "isolation-latch",
        "last-prompt",
        "memory-mode",
        "mode",
        "observer-ref",
        "permission-mode",
        "pr-link",
        "progress",
        "queue-operation",
        "relocated",
        "repl-mode",
        "resume-head-vouch",
        "session-owner",
        "summary",
        "system",
        "tag",
        "tools-used",
        "worktree-state",
    }
)


class EntryKind(Enum):
    PROMPT = "prompt"  # a real user prompt
    USER_OTHER = "user-other"  # tool results, meta and compact-summary user entries
    ASSISTANT = "assistant"
    NON_MESSAGE = "non-message"


class TranscriptEntry(NamedTuple):
    """One transcript line, read. A named tuple rather than a frozen dataclass: just as
    immutable, and one is built per line on `session/load`, where the dataclass's
    construction was twice the cost (issue 15)."""

    kind: EntryKind
    uuid: str | None
    top_level: bool
    model: str | None = None
    text: str = ""
    text_block_count: int = 0
    content: tuple[Any, ...] = ()

    @property
    def is_usage_limit(self) -> bool:
        return (
            self.kind is EntryKind.ASSISTANT
            and self.top_level
            and bool(self.text)
            and classify.is_synthetic_usage_limit(self.model, self.text)
        )

    @property
    def is_real_answer(self) -> bool:
        return (
            self.kind is EntryKind.ASSISTANT
            and self.top_level
            and classify.is_real_model(self.model)
        )

    @property
    def ends_a_usage_limit(self) -> bool:
        # A transcript keeps no result, so no turn is known to have failed (header, point 1).
        return classify.recovers_a_usage_limit(real_answer=self.is_real_answer, turn_failed=False)


# One value for every non-message line (frozen, so it can be shared): the common case costs
# no construction.
_NON_MESSAGE = TranscriptEntry(kind=EntryKind.NON_MESSAGE, uuid=None, top_level=False)


def _read_content(content: object) -> tuple[tuple[Any, ...], list[str], bool]:
    """A message's blocks (the objects among them), the texts of its text blocks, and whether
    one block is other than a tool result: one pass, as this runs once per line."""
    if isinstance(content, str):
        return ({"type": "text", "text": content},), [content], True
    if not isinstance(content, list):
        raise PeerViolation("message content is neither text nor a list of blocks")
    blocks: list[Any] = []
    texts: list[str] = []
    other = False
    for block in content:
        if isinstance(block, dict):
            blocks.append(block)
            kind = block.get("type")
            if kind == "text":
                other = True
                text = block.get("text")
                if isinstance(text, str):
                    texts.append(text)
            elif kind != "tool_result":
                other = True
    return tuple(blocks), texts, other


def _opens_a_turn(entry: dict[str, Any], not_only_tool_results: bool) -> bool:
    return not_only_tool_results and not entry.get("isMeta") and not entry.get("isCompactSummary")


def is_prompt_entry(entry: object) -> bool:
    """A user entry that opened a turn: text, or a block other than a tool result, and neither
    Claude Code's meta entries nor a compaction summary. The one rule replay and the shell's
    transcript tail (`adapter/claude/transcript_tail.py`) apply."""
    if not isinstance(entry, dict) or entry.get("type") != "user":
        return False
    message = entry.get("message")
    if not isinstance(message, dict):
        return False
    try:
        _, _, not_only_tool_results = _read_content(message.get("content"))
    except PeerViolation:
        return False
    return _opens_a_turn(entry, not_only_tool_results)


def parse_entry(entry: object) -> TranscriptEntry:
    """Read one decoded transcript line. Raises `PeerViolation` for an unreadable shape or an
    unknown entry type."""
    # Once per transcript line on `session/load`: written for speed (issue 15).
    if not isinstance(entry, dict):
        raise PeerViolation("a transcript line is not an object")
    kind = entry.get("type")
    if kind != "user" and kind != "assistant":
        if not isinstance(kind, str):
            raise PeerViolation("a transcript entry's type is not a string")
        if kind in NON_MESSAGE_TYPES:
            return _NON_MESSAGE
        raise PeerViolation(f"unknown transcript entry type {kind!r}")
    message = entry.get("message")
    if not isinstance(message, dict):
        raise PeerViolation("a transcript message has no message object")
    uuid = entry.get("uuid")
    blocks, texts, other = _read_content(message.get("content"))
    if kind == "user":
        is_prompt = _opens_a_turn(entry, other)
        entry_kind, model = (EntryKind.PROMPT if is_prompt else EntryKind.USER_OTHER), None
    else:
        entry_kind, model = EntryKind.ASSISTANT, message.get("model")
    return TranscriptEntry(
        kind=entry_kind,
        uuid=uuid if isinstance(uuid, str) and uuid else None,
        top_level=not entry.get("isSidechain") and entry.get("parent_tool_use_id") is None,
        model=model if isinstance(model, str) else None,
        text="".join(texts),
        text_block_count=len(texts),
        content=blocks,
    )


class ActiveScan:
    """First pass: the uuid of the usage-limit message still active at the end, if any."""

    def __init__(self) -> None:
        self.active_uuid: str | None = None

    def feed(self, entry: TranscriptEntry) -> None:
        if entry.is_usage_limit:
            self.active_uuid = entry.uuid
        elif entry.ends_a_usage_limit:
            self.active_uuid = None


def active_from_newest(entries: Iterable[TranscriptEntry]) -> str | None:
    """What `ActiveScan` ends with, given the entries newest first: the first usage limit or
    real answer met decides, and nothing after it is read."""
    for entry in entries:
        if entry.is_usage_limit:
            return entry.uuid
        if entry.ends_a_usage_limit:
            return None
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayAction:
    """What to do with one entry: `replay` it as messages, `restore` a typed failure (then
    `failure_id`, `title` and `active` are set), or neither (skip)."""

    replay: bool = False
    restore: bool = False
    failure_id: str = ""
    title: str = ""
    active: bool = False


_REPLAY = ReplayAction(replay=True)
_SKIP = ReplayAction()


class ReplayPlanner:
    """Second pass. `capable` clients get typed records instead of the usage-limit prose."""

    def __init__(self, *, session_id: str, capable: bool, active_uuid: str | None) -> None:
        self._session_id = session_id
        self._capable = capable
        self._active_uuid = active_uuid
        self._last_prompt: str | None = None
        self._prompt_id_used = False
        self._entries = 0

    def plan(self, entry: TranscriptEntry) -> ReplayAction:
        self._entries += 1
        if entry.kind is EntryKind.NON_MESSAGE:
            return _SKIP
        if entry.kind is EntryKind.PROMPT and entry.top_level:
            # The last prompt names the turn, uuid or not: a prompt stored without one leaves
            # its turn with no live id to recover, never an earlier turn's (row 14).
            self._last_prompt, self._prompt_id_used = entry.uuid, False
            return _REPLAY
        if entry.is_usage_limit and self._capable:
            if self._last_prompt is not None and not self._prompt_id_used:
                # The turn's one live failure id; a second limit in the same turn was never a
                # record of its own live, so it falls back to its message's id.
                failure_id = ids.turn_failure_id(self._last_prompt)
                self._prompt_id_used = True
            else:
                message = entry.uuid or f"entry-{self._entries}"
                failure_id = ids.history_failure_id(self._session_id, message)
            return ReplayAction(
                restore=True,
                failure_id=failure_id,
                title=entry.text,
                active=entry.uuid is not None and entry.uuid == self._active_uuid,
            )
        return _REPLAY
