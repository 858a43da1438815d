"""Scenarios of idle compaction: a session whose context Claude reports full enough,
left idle, gets the adapter's own `/compact`; one whose context is small, or whose last rate
limit was not `allowed`, does not. Each turn script answers one prompt, the adapter's `/compact`
included, so what the scripted Claude received says whether it was sent.
"""

from __future__ import annotations

from adapter.scripted_claude.api_scenarios import api_failure
from adapter.scripted_claude.state_scenarios import _compaction, _system
from adapter.scripted_claude.steps import (
    RateLimitEvent,
    RawFrame,
    Result,
    Scenario,
    Sleep,
    Text,
    TurnScript,
)
from adapter.scripted_claude.texts import TEXTS

__all__ = ["IDLE_SCENARIOS"]

_SID = "00000000-0000-0000-0000-000000000000"


def _context(tokens: int, ttl: str = "1h") -> RawFrame:
    """A top-level request's `message_start` whose usage says the context holds `tokens`
    (mostly read from the prompt cache, as a long session's requests are, the rest written to
    a cache that lives `ttl`)."""
    written = {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}
    written[f"ephemeral_{ttl}_input_tokens"] = 1000
    usage = {
        "input_tokens": 0,
        "cache_creation_input_tokens": 1000,
        "cache_read_input_tokens": tokens - 1000,
        "cache_creation": written,
        "output_tokens": 0,
    }
    message = {
        "id": "msg_01idle00000000000000000",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "usage": usage,
    }
    frame = {
        "type": "stream_event",
        "uuid": f"idle-context-{tokens}",
        "session_id": _SID,
        "parent_tool_use_id": None,
        "event": {"type": "message_start", "message": message},
    }
    return RawFrame(frame=frame)


_FULL = 210_000
_BACK: TurnScript = (Text(text="Back to work."), Result())
# The adapter's `/compact`, as Claude Code answers one (it reports it `manual`).
_COMPACT: TurnScript = (*_compaction("compact-idle", "manual", _FULL, 9000), Result())

IDLE_SCENARIOS = (
    Scenario(
        name="idle_compaction",
        description="A turn that leaves 210,000 tokens of context; the /compact that follows "
        "when the session sits idle; the next prompt.",
        turns=((Text(text="Read it all."), _context(_FULL), Result()), _COMPACT, _BACK),
    ),
    Scenario(
        name="idle_compaction_slow",
        description="As idle_compaction, but the /compact takes a while (a prompt can arrive "
        "while it runs).",
        turns=(
            (Text(text="Read it all."), _context(_FULL), Result()),
            (
                _system("status", status="compacting", uuid="compact-slow"),
                Sleep(seconds=2.0),
                *_compaction("compact-slow", "manual", _FULL, 9000)[1:],
                Result(),
            ),
            _BACK,
        ),
    ),
    Scenario(
        name="idle_compaction_fails",
        description="A turn that leaves 210,000 tokens of context; the idle /compact fails.",
        turns=(
            (Text(text="Read it all."), _context(_FULL), Result()),
            (
                _system("status", status="compacting", uuid="compact-idle-failed"),
                _system(
                    "status",
                    status=None,
                    compact_result="failed",
                    compact_error="Not enough messages to compact",
                    uuid="compact-idle-failed-done",
                ),
                Result(),
            ),
            _BACK,
        ),
    ),
    Scenario(
        name="idle_compaction_unwanted",
        description="A turn that leaves 210,000 tokens of context, then the next prompt (for "
        "a session whose settings turn idle compaction off).",
        turns=((Text(text="Read it all."), _context(_FULL), Result()), _BACK),
    ),
    Scenario(
        name="idle_compaction_rate_limited",
        description="A turn that leaves 210,000 tokens of context; the idle /compact hits the "
        "usage limit.",
        turns=(
            (Text(text="Read it all."), _context(_FULL), Result()),
            api_failure(
                "rate_limit",
                TEXTS["usage_limit"],
                429,
                before=(RateLimitEvent(status="rejected"),),
            ),
            _BACK,
        ),
    ),
    Scenario(
        name="idle_compaction_short_cache",
        description="A turn that leaves 210,000 tokens of context in a five-minute cache.",
        turns=((Text(text="Read it all."), _context(_FULL, "5m"), Result()), _BACK),
    ),
    Scenario(
        name="idle_compaction_small",
        description="A turn that leaves 150,000 tokens of context (too few to compact).",
        turns=((Text(text="A little."), _context(150_000), Result()), _BACK),
    ),
    Scenario(
        name="idle_compaction_limited",
        description="A turn that leaves 210,000 tokens of context under a rate-limit warning.",
        turns=(
            (
                RateLimitEvent(status="allowed_warning", utilization=0.9),
                Text(text="Read it all."),
                _context(_FULL),
                Result(),
            ),
            _BACK,
        ),
    ),
)
