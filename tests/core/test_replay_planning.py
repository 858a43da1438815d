"""History replay planning (`fsm.claude.replay`): ids, what replays as text, what is skipped."""

from __future__ import annotations

from typing import Any

import pytest

from fsm.claude.replay import ActiveScan, ReplayAction, ReplayPlanner
from fsm.claude.transcript_entries import NON_MESSAGE_TYPES, EntryKind, TranscriptEntry, parse_entry
from fsm.errors import PeerViolation

LIMIT = "You've hit your individual spend limit \u00b7 run /usage-credits to ask your admin"


def _entry(kind: str, uuid: str | None, text: str, model: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": [{"type": "text", "text": text}]}
    if model is not None:
        message["model"] = model
    entry: dict[str, Any] = {"type": kind, "message": message}
    if uuid is not None:
        entry["uuid"] = uuid
    return entry


def _plan(lines: list[dict[str, Any]], *, capable: bool = True) -> list[ReplayAction]:
    entries: list[TranscriptEntry] = [parse_entry(line) for line in lines]
    scan = ActiveScan()
    for entry in entries:
        scan.feed(entry)
    planner = ReplayPlanner(session_id="sess", capable=capable, active_uuid=scan.active_uuid)
    return [planner.plan(entry) for entry in entries]


def test_a_limit_after_a_prompt_without_uuid_takes_its_own_history_id() -> None:
    # Deviation 2 (docs/decisions.md#replay-ids): the limit's turn is the uuid-less prompt, not the
    # earlier one.
    actions = _plan(
        [
            _entry("user", "P1", "first"),
            _entry("assistant", "A1", "Done.", "claude-sonnet-4-5"),
            _entry("user", None, "second, stored without a uuid"),
            _entry("assistant", "L1", LIMIT, "<synthetic>"),
        ]
    )
    assert actions == [
        ReplayAction(replay=True),
        ReplayAction(replay=True),
        ReplayAction(replay=True),
        ReplayAction(restore=True, failure_id="sess:history-error:L1", title=LIMIT, active=True),
    ]


def test_a_limit_after_a_prompt_with_uuid_keeps_the_live_turn_id() -> None:
    actions = _plan(
        [
            _entry("user", None, "first, stored without a uuid"),
            _entry("user", "P2", "second"),
            _entry("assistant", "L1", LIMIT, "<synthetic>"),
        ]
    )
    assert actions[-1] == ReplayAction(
        restore=True, failure_id="P2:error", title=LIMIT, active=True
    )


LOGIN = "Please run /login \u00b7 API key is invalid"
API_ERROR = "API Error: 500 Internal server error"


def test_every_stored_message_but_a_usage_limit_replays_as_text_for_every_client() -> None:
    # docs/decisions.md#replaying-stored-messages: the synthetic login message and other error prose
    # replay as their text; only a usage limit becomes a record, and only for a capable client.
    lines = [
        _entry("user", "P1", "hi"),
        _entry("assistant", "A1", LOGIN, "<synthetic>"),
        _entry("user", "P2", "again"),
        _entry("assistant", "A2", API_ERROR, "<synthetic>"),
        _entry("user", "P3", "and again"),
        _entry("assistant", "A3", LIMIT, "<synthetic>"),
    ]
    text = ReplayAction(replay=True)
    assert _plan(lines, capable=False) == [text] * 6
    restored = ReplayAction(restore=True, failure_id="P3:error", title=LIMIT, active=True)
    assert _plan(lines, capable=True) == [text] * 5 + [restored]


def test_known_non_message_lines_are_skipped_and_unknown_types_are_unreadable() -> None:
    # What current Claude Code writes beside messages: never replayed, never an error.
    for kind in ("atis-latch", "api-request-shape", "api-request-blob", "system", "ai-title"):
        assert kind in NON_MESSAGE_TYPES
        entry = parse_entry({"type": kind, "uuid": "u", "message": {"role": "user"}})
        assert entry == TranscriptEntry(kind=EntryKind.NON_MESSAGE, uuid=None, top_level=False)
        planner = ReplayPlanner(session_id="sess", capable=True, active_uuid=None)
        assert planner.plan(entry) == ReplayAction()
    assert not NON_MESSAGE_TYPES & {"user", "assistant"}
    # A type nobody knows is unreadable (the shell counts it as corrupt).
    with pytest.raises(PeerViolation):
        parse_entry({"type": "mystery-entry", "uuid": "x"})
