"""The session core of claude-acp: pure decisions, events in and effects out.

This is the core's front door: the shell (`adapter/`) imports only what is named here. A name is
imported from its module when it is first asked for (PEP 562), so answering `initialize` loads
the negotiation, not the machines. The core does no I/O and reads no clock; the shell hands
`SessionCore.handle` one event at a time and performs the effects it returns, in order. Where
each part lives:

- `session.py`: `SessionCore`, the one entry point, and its clock, idle and limit helpers;
- `events.py` (the inputs), `effects.py` (the outputs), `errors.py`;
- `turn.py`: the turn machine, its table, guards and callbacks, and how a prompt is answered;
- `runtime.py`, `incident.py`, `limits.py`, `notices.py`, `idle_compaction.py`: the other
  machines (drawn in `diagrams/`, `python -m fsm.diagrams`), `machine.py` their plumbing;
- `ledger.py` (ids, revisions, the active set), `ids.py`, `records.py`, `vocabulary.py`;
- `classify.py`: what Claude's signals mean; `transcript_entries.py` and `replay.py`: Claude's
  stored transcripts; `negotiation.py`, `air.py` and `wire.py`: the client's side of the
  extension; `archive_titles.py`: JetBrains AIR's archived-session titles.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsm.air import AirClient, air_client
    from fsm.archive_titles import archive_to, is_archived, title_records, visible_title
    from fsm.classify import SYNTHETIC_MODEL, is_real_model
    from fsm.effects import (
        Blame,
        CompactWhenIdle,
        Effect,
        FailedTurn,
        ForwardAssistantMessage,
        InterruptClaude,
        LogNotice,
        PublishRecord,
        RejectPrompt,
        SendAgentText,
        SendContinuation,
        SendNotice,
        SendPrompt,
        SettlePrompt,
        StartFreshContext,
        StopReason,
        StopRuntime,
    )
    from fsm.errors import FsmError, InvalidTransition, PeerViolation
    from fsm.events import (
        AnswerStreamStarted,
        AssistantMessageReceived,
        AuthStatusReported,
        CancelGraceExpired,
        CancelRequested,
        ClaudeEvent,
        ClaudeSilent,
        ContextMeasured,
        CredentialsChanged,
        DeadlineReached,
        DeliveryConfirmed,
        DeliveryFailed,
        Event,
        FreshContextChosen,
        FreshContextReady,
        HistoryFailureFound,
        InternalFaultOccurred,
        LimitWindow,
        McpServersReported,
        McpServerStatus,
        MessageTooLarge,
        ModelChosen,
        ModelFellBack,
        OutputReceived,
        PromptReceived,
        PromptSent,
        RateLimitReported,
        ResultReceived,
        RetryAttempted,
        RuntimeStarted,
        RuntimeStartFailed,
        StreamEnded,
        TransportLost,
        TurnWentBusy,
        TurnWentIdle,
        WorkerShuttingDown,
        trigger_of,
    )
    from fsm.idle_compaction import (
        DEFAULT_DELAY_SECONDS,
        DEFAULT_MIN_TOKENS,
        MIN_TOKENS_FLOOR,
        IdlePolicy,
    )
    from fsm.ids import IdKind, ParsedId, parse_id
    from fsm.negotiation import (
        Dialects,
        advertisement,
        agent_error_negotiated,
        negotiate,
        session_failure_negotiated,
    )
    from fsm.records import TITLE_LIMIT, FailureRecord, redact, shape_title, visible
    from fsm.replay import ActiveScan, ReplayPlanner, active_from_newest
    from fsm.session import CANCEL_GRACE_SECONDS, SessionCore
    from fsm.transcript_entries import EntryKind, TranscriptEntry, is_prompt_entry, parse_entry
    from fsm.turn import TURN_NO_RESULT_TITLE
    from fsm.vocabulary import Action, Category, FailureKind, Severity
    from fsm.wire import (
        SESSION_FAILURE_KEYS,
        AgentErrorDialect,
        SessionFailureDialect,
        session_failure_record,
    )

# Where each public name is defined: the module `__getattr__` imports it from.
_HOMES = {
    "AirClient": "air",
    "air_client": "air",
    "archive_to": "archive_titles",
    "is_archived": "archive_titles",
    "title_records": "archive_titles",
    "visible_title": "archive_titles",
    "SYNTHETIC_MODEL": "classify",
    "is_real_model": "classify",
    "Blame": "effects",
    "CompactWhenIdle": "effects",
    "Effect": "effects",
    "FailedTurn": "effects",
    "ForwardAssistantMessage": "effects",
    "InterruptClaude": "effects",
    "LogNotice": "effects",
    "PublishRecord": "effects",
    "RejectPrompt": "effects",
    "SendAgentText": "effects",
    "SendContinuation": "effects",
    "SendNotice": "effects",
    "SendPrompt": "effects",
    "SettlePrompt": "effects",
    "StartFreshContext": "effects",
    "StopReason": "effects",
    "StopRuntime": "effects",
    "FsmError": "errors",
    "InvalidTransition": "errors",
    "PeerViolation": "errors",
    "AnswerStreamStarted": "events",
    "AssistantMessageReceived": "events",
    "AuthStatusReported": "events",
    "CancelGraceExpired": "events",
    "CancelRequested": "events",
    "ClaudeEvent": "events",
    "ClaudeSilent": "events",
    "ContextMeasured": "events",
    "CredentialsChanged": "events",
    "DeadlineReached": "events",
    "DeliveryConfirmed": "events",
    "DeliveryFailed": "events",
    "Event": "events",
    "FreshContextChosen": "events",
    "FreshContextReady": "events",
    "HistoryFailureFound": "events",
    "InternalFaultOccurred": "events",
    "LimitWindow": "events",
    "McpServerStatus": "events",
    "McpServersReported": "events",
    "MessageTooLarge": "events",
    "ModelChosen": "events",
    "ModelFellBack": "events",
    "OutputReceived": "events",
    "PromptReceived": "events",
    "PromptSent": "events",
    "RateLimitReported": "events",
    "ResultReceived": "events",
    "RetryAttempted": "events",
    "RuntimeStartFailed": "events",
    "RuntimeStarted": "events",
    "StreamEnded": "events",
    "TransportLost": "events",
    "TurnWentBusy": "events",
    "TurnWentIdle": "events",
    "WorkerShuttingDown": "events",
    "trigger_of": "events",
    "DEFAULT_DELAY_SECONDS": "idle_compaction",
    "DEFAULT_MIN_TOKENS": "idle_compaction",
    "IdlePolicy": "idle_compaction",
    "MIN_TOKENS_FLOOR": "idle_compaction",
    "IdKind": "ids",
    "ParsedId": "ids",
    "parse_id": "ids",
    "Dialects": "negotiation",
    "advertisement": "negotiation",
    "agent_error_negotiated": "negotiation",
    "negotiate": "negotiation",
    "session_failure_negotiated": "negotiation",
    "FailureRecord": "records",
    "TITLE_LIMIT": "records",
    "redact": "records",
    "shape_title": "records",
    "visible": "records",
    "ActiveScan": "replay",
    "ReplayPlanner": "replay",
    "active_from_newest": "replay",
    "CANCEL_GRACE_SECONDS": "session",
    "SessionCore": "session",
    "EntryKind": "transcript_entries",
    "TranscriptEntry": "transcript_entries",
    "is_prompt_entry": "transcript_entries",
    "parse_entry": "transcript_entries",
    "TURN_NO_RESULT_TITLE": "turn",
    "Action": "vocabulary",
    "Category": "vocabulary",
    "FailureKind": "vocabulary",
    "Severity": "vocabulary",
    "AgentErrorDialect": "wire",
    "SESSION_FAILURE_KEYS": "wire",
    "SessionFailureDialect": "wire",
    "session_failure_record": "wire",
}

__all__ = [
    "CANCEL_GRACE_SECONDS",
    "DEFAULT_DELAY_SECONDS",
    "DEFAULT_MIN_TOKENS",
    "MIN_TOKENS_FLOOR",
    "SESSION_FAILURE_KEYS",
    "SYNTHETIC_MODEL",
    "TITLE_LIMIT",
    "TURN_NO_RESULT_TITLE",
    "Action",
    "ActiveScan",
    "AgentErrorDialect",
    "AirClient",
    "AnswerStreamStarted",
    "AssistantMessageReceived",
    "AuthStatusReported",
    "Blame",
    "CancelGraceExpired",
    "CancelRequested",
    "Category",
    "ClaudeEvent",
    "ClaudeSilent",
    "CompactWhenIdle",
    "ContextMeasured",
    "CredentialsChanged",
    "DeadlineReached",
    "DeliveryConfirmed",
    "DeliveryFailed",
    "Dialects",
    "Effect",
    "EntryKind",
    "Event",
    "FailedTurn",
    "FailureKind",
    "FailureRecord",
    "ForwardAssistantMessage",
    "FreshContextChosen",
    "FreshContextReady",
    "FsmError",
    "HistoryFailureFound",
    "IdKind",
    "IdlePolicy",
    "InternalFaultOccurred",
    "InterruptClaude",
    "InvalidTransition",
    "LimitWindow",
    "LogNotice",
    "McpServerStatus",
    "McpServersReported",
    "MessageTooLarge",
    "ModelChosen",
    "ModelFellBack",
    "OutputReceived",
    "ParsedId",
    "PeerViolation",
    "PromptReceived",
    "PromptSent",
    "PublishRecord",
    "RateLimitReported",
    "RejectPrompt",
    "ReplayPlanner",
    "ResultReceived",
    "RetryAttempted",
    "RuntimeStartFailed",
    "RuntimeStarted",
    "SendAgentText",
    "SendContinuation",
    "SendNotice",
    "SendPrompt",
    "SessionCore",
    "SessionFailureDialect",
    "SettlePrompt",
    "Severity",
    "StartFreshContext",
    "StopReason",
    "StopRuntime",
    "StreamEnded",
    "TranscriptEntry",
    "TransportLost",
    "TurnWentBusy",
    "TurnWentIdle",
    "WorkerShuttingDown",
    "active_from_newest",
    "advertisement",
    "agent_error_negotiated",
    "air_client",
    "archive_to",
    "is_archived",
    "is_prompt_entry",
    "is_real_model",
    "negotiate",
    "parse_entry",
    "parse_id",
    "redact",
    "session_failure_negotiated",
    "session_failure_record",
    "shape_title",
    "title_records",
    "trigger_of",
    "visible",
    "visible_title",
]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'fsm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"fsm.{home}"), name)
    globals()[name] = value  # asked for once
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
