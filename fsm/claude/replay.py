"""History replay planning (session/load): which stored entries become typed records.

Theory of operation: the shell reads a session's transcript (Claude Code's JSONL, one entry
per line) holding O(1) state:

1. The usage-limit failure that is still active is the latest top-level `<synthetic>`
   usage-limit message that no later real-model answer (`synthetic_messages.is_real_model`)
   followed. A `<synthetic>` local-command answer ("No response requested.") proves nothing
   and leaves it active. Only the last usage limit or real answer decides, so
   `active_from_newest` reads the entries newest first and stops at the first that decides
   (usually within the last few lines); `ActiveScan` finds the same reading oldest first.
   Live and replay apply one rule, `classify.recovers_a_usage_limit`: a real answer recovers
   only in a turn that did not fail. Live, the turn's result says whether it failed; on
   replay, Claude Code's `isApiErrorMessage` entry does, as a transcript keeps no result. A
   turn that failed with no such entry (a result-only error such as `error_during_execution`
   or `error_max_turns`) leaves the limit active live and inactive after `session/load`: the
   one difference left, as the transcript cannot show it (pinned by
   `tests/core/test_answer_rules.py`).
2. One pass in order: `ReplayPlanner.plan(entry)` says what to do with each entry: restore a
   usage limit as a typed failure (capable clients only), skip a non-message line, and replay
   everything else as its original transcript text, for every client: the synthetic login
   message and other error prose included (docs/decisions.md#replaying-stored-messages). A restored
   failure's id is the id its occurrence had live (docs/decisions.md#replay-ids): the last real
   prompt's uuid plus `:error`, or `<sessionId>:history-error:<messageUuid>` when no prompt precedes
   it or the last one was stored without a uuid. Tool-result carrier messages and meta messages are
   not prompts (`transcript_entries.is_prompt_entry`, the one rule the shell's transcript tail uses
   too).

Reading one transcript line into a `TranscriptEntry` (and what counts as a prompt) is
`fsm/claude/transcript_entries.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fsm import ids
from fsm.claude import classify
from fsm.claude.transcript_entries import EntryKind, TranscriptEntry

__all__ = [
    "ActiveScan",
    "ReplayAction",
    "ReplayPlanner",
    "active_from_newest",
    "ends_a_usage_limit",
]


def ends_a_usage_limit(entry: TranscriptEntry, *, turn_failed: bool) -> bool:
    """Whether `entry` ends the usage limit before it: a real model answer in a turn that did
    not end in an API error (header, point 1), the rule live turns apply at their result."""
    return classify.recovers_a_usage_limit(
        real_answer=entry.is_real_answer, turn_failed=turn_failed
    )


class ActiveScan:
    """First pass: the uuid of the usage-limit message still active at the end, if any. A real
    answer counts once its turn is over without an API error: at the next prompt or the end."""

    def __init__(self) -> None:
        self._limit: str | None = None
        self._answered = False  # a real answer in the turn being read, no error after it yet

    @property
    def active_uuid(self) -> str | None:
        return None if self._answered else self._limit

    def feed(self, entry: TranscriptEntry) -> None:
        if entry.is_usage_limit:
            self._limit, self._answered = entry.uuid, False
        elif entry.ends_its_turn_in_error:
            self._answered = False
        elif entry.opens_a_turn:
            if self._answered:
                self._limit, self._answered = None, False
        elif ends_a_usage_limit(entry, turn_failed=False):
            self._answered = True


def active_from_newest(entries: Iterable[TranscriptEntry]) -> str | None:
    """What `ActiveScan` ends with, given the entries newest first: the first usage limit, or
    real answer of a turn that did not end in an error, decides; nothing after it is read."""
    turn_failed = False  # the turn being read (newest first, so its end came first) failed
    for entry in entries:
        if entry.is_usage_limit:
            return entry.uuid
        if entry.ends_its_turn_in_error:
            turn_failed = True
        elif entry.opens_a_turn:
            turn_failed = False
        elif ends_a_usage_limit(entry, turn_failed=turn_failed):
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
            # its turn with no live id to recover, never an earlier turn's
            # (docs/decisions.md#replay-ids).
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
