"""Hypothesis fuzzing, in process, of everything the adapter reads from a peer it does not control.

- Capability declarations: arbitrary JSON as `clientCapabilities._meta`, through
  `fsm.wire.negotiation.negotiate` (never raises; on exactly when docs/decisions.md#negotiation
  says).
  End to end through `initialize` on one adapter process: `tests/e2e/test_initialize_fuzz.py`.
- Claude frames: dicts shaped like assistant / user / result / system / rate_limit_event frames,
  with fields missing or of the wrong type, through the SDK's `parse_message`, then
  `adapter.claude.translate.event_for` (and the update builders), then `SessionCore.handle`. Only
  the documented exceptions (`MessageParseError`, `PeerViolation`, `TypeError`, `ValueError`) may
  escape the parser and translate; nothing may escape the core for an event translate produced.
- Transcript lines: arbitrary JSON through `fsm.claude.transcript_entries.parse_entry` (raises only
  `PeerViolation`), `ActiveScan.feed` and `ReplayPlanner.plan` (never raise).
"""

from __future__ import annotations

import math
from typing import Any

from claude_agent_sdk import AssistantMessage, StreamEvent, UserMessage
from claude_agent_sdk._errors import MessageParseError
from claude_agent_sdk._internal.message_parser import parse_message
from hypothesis import example, given
from hypothesis import strategies as st

from adapter.claude.translate import event_for
from adapter.view.turn_view import TurnView, blocks_of
from fsm import (
    SESSION_FAILURE_KEYS,
    ActiveScan,
    DeliveryConfirmed,
    PeerViolation,
    PromptSent,
    PublishRecord,
    ReplayPlanner,
    SessionCore,
    SettlePrompt,
    active_from_newest,
    negotiate,
    parse_entry,
    session_failure_record,
)
from tests.support.fuzz_values import CAPABILITY_META, FAST, JSON, frame, maybe

# --- capability declarations ------------------------------------------------------------------


def _version_ok(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 1
    if isinstance(value, float):
        return math.isfinite(value) and value.is_integer() and value >= 1
    return False


def _oracle(meta: object) -> bool:
    """docs/decisions.md#negotiation, written out again."""
    if not isinstance(meta, dict):
        return False
    jetbrains = meta.get("jetbrains")
    air = jetbrains.get("air") if isinstance(jetbrains, dict) else None
    if not isinstance(air, dict):
        return False
    capabilities = air.get("capabilities")
    return (
        _version_ok(air.get("version"))
        and isinstance(capabilities, list)
        and "sessionFailure" in [c for c in capabilities if isinstance(c, str)]
    )


@FAST
@given(meta=CAPABILITY_META)
def test_negotiate_never_raises_and_follows_row_1(meta: Any) -> None:
    dialects = negotiate(meta)
    assert dialects.session_failure is _oracle(meta)


# --- Claude frames ----------------------------------------------------------------------------

_text = st.text(max_size=30)
_ids = st.sampled_from(["s-1", "u-1", "toolu_1"]) | _text
_models = st.sampled_from(["claude-sonnet-4-5", "<synthetic>", ""]) | _text
_error_kinds = st.sampled_from(
    ["rate_limit", "authentication_failed", "server_error", "overloaded", "billing_error", "x"]
)
_claude_texts = st.sampled_from(
    [
        "You've hit your individual spend limit · run /usage-credits",
        "Please run /login · API key is invalid",
        "API Error: 529 Overloaded.",
        "Hello.",
    ]
) | st.text(max_size=40)

_block = st.one_of(
    frame({"type": st.just("text"), "text": maybe(_claude_texts)}, {}),
    frame({"type": st.just("thinking"), "thinking": maybe(_text), "signature": maybe(_text)}, {}),
    frame(
        {
            "type": st.just("tool_use"),
            "id": maybe(_ids),
            "name": maybe(st.sampled_from(["Bash", "Read", "Edit"]) | _text),
            "input": maybe(st.dictionaries(_text, JSON, max_size=2)),
        },
        {},
    ),
    frame(
        {"type": st.just("tool_result"), "tool_use_id": maybe(_ids)},
        {"content": JSON, "is_error": JSON},
    ),
    JSON,
)
_message = frame(
    {
        "role": st.just("assistant"),
        "model": maybe(_models),
        "content": maybe(st.lists(_block, max_size=3)),
    },
    {"stop_reason": maybe(st.sampled_from(["end_turn", "refusal", "max_tokens"])), "usage": JSON},
)
ASSISTANT = frame(
    {"type": st.just("assistant"), "message": maybe(_message)},
    {
        "error": maybe(_error_kinds),
        "parent_tool_use_id": st.none() | _ids,
        "session_id": _ids,
        "uuid": _ids,
        "user_message_uuid": _ids,
    },
)
USER = frame(
    {
        "type": st.just("user"),
        "message": maybe(
            frame({"role": st.just("user"), "content": maybe(st.lists(_block, max_size=3))}, {})
        ),
    },
    {"parent_tool_use_id": st.none() | _ids, "uuid": _ids, "tool_use_result": JSON},
)
# Small numbers, any numbers, and integers no float can hold (JSON has no bound on them).
_ints = (
    st.integers(min_value=-2, max_value=12)
    | st.integers()
    | st.sampled_from([2**63, 10**400, -(10**400)])
)
RESULT = frame(
    {
        "type": st.just("result"),
        "subtype": maybe(
            st.sampled_from(
                ["success", "error_during_execution", "error_max_turns", "error_max_budget_usd"]
            )
        ),
        "duration_ms": maybe(_ints),
        "duration_api_ms": maybe(_ints),
        "is_error": maybe(st.booleans()),
        "num_turns": maybe(_ints),
        "session_id": maybe(_ids),
    },
    {
        "result": maybe(_claude_texts),
        "errors": maybe(st.lists(_claude_texts, max_size=2)),
        "stop_reason": maybe(st.sampled_from(["end_turn", "refusal", "max_tokens"])),
        "origin": maybe(st.fixed_dictionaries({"kind": maybe(st.sampled_from(["peer", "user"]))})),
        "deferred_tool_use": JSON,
        "api_error_status": JSON,
    },
)
SYSTEM = frame(
    {
        "type": st.just("system"),
        "subtype": maybe(
            st.sampled_from(
                [
                    "api_retry",
                    "model_refusal_fallback",
                    "worker_shutting_down",
                    "session_state_changed",
                    "init",
                    "task_started",
                    "task_notification",
                    "hook_started",
                    "mirror_error",
                ]
            )
        ),
    },
    {
        "attempt": maybe(_ints),
        "max_retries": maybe(_ints),
        "error_status": maybe(st.sampled_from([None, 401, 429, 500, 529]) | _ints),
        "error": maybe(_error_kinds),
        "retry_delay_ms": maybe(_ints),
        "no_response": maybe(
            st.fixed_dictionaries({"waited_ms": maybe(_ints), "retry_wait_ms": maybe(_ints)})
        ),
        "original_model": maybe(_models),
        "fallback_model": maybe(_models),
        "api_refusal_category": maybe(_text),
        "api_refusal_explanation": maybe(_text),
        "direction": maybe(st.sampled_from(["retry", "revert"])),
        "scope": maybe(st.sampled_from(["session", "local"])),
        "state": maybe(st.sampled_from(["idle", "running", "requires_action"])),
        "session_id": _ids,
        "uuid": _ids,
        "task_id": JSON,
        "description": JSON,
    },
)
RATE_LIMIT = frame(
    {
        "type": st.just("rate_limit_event"),
        "rate_limit_info": maybe(
            frame(
                {"status": maybe(st.sampled_from(["allowed", "rejected"]))},
                {"resetsAt": maybe(_ints), "rateLimitType": JSON},
            )
        ),
        "uuid": maybe(_ids),
        "session_id": maybe(_ids),
    },
    {},
)
_STREAM_EVENT_TYPES = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
]
_DELTA = frame(
    {"type": maybe(st.sampled_from(["text_delta", "thinking_delta", "input_json_delta"]))},
    {"text": maybe(_text), "thinking": maybe(_text), "partial_json": JSON},
)
STREAM = frame(
    {
        "type": st.just("stream_event"),
        "uuid": maybe(_ids),
        "session_id": maybe(_ids),
        "event": maybe(
            frame(
                {"type": maybe(st.sampled_from(_STREAM_EVENT_TYPES))},
                {
                    "message": maybe(frame({"id": maybe(_ids)}, {"model": maybe(_models)})),
                    "delta": maybe(_DELTA),
                    "content_block": maybe(
                        frame(
                            {"type": maybe(st.sampled_from(["text", "tool_use"]))},
                            {"id": maybe(_ids), "name": maybe(_text)},
                        )
                    ),
                },
            )
        ),
    },
    {"parent_tool_use_id": maybe(_ids)},
)
CLAUDE_FRAME = st.one_of(ASSISTANT, USER, RESULT, SYSTEM, RATE_LIMIT, STREAM, JSON)

# What the parser and translate are documented to raise for a frame they cannot take.
DOCUMENTED = (MessageParseError, PeerViolation, TypeError, ValueError)
EPOCH = "epoch-1"


def _translate(data: Any) -> Any:
    """Parser, then translate (the event and the session updates): the event, or None when the
    frame was refused with a documented exception."""
    try:
        message = parse_message(data)
        if message is None:
            return None
        event = event_for(message, EPOCH)
        view = TurnView(cwd="/work", live=True, terminal=True)
        if isinstance(message, StreamEvent):
            parent = message.parent_tool_use_id
            view.stream_event(message.event, parent if isinstance(parent, str) else None)
        elif isinstance(message, AssistantMessage):
            parent = message.parent_tool_use_id
            view.assistant(
                blocks_of(message.content),
                message_id=message.message_id if isinstance(message.message_id, str) else None,
                parent=parent if isinstance(parent, str) else None,
            )
        elif isinstance(message, UserMessage):
            view.user(blocks_of(message.content), tool_use_result=message.tool_use_result)
        return event
    except DOCUMENTED:
        return None


# Shapes the fuzzer found once, kept so they are tried every run.
_TOOL_USE_WITHOUT_NAME = {
    "type": "assistant",
    "message": {
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": None, "input": {}}],
    },
}
_RETRY_DELAY_TOO_LARGE = {
    "type": "system",
    "subtype": "api_retry",
    "attempt": 1,
    "max_retries": 10,
    "error_status": 529,
    "error": "overloaded",
    "retry_delay_ms": 10**400,
}
_RETRY_WAIT_TOO_LARGE = {
    **_RETRY_DELAY_TOO_LARGE,
    "retry_delay_ms": 500,
    "error_status": None,
    "no_response": {"waited_ms": 10**400, "retry_wait_ms": 500},
}


@FAST
@example(data=_TOOL_USE_WITHOUT_NAME)
@given(data=CLAUDE_FRAME)
def test_parser_and_translate_raise_only_documented_errors(data: Any) -> None:
    _translate(data)


def _translated_or_none(data: Any) -> Any:
    # The core's own test: whatever translate refuses, for any reason, never reaches it (the
    # translate contract is the test above).
    try:
        return _translate(data)
    except Exception:
        return None


@FAST
@example(frames=[_RETRY_DELAY_TOO_LARGE], capable=True)
@example(frames=[_RETRY_WAIT_TOO_LARGE], capable=True)
@given(frames=st.lists(CLAUDE_FRAME, min_size=1, max_size=6), capable=st.booleans())
def test_core_takes_every_event_translate_produces(frames: list[Any], capable: bool) -> None:
    core = SessionCore(session_id="s-1", epoch=EPOCH, capable=capable)
    turns = 0
    try:
        for data in frames:
            if not core.turn.live:
                turns += 1
                core.handle(PromptSent(turn_id=f"turn-{turns}"))
            event = _translated_or_none(data)
            if event is None:
                continue
            for effect in core.handle(event):
                record = None
                if isinstance(effect, PublishRecord):
                    record = effect.record
                    # The shell performs the send and reports it back, as it always does.
                    core.handle(DeliveryConfirmed(id=record.id, revision=record.revision))
                elif isinstance(effect, SettlePrompt):
                    record = effect.record
                if record is not None:
                    assert set(session_failure_record(record)) <= SESSION_FAILURE_KEYS
    finally:
        core.close()


# --- transcript lines -------------------------------------------------------------------------

_entry_message = frame(
    {"content": maybe(st.lists(_block, max_size=3) | _claude_texts)},
    {"role": maybe(st.sampled_from(["user", "assistant"])), "model": maybe(_models)},
)
TRANSCRIPT_ENTRY = st.one_of(
    frame(
        {
            "type": maybe(st.sampled_from(["user", "assistant", "summary", "system", "x"])),
            "message": maybe(_entry_message),
        },
        {
            "uuid": maybe(_ids),
            "isSidechain": JSON,
            "isMeta": JSON,
            "isCompactSummary": JSON,
            "isApiErrorMessage": st.one_of(st.booleans(), JSON),
            "parent_tool_use_id": JSON,
        },
    ),
    JSON,
)


@FAST
@example(lines=[{"type": [], "message": None}], capable=True)
@given(lines=st.lists(TRANSCRIPT_ENTRY, max_size=8), capable=st.booleans())
def test_transcript_lines_raise_only_peer_violation_and_planning_never_raises(
    lines: list[Any], capable: bool
) -> None:
    entries = []
    for line in lines:
        try:
            entries.append(parse_entry(line))
        except PeerViolation:
            continue
    scan = ActiveScan()
    for entry in entries:
        scan.feed(entry)
    # The replay reads backwards for it: the same answer as the forward scan.
    assert active_from_newest(reversed(entries)) == scan.active_uuid
    planner = ReplayPlanner(session_id="s-1", capable=capable, active_uuid=scan.active_uuid)
    for entry in entries:
        action = planner.plan(entry)
        if action.restore:
            assert action.failure_id and action.title
