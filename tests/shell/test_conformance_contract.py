"""The conformance checker's copy of the contract (`adapter.conformance.contract`) beside the
core's code for the same rules, on the same inputs.

The checker keeps its own copy so that a bug in the core cannot pass conformance; this test is
where the two meet, so that changing either one is a reviewed change to both.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapter.conformance import contract
from fsm import (
    SESSION_FAILURE_KEYS,
    TITLE_LIMIT,
    Action,
    Category,
    IdKind,
    Severity,
    agent_error_negotiated,
    parse_id,
    redact,
    session_failure_negotiated,
)


def test_the_record_vocabulary_is_the_cores() -> None:
    assert {c.value for c in Category} == contract.CATEGORIES
    assert {s.value for s in Severity} == contract.SEVERITIES
    assert tuple(a.value for a in Action) == contract.ACTIONS
    assert contract.RECORD_KEYS == SESSION_FAILURE_KEYS
    assert contract.TITLE_LIMIT == TITLE_LIMIT


def _air(version: Any, capabilities: Any = ("sessionFailure",)) -> dict[str, Any]:
    listed = list(capabilities) if isinstance(capabilities, tuple) else capabilities
    return {"jetbrains": {"air": {"version": version, "capabilities": listed}}}


NEGOTIATIONS: list[Any] = [
    None,
    [],
    "sessionFailure",
    {},
    {"jetbrains": None},
    {"jetbrains": {"air": []}},
    _air(1),
    _air(2),
    _air(1.0),
    _air(1.5),
    _air(0),
    _air(-1),
    _air(True),
    _air("1"),
    _air(float("inf")),
    _air(float("nan")),
    _air(None),
    _air(1, ()),
    _air(1, ("SessionFailure",)),
    _air(1, ("other", "sessionFailure")),
    _air(1, (1, None, "sessionFailure")),
    _air(1, "sessionFailure"),
    _air(1, {"sessionFailure": True}),
    {"agentError": {"version": 1}},
    {"agentError": {"version": 0}},
    {"agentError": {"version": True}},
    {"agentError": {"version": 3.0}},
    {"agentError": {}},
    {"agentError": 1},
    {"agentError": {"version": 1}, **_air(1)},
]


@pytest.mark.parametrize("meta", NEGOTIATIONS)
def test_negotiation_reads_the_meta_as_the_core_does(meta: Any) -> None:
    assert contract.session_failure_negotiated(meta) == session_failure_negotiated(meta)
    assert contract.agent_error_negotiated(meta) == agent_error_negotiated(meta)


IDS = [
    "t1:error",
    "a:b:error",
    "s1:session-error:e1:1",
    "s1:session-error:e1:12",
    "s:1:session-error:e1:3",
    "s1:notice:e1:2",
    "s1:notice:e1:0",
    "s1:notice:e:1:2",
    "s1:history-error:uuid-1",
    "s1:history-error:a:b",
    "error",
    ":error",
    "s1:session-error:e1:x",
    "",
    "plain",
]


@pytest.mark.parametrize("value", IDS)
def test_ids_read_as_the_core_reads_them(value: str) -> None:
    ours, core = contract.read_id(value), parse_id(value)
    if core is None:
        assert ours is None
        return
    assert ours is not None
    kinds = {
        IdKind.TURN: "turn",
        IdKind.SESSION: "session-error",
        IdKind.NOTICE: "notice",
        IdKind.HISTORY: "history-error",
    }
    assert ours.kind == kinds[core.kind]
    assert (ours.session, ours.epoch, ours.n) == (core.session_id, core.epoch, core.n)


TEXTS = [
    "Claude is rate limited",
    "API Error: 500",
    "Invalid API key · Please run /login",
    "key sk-ant-api03-abcdefgh",
    "sk-ant-***",
    "Authorization: Bearer abcdefgh12345",
    "Bearer ***",
    "Basic authentication failed",
    "eyJhbGciOi.eyJzdWIiOi.sig",
    "AKIAABCDEFGHIJKLMNOP",
    "ghp_abcdefghijklmnopqrstuvwxyz",
    "github_pat_abcdefghijklmnopqrstuvwxyz",
    "xoxb-12345678-abc",
    "xapp-1-abcdefgh",
    '{"api_key": "hunter2"}',
    '{"api_key": "***"}',
    "api_key=abc",
    "api_key=***",
    "password: s3cret99",
    "password: ***",
    "the secret: restart it",
    "https://user:pass@example.com/x",
    "https://***@example.com",
    "https://abcdef123456@example.com",
    "https://example.com/docs",
    "failed to read /home/alice/project/x.py",
    "/Users/bob",
    "/root/.claude",
    "/rootfs/data",
    "C:\\Users\\carol\\file.txt",
    "~/\u2026",
    "a plain title with /usr/bin/env",
]


@pytest.mark.parametrize("text", TEXTS)
def test_private_text_is_what_the_core_would_mask(text: str) -> None:
    assert contract.looks_private(text) == (redact(text) != text)
