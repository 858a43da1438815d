"""The rules live turns and replay share, each with one home: what a real model answer is
(`synthetic_messages.is_real_model`, also the shell's transcript tail's), when a usage limit
recovers (`classify.recovers_a_usage_limit`) and what a prompt entry is
(`transcript_entries.is_prompt_entry`).
Live and replay agree on a turn that failed with an API error (its `isApiErrorMessage` entry);
where they still differ (a result-only failure, which a transcript cannot show), the
difference is the one `fsm/claude/replay.py`'s header names, pinned here.
"""

from __future__ import annotations

from typing import Any

import pytest

from fsm import PromptEchoed
from fsm.claude import classify, synthetic_messages
from fsm.claude.replay import ActiveScan, active_from_newest
from fsm.claude.transcript_entries import EntryKind, is_prompt_entry, parse_entry
from fsm.effects import Effect, PublishRecord
from fsm.events import (
    AssistantMessageReceived,
    DeliveryConfirmed,
    HistoryFailureFound,
    PromptSent,
    ResultReceived,
)
from fsm.session import SessionCore

E = "epoch-1"
REAL = "claude-sonnet-4-5"
LIMIT = "You've hit your individual spend limit \u00b7 run /usage-credits to ask your admin"


@pytest.mark.parametrize(
    ("model", "real"),
    [
        (REAL, True),
        (" claude-haiku-5-5 ", True),
        ("<synthetic>", False),
        ("<local>", False),  # any placeholder Claude Code may write, not only today's
        ("", False),
        ("  ", False),
        (None, False),
        (5, False),
    ],
)
def test_a_real_model_answer_is_named_by_a_model(model: object, real: bool) -> None:
    assert synthetic_messages.is_real_model(model) is real


def test_a_usage_limit_recovers_at_a_real_answer_of_a_turn_that_did_not_fail() -> None:
    recovers = classify.recovers_a_usage_limit
    assert recovers(real_answer=True, turn_failed=False)
    assert not recovers(real_answer=True, turn_failed=True)
    assert not recovers(real_answer=False, turn_failed=False)


def _user(content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": content}, **extra}


@pytest.mark.parametrize(
    ("entry", "prompt"),
    [
        (_user("hello"), True),
        (_user([{"type": "text", "text": "hello"}]), True),
        (_user([{"type": "image", "source": {}}]), True),
        (_user([{"type": "tool_result", "tool_use_id": "t"}]), False),
        (_user([]), False),  # no block at all opens no turn
        (_user("hello", isMeta=True), False),
        (_user("summary of the conversation so far", isCompactSummary=True), False),
        (_user(7), False),  # unreadable content: not a prompt, never an exception
        ({"type": "user", "message": "hello"}, False),
        ({"type": "assistant", "message": {"content": "hello"}}, False),
        ("hello", False),
    ],
)
def test_a_prompt_entry(entry: object, prompt: bool) -> None:
    assert is_prompt_entry(entry) is prompt
    message = entry.get("message") if isinstance(entry, dict) else None
    readable = isinstance(message, dict) and isinstance(message.get("content"), str | list)
    if readable and isinstance(entry, dict) and entry.get("type") == "user":
        # Replay reads a prompt by the same rule.
        assert (parse_entry(entry).kind is EntryKind.PROMPT) is prompt


def _deliver(core: SessionCore, effects: list[Effect]) -> None:
    for effect in effects:
        if isinstance(effect, PublishRecord):
            core.handle(DeliveryConfirmed(id=effect.record.id, revision=effect.record.revision))


def _said(text: str, model: str) -> AssistantMessageReceived:
    return AssistantMessageReceived(epoch=E, model=model, text=text, text_block_count=1)


API_ERROR = "API Error: 500 Internal server error"


def _live_limit_after(*messages: AssistantMessageReceived, failed: ResultReceived) -> bool:
    """Live: a restored, active usage limit, then a turn with `messages` ending in `failed`:
    whether the limit is still active."""
    core = SessionCore(session_id="s", epoch=E, capable=True, started=True)
    try:
        _deliver(core, core.handle(HistoryFailureFound(id="u-1:error", title=LIMIT, active=True)))
        core.handle(PromptSent(turn_id="t2"))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id="t2"))
        for message in messages:
            _deliver(core, core.handle(message))
        _deliver(core, core.handle(failed))
        return "u-1:error" in {r.id for r in core.active()}
    finally:
        core.close()


def _replayed_limit_after(*turn: dict[str, Any]) -> str | None:
    """Replay: the same story as a transcript; the uuid still active, read both ways."""
    transcript = [
        {"type": "user", "uuid": "u-1", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "a-1", "message": {"model": "<synthetic>", "content": LIMIT}},
        {"type": "user", "uuid": "t2", "message": {"role": "user", "content": "again"}},
        *turn,
    ]
    entries = [parse_entry(line) for line in transcript]
    scan = ActiveScan()
    for entry in entries:
        scan.feed(entry)
    newest = active_from_newest(reversed(entries))
    assert newest == scan.active_uuid
    return newest


def test_a_real_answer_in_a_turn_that_ends_in_an_api_error_keeps_the_limit_live_and_replayed() -> (
    None
):
    still_active = _live_limit_after(
        _said("Half an answer.", REAL),
        _said(API_ERROR, "<synthetic>"),
        failed=ResultReceived(epoch=E, subtype="success", is_error=True),
    )
    assert still_active
    replayed = _replayed_limit_after(
        {"type": "assistant", "uuid": "a-2", "message": {"model": REAL, "content": "Half an"}},
        {
            "type": "assistant",
            "uuid": "a-3",
            "isApiErrorMessage": True,
            "message": {"model": "<synthetic>", "content": API_ERROR},
        },
    )
    assert replayed == "a-1"


def test_a_real_answer_in_a_turn_that_did_not_fail_ends_the_limit_live_and_replayed() -> None:
    still_active = _live_limit_after(
        _said("A whole answer.", REAL),
        failed=ResultReceived(epoch=E, subtype="success", is_error=False),
    )
    assert not still_active
    replayed = _replayed_limit_after(
        {"type": "assistant", "uuid": "a-2", "message": {"model": REAL, "content": "A whole"}},
    )
    assert replayed is None


def test_an_api_error_in_an_earlier_turn_does_not_undo_a_later_turns_recovery() -> None:
    replayed = _replayed_limit_after(
        {
            "type": "assistant",
            "uuid": "a-2",
            "isApiErrorMessage": True,
            "message": {"model": "<synthetic>", "content": API_ERROR},
        },
        {"type": "user", "uuid": "t3", "message": {"role": "user", "content": "once more"}},
        {"type": "assistant", "uuid": "a-3", "message": {"model": REAL, "content": "Here it is"}},
    )
    assert replayed is None


def test_a_result_only_failure_keeps_the_limit_live_but_not_after_a_reload() -> None:
    # Live: a restored, active usage limit; the next turn gets a real answer, then fails.
    core = SessionCore(session_id="s", epoch=E, capable=True, started=True)
    try:
        _deliver(core, core.handle(HistoryFailureFound(id="u-1:error", title=LIMIT, active=True)))
        core.handle(PromptSent(turn_id="t2"))
        core.handle(PromptEchoed(epoch=core.epoch, turn_id="t2"))
        _deliver(core, core.handle(_said("Half an answer.", REAL)))
        failed = ResultReceived(epoch=E, subtype="error_during_execution", is_error=True)
        _deliver(core, core.handle(failed))
        assert "u-1:error" in {r.id for r in core.active()}
    finally:
        core.close()
    # Replay of the same transcript: a result-only failure leaves no entry, so the real
    # answer ends the limit (the one difference left, `fsm/claude/replay.py`'s header).
    transcript = [
        {"type": "user", "uuid": "u-1", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "a-1", "message": {"model": "<synthetic>", "content": LIMIT}},
        {"type": "user", "uuid": "t2", "message": {"role": "user", "content": "again"}},
        {"type": "assistant", "uuid": "a-2", "message": {"model": REAL, "content": "Half an"}},
    ]
    entries = [parse_entry(line) for line in transcript]
    assert active_from_newest(reversed(entries[:2])) == "a-1"
    assert active_from_newest(reversed(entries)) is None
