"""One line of a session's transcript (Claude Code's JSONL), read for history replay.

Theory of operation: `parse_entry` turns one decoded JSON line into a `TranscriptEntry`, raising
`PeerViolation` for shapes it cannot read; the shell skips and counts those. A line of a known
non-message type (`NON_MESSAGE_TYPES`) is a `NON_MESSAGE` entry: skipped too, but it is not
corrupt. `is_prompt_entry` is the one rule for "this user entry opened a turn", which replay
(`replay.py`, which decides what each entry becomes) and the shell's transcript tail share.
Nothing here decides what is active or replayed.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, NamedTuple

from fsm.claude import synthetic_messages
from fsm.errors import PeerViolation

__all__ = [
    "LOCAL_ONLY_COMMANDS",
    "NON_MESSAGE_TYPES",
    "REPLAY_HIDDEN_COMMANDS",
    "EntryKind",
    "TranscriptEntry",
    "is_prompt_entry",
    "listed_title",
    "parse_entry",
    "spoken_content",
    "strip_marker_tags",
    "typed_prompt_said",
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
    construction was twice the cost."""

    kind: EntryKind
    uuid: str | None
    top_level: bool
    model: str | None = None
    text: str = ""
    text_block_count: int = 0
    content: tuple[Any, ...] = ()
    # Claude Code's mark on the message it writes when a turn ends in an API error: the one
    # trace of a failed turn a transcript keeps (it keeps no result).
    api_error: bool = False

    @property
    def is_usage_limit(self) -> bool:
        return (
            self.kind is EntryKind.ASSISTANT
            and self.top_level
            and bool(self.text)
            and synthetic_messages.is_synthetic_usage_limit(self.model, self.text)
        )

    @property
    def ends_its_turn_in_error(self) -> bool:
        return self.kind is EntryKind.ASSISTANT and self.top_level and self.api_error

    @property
    def opens_a_turn(self) -> bool:
        return self.kind is EntryKind.PROMPT and self.top_level

    @property
    def is_real_answer(self) -> bool:
        return (
            self.kind is EntryKind.ASSISTANT
            and self.top_level
            and synthetic_messages.is_real_model(self.model)
        )


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
    # Once per transcript line on `session/load`: written for speed.
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
        if is_prompt:
            # What the user said, without Claude Code's plumbing; the entry still opens its
            # turn (a `/model` ran then), it just shows nothing.
            blocks, texts = spoken_content(blocks, origin=entry.get("origin"))
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
        api_error=entry.get("isApiErrorMessage") is True,
    )


# What Claude Code wraps around a stored user message that nobody typed: a local command's
# invocation and output (the CLI's own display), and context it injects to steer the model
# (a reminder; a background task's stop, which the task frames already report).
_MARKER_TAGS = (
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
    "system-reminder",
    "task-notification",
)
_MARKERS = tuple((f"<{tag}>", f"</{tag}>") for tag in _MARKER_TAGS)

# Commands Claude Code answers without the model: their result is the command's output.
LOCAL_ONLY_COMMANDS = frozenset({"/context", "/heapdump", "/extra-usage"})
# Local commands whose marker-only messages are the CLI's own UI, never replayed. Any other
# command (a custom slash command, a skill) replays as the user typed it: `/name args`.
REPLAY_HIDDEN_COMMANDS = LOCAL_ONLY_COMMANDS | {"/compact", "/model", "/mcp", "/status", "/usage"}


def _marker_spans(text: str, opener: str, closer: str) -> dict[int, int]:
    """Where each closed marker of one name starts, and where it ends (past its closer).
    Markers of one name nest: an opener pairs with the closer that balances it, so an outer
    marker ends at its own closer, not at the inner one's. An opener no closer balances is
    text. Linear: every tag is found once, then paired on a stack."""
    tokens: list[tuple[int, bool]] = []
    for tag, opens in ((opener, True), (closer, False)):
        at = text.find(tag)
        while at != -1:
            tokens.append((at, opens))
            at = text.find(tag, at + len(tag))
    tokens.sort()
    spans: dict[int, int] = {}
    open_at: list[int] = []
    for at, opens in tokens:
        if opens:
            open_at.append(at)
        elif open_at:
            spans[open_at.pop()] = at + len(closer)
    return spans


def strip_marker_tags(text: str) -> str:
    """`text` without any `<tag>...</tag>` marker; a marker inside another (of any name) goes
    with it, and one of the same name nested in it ends at the closer that balances it (the
    reference adapter's scanner stops at the nearest one and leaves the outer closer behind).
    An opening tag that never closes is text, kept as written; so is a lone closing tag."""
    if text.find("<") == -1:
        return text  # the common case, once per prompt on load: no scan
    spans: dict[int, int] = {}
    for opener, closer in _MARKERS:
        if opener in text:
            spans.update(_marker_spans(text, opener, closer))
    if not spans:
        return text
    kept: list[str] = []
    copied = 0
    for start in sorted(spans):
        if start >= copied:  # not inside a marker already taken out
            kept.append(text[copied:start])
            copied = spans[start]
    kept.append(text[copied:])
    return "".join(kept)


def _marker_text(text: str, tag: str) -> str | None:
    opener, closer = f"<{tag}>", f"</{tag}>"
    start = text.find(opener)
    if start == -1:
        return None
    end = text.find(closer, start + len(opener))
    return None if end == -1 else text[start + len(opener) : end]


def _invocation(text: str) -> str | None:
    """The command a marker-only message ran, as typed (`/name args`); None for a hidden
    command, a command's output, or no command at all."""
    for output in ("local-command-stdout", "local-command-stderr"):
        if _marker_text(text, output) is not None:
            return None
    name = (_marker_text(text, "command-name") or "").strip()
    if not name.startswith("/") or name.split(" ", 1)[0] in REPLAY_HIDDEN_COMMANDS:
        return None
    args = (_marker_text(text, "command-args") or "").strip()
    return f"{name} {args}" if args else name


def _spoken_text(text: str) -> str | None:
    stripped = strip_marker_tags(text)
    return stripped if stripped.strip() else _invocation(text)


def spoken_content(
    blocks: tuple[Any, ...], *, origin: object = None
) -> tuple[tuple[Any, ...], list[str]]:
    """What the user said in a stored prompt: its blocks with Claude Code's markers taken out
    of each text (a text left empty goes, a custom command's markers become `/name args`),
    and those texts. Nothing for a background task's stop notice (a `task-notification`
    origin without a subkind; with one it delivers a prompt). The one rule for what replay
    shows as the user's message."""
    if (
        isinstance(origin, dict)
        and origin.get("kind") == "task-notification"
        and origin.get("subkind") is None
    ):
        return (), []
    kept: list[Any] = []
    texts: list[str] = []
    for block in blocks:
        text = block.get("text") if block.get("type") == "text" else None
        if not isinstance(text, str):
            kept.append(block)
            continue
        spoken = _spoken_text(text)
        if spoken is not None:
            kept.append(block if spoken is text else {**block, "text": spoken})
            texts.append(spoken)
    return tuple(kept), texts


def listed_title(title: str) -> str:
    """A stored title as a session list names the session: Claude Code's closed markers taken
    out (a first prompt the SDK lists as stored may carry a reminder appended to it), by the
    rule replay and the live name use, unless nothing would be left
    (docs/decisions.md#listed-titles)."""
    spoken = strip_marker_tags(title)
    return spoken if spoken.strip() else title


def typed_prompt_said(text: str) -> str:
    """What a prompt typed live says, by the rule replay applies to it once Claude Code has
    stored it (`spoken_content`): its markers taken out, and nothing at all when it runs a
    hidden local command (`/model opus`, stored as markers only). What names a session, live
    and on load alike."""
    words = text.split(None, 1)
    if words and words[0] in REPLAY_HIDDEN_COMMANDS:
        return ""
    return strip_marker_tags(text)
