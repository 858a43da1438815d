"""`claude-acp conformance` in process: the client-side rules, every violation kind with its near
miss, the log reader's spellings and the command line. Our own adapter's logs are checked in
`tests/e2e/test_conformance.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest

from adapter.conformance import RULES, check_file
from adapter.conformance import main as conformance_main
from adapter.conformance.client_entries import (
    FailureEntry,
    MessageEntry,
    RejectionEntry,
    ToolEntry,
)
from adapter.conformance.client_view import ClientTranscript
from adapter.conformance.log import read_log
from tests.support.conformance_frames import (
    IN,
    OUT,
    SID,
    TITLE,
    VARIANTS,
    Frames,
    air,
    answer,
    check,
    chunk,
    handshake,
    info,
    log_line,
    prompt,
    record,
    update,
    write_log,
)
from tests.support.harness import OPT_IN

# -- ClientTranscript: the client-side rules -----------------------------------------------


def transcript(frames: Frames) -> ClientTranscript:
    return ClientTranscript.from_frames(frames)


def test_new_id_inserts_at_stream_position() -> None:
    view = transcript([
        *handshake(), (OUT, prompt(2)), (IN, chunk("Looking.")),
        (IN, info(record(severity="warning", title="Retrying."))), (IN, chunk("Done.")),
        (IN, answer(2)),
    ])  # fmt: skip
    assert [e.kind for e in view.entries] == ["user", "agent", "failure", "agent"]
    [failure] = view.failures()
    assert (failure.first_frame, failure.carrier) == (7, "session_info_update")


def test_higher_revision_updates_in_place_without_moving() -> None:
    warning = record(severity="warning", title="Retrying, attempt 1.")
    final = record(revision=2, title="Rate limited.", actions=["retry"])
    view = transcript([
        *handshake(), (OUT, prompt(2)), (IN, info(warning)), (IN, chunk("Partial answer")),
        (IN, answer(2, final)),
    ])  # fmt: skip
    entries = view.entries
    assert [e.kind for e in entries] == ["user", "failure", "agent"]
    failure = entries[1]
    assert isinstance(failure, FailureEntry)
    assert (failure.revision, failure.severity, failure.title) == (2, "error", "Rate limited.")
    assert failure.actions == ("retry",)
    assert (failure.first_frame, failure.last_frame, failure.carrier) == (6, 8, "prompt_response")


def test_same_or_lower_revision_is_ignored() -> None:
    view = transcript([
        *handshake(), (IN, info(record(revision=2, title="Second."))),
        (IN, info(record(revision=1, title="First."))),
        (IN, info(record(revision=2, title="Second, again."))),
    ])  # fmt: skip
    [failure] = view.failures()
    assert (failure.revision, failure.title, failure.last_frame) == (2, "Second.", 5)


def test_unknown_and_duplicate_actions_dropped_in_first_occurrence_order() -> None:
    actions = ["new_session", "teleport", "retry", "new_session", "login", "retry"]
    view = transcript([*handshake(), (IN, info(record(actions=actions)))])
    assert view.failures()[0].actions == ("new_session", "retry", "login")


def test_distinct_ids_are_never_deduplicated_and_sessions_are_separate() -> None:
    view = transcript([
        *handshake(), (IN, info(record("a"))), (IN, info(record("b"))),
        (IN, info(record("a"), session="s2")),
    ])  # fmt: skip
    assert [(f.session, f.id) for f in view.failures()] == [(SID, "a"), (SID, "b"), ("s2", "a")]


def test_records_a_client_would_not_read_are_not_shown() -> None:
    view = transcript([
        *handshake(), (IN, chunk("text", _meta=air(record("on-chunk")))),
        (IN, info(record("v2"), version=2)), (IN, info(record("bad", revision=0))),
        (IN, info(record("bad-actions", actions="retry"))),
    ])  # fmt: skip
    assert view.failures() == []


def test_chunks_merge_until_another_entry_and_tool_updates_stay_in_place() -> None:
    tool = update("tool_call", toolCallId="t", title="Bash", status="pending")
    done = update("tool_call_update", toolCallId="t", status="completed")
    view = transcript([
        *handshake(), (OUT, prompt(2)), (IN, chunk("Let me ", "agent_thought_chunk")),
        (IN, chunk("think.", "agent_thought_chunk")), (IN, chunk("One ")), (IN, chunk("two.")),
        (IN, tool), (IN, chunk("Three.")), (IN, done), (IN, chunk(" Four.")), (IN, answer(2)),
        (OUT, prompt(3, "again")), (IN, chunk("Five.")),
    ])  # fmt: skip
    described = [
        (e.kind, e.text if isinstance(e, MessageEntry) else e.status)
        for e in view.entries
        if isinstance(e, MessageEntry | ToolEntry)
    ]
    assert described == [
        ("user", "hello"),
        ("thought", "Let me think."),
        ("agent", "One two."),
        ("tool", "completed"),
        ("agent", "Three. Four."),
        ("user", "again"),
        ("agent", "Five."),
    ]
    tool_entry = view.entries[3]
    assert isinstance(tool_entry, ToolEntry)
    assert (tool_entry.first_frame, tool_entry.last_frame) == (10, 12)


def test_rejected_prompt_and_session_load_reset() -> None:
    error = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "Internal error"}}
    load = {"jsonrpc": "2.0", "id": 3, "method": "session/load", "params": {"sessionId": SID}}
    view = transcript([*handshake(), (OUT, prompt(2)), (IN, error)])
    assert isinstance(view.entries[-1], RejectionEntry) and view.entries[-1].code == -32603
    view.apply(OUT, load)
    view.apply(IN, chunk("replayed", "user_message_chunk"))
    assert [(e.kind, e.first_frame) for e in view.entries] == [("user", 8)]


# -- one log per violation kind ------------------------------------------------------------

BOOL_VERSION = {"jetbrains": {"air": {"version": True, "capabilities": ["sessionFailure"]}}}

# Each case: the rule broken, the frames, the index of the offending frame (-1: the last).
Case = tuple[str, Frames, int]


def _without(rec: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in rec.items() if k != key}


def _agent_error(message: str = "API Error: 500 Internal server error") -> dict[str, Any]:
    error = {"type": "provider_unavailable", "message": message, "retryable": True}
    return update("agent_error", error=error, stopReason="error")


def _notice(rid: str, revision: int = 1) -> dict[str, Any]:
    return info(
        record(rid, revision, category="unknown", severity="warning", title="Model fallback.")
    )


def _load(rid: int = 5) -> dict[str, Any]:
    params = {"sessionId": SID, "cwd": "/p", "mcpServers": []}
    return {"jsonrpc": "2.0", "id": rid, "method": "session/load", "params": params}


AGENT_ERROR_OPT_IN = {**OPT_IN, "agentError": {"version": 1}}
LONG = "word " * 60  # 300 characters
PARAGRAPHS = ("Request failed.", "The model is unavailable in your region.")
HOME = "Cannot read /home/alice/project/.env"


def _cases() -> dict[str, Case]:
    h, turn = handshake(), [(OUT, prompt(2))]

    def after(rule: str, *frames: tuple[str, dict[str, Any]]) -> Case:
        return (rule, [*h, *frames], -1)

    def in_turn(rule: str, *frames: tuple[str, dict[str, Any]]) -> Case:
        return (rule, [*h, *turn, *frames], -1)

    def out(rec: object) -> tuple[str, dict[str, Any]]:
        return (IN, info(rec))

    rpc_error = {"code": -32603, "message": "x", "data": {"_meta": air(record())}}
    new_result = {"jsonrpc": "2.0", "id": 1, "result": {"_meta": air(record())}}
    refusal = answer(2, record(), stop="refusal")
    error_answer = {"jsonrpc": "2.0", "id": 2, "error": rpc_error}
    leaky = {"code": -32603, "message": "Internal error: key sk-ant-api03-abcdef123456"}
    leaky_answer = {"jsonrpc": "2.0", "id": 2, "error": leaky}
    warning = record(severity="warning", actions=["retry"])
    done = answer(2, record())
    bare_init = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}
    extra_air = update(
        "session_info_update",
        _meta={"jetbrains": {"air": {"version": 1, "sessionFailure": record(), "phase": "x"}}},
    )
    loading = [*handshake(AGENT_ERROR_OPT_IN), (OUT, _load())]
    two_turns = [*turn, (IN, answer(2, record())), (OUT, prompt(3))]
    whole = f"{PARAGRAPHS[0]}\n\n{PARAGRAPHS[1]}"
    split = record(title=PARAGRAPHS[0], details=PARAGRAPHS[1])
    # fmt: off
    return {
        "jsonrpc 1.0": after("not-jsonrpc", (IN, {**chunk("hi"), "jsonrpc": "1.0"})),
        "jsonrpc shape": after("not-jsonrpc", (IN, {"jsonrpc": "2.0", "id": 7})),
        "unknown id": after("unknown-response", (IN, answer(42))),
        "answered twice": in_turn("duplicate-response", (IN, answer(2)), (IN, answer(2))),
        "never answered": ("unanswered-prompt", [*h, *turn, (IN, chunk("..."))], 4),
        "no advert": ("not-advertised", [h[0], (IN, bare_init)], -1),
        "advert to a plain client": (
            "advertised-to-non-air", [handshake(None)[0], (IN, h[1][1])], -1
        ),
        "on a chunk": after("record-carrier", (IN, chunk("", _meta=air(record())))),
        "on an error": in_turn("record-carrier", (IN, error_answer)),
        "on session/new": ("record-carrier", [*h[:3], (IN, new_result)], -1),
        "air version 2": after("air-version", (IN, info(record(), version=2))),
        "air extra key": after("air-extra-key", (IN, extra_air)),
        "missing title": after("record-field", out(_without(record(), "title"))),
        "null title": after("record-field", out(record(title=None))),
        "no actions": after("record-field", out(_without(record(), "actions"))),
        "bool revision": after("record-field", out(record(revision=True))),
        "zero revision": after("record-field", out(record(revision=0))),
        "empty id": after("record-field", out(record(""))),
        "category": after("record-field", out(record(category="quota"))),
        "severity": after("record-field", out(record(severity="fatal"))),
        "actions type": after("record-field", out(record(actions=["retry", 3]))),
        "empty details": after("record-field", out(record(details=""))),
        "extra key": after("record-extra-key", out(record(retryable=True))),
        "unknown action": after("record-actions", out(record(actions=["retry", "teleport"]))),
        "duplicate action": after("record-actions", out(record(actions=["retry", "retry"]))),
        "warning actions": after("warning-actions", out(warning)),
        "warning on prompt": in_turn("warning-on-prompt", (IN, answer(2, record(
            severity="warning", title="Retrying Claude, attempt 1 of 10.")))),
        "long title": after("title-too-long", out(record(title=LONG.strip()))),
        "paragraph title": after("title-paragraphs", out(record(title=whole))),
        "lines with details": after("title-paragraphs", out(record(title="A\nB", details="C."))),
        "bare code": after("title-bare-code", out(record(title="error_max_turns"))),
        "home path": after("title-leak", out(record(title=HOME))),
        "token in details": after("title-leak", out(record(
            title="Rejected.", details="Header Authorization: Bearer abcdef0123456789xyz"))),
        "stack trace": after("title-leak", out(record(title="Traceback (most recent call last):"))),
        "exception": after("title-leak", out(record(title="ValueError: bad input"))),
        "details repeat": after("record-details", out(record(title="Bad.", details="Bad."))),
        "stop reason": in_turn("record-stop-reason", (IN, refusal)),
        "backwards": after("revision-backwards", out(record(revision=2)), out(record())),
        "conflict": after("revision-conflict", out(record()), out(record(title="Other."))),
        "turn error as info": ("turn-error-carrier", [*h, *turn, out(record()), (IN, answer(2))],
                               -2),
        "turn id shape": in_turn("turn-id", (IN, answer(2, record(f"{SID}:session-error:e:1")))),
        "turn id reused": ("turn-id", [*h, *two_turns, (IN, answer(3, record()))], -1),
        "counter down": after("id-counter", out(record(f"{SID}:session-error:e:2")),
                              (IN, _notice(f"{SID}:notice:e:1"))),
        "other session": after("id-counter", out(record("s9:session-error:e:1"))),
        "notice next turn": ("notice-reused", [*h, *turn, (IN, _notice(f"{SID}:notice:e:1")),
                             (IN, answer(2)), (OUT, prompt(3)),
                             (IN, _notice(f"{SID}:notice:e:1", 2)), (IN, answer(3))], -2),
        "legacy client": ("not-negotiated", [*handshake(None), out(record())], -1),
        "bool opt-in": ("not-negotiated", [*handshake(BOOL_VERSION), out(record())], -1),
        "no initialize": ("not-negotiated", [out(record())], -1),
        "agent_error unasked": ("agent-error-surface", [*h, *turn, (IN, _agent_error()),
                                (IN, answer(2))], -2),
        "agent_error on load": ("agent-error-surface", [*loading, (IN, _agent_error())], -1),
        "leaky error": in_turn("error-leak", (IN, leaky_answer)),
        "leaky agent_error": ("error-leak", [*handshake(AGENT_ERROR_OPT_IN), *turn,
                              (IN, _agent_error(HOME)), (IN, answer(2))], -2),
        "title as text": ("title-as-agent-text", [*h, *turn, (IN, chunk(TITLE)), (IN, done)], 5),
        # docs/decisions.md#failures-between-turns: a failure between turns is a record; its prose
        # is not also agent text.
        "between turns": ("title-as-agent-text", [
            *h, *turn, (IN, answer(2)), (IN, chunk(TITLE)),
            (IN, info(record(f"{SID}:session-error:e:1")))], -2),
        "split prose as text": ("title-as-agent-text", [
            *h, *turn, (IN, chunk(PARAGRAPHS[0] + "\n\n")), (IN, chunk(PARAGRAPHS[1])),
            (IN, answer(2, split))], 5),
    }
    # fmt: on


CASES = _cases()


@pytest.mark.parametrize("name", list(CASES))
def test_each_violation_is_found_at_its_frame(tmp_path: Path, name: str) -> None:
    rule, frames, index = CASES[name]
    variant = VARIANTS[list(CASES).index(name) % len(VARIANTS)]
    found, numbers = check(tmp_path, frames, variant)
    assert found == [(numbers[index], rule)], variant


def _clean_log() -> Frames:
    permission = {"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {}}
    warning = record(severity="warning", title="Retrying Claude, attempt 1 of 10.")
    final = record(revision=2, title="Rate limited.", actions=["retry", "new_session"])
    notice = record(f"{SID}:notice:e:1", category="unknown", severity="warning", title="Notice.")
    return [
        *handshake(), (OUT, prompt(2)), (IN, update("tool_call", toolCallId="t", title="Bash")),
        (IN, permission), (OUT, {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {}}}),
        (IN, info(warning)), (IN, info(warning)), (IN, answer(2, final)),
        (OUT, prompt(3)), (IN, chunk("Fine now.")), (IN, answer(3)),
        (IN, info(notice)),
        (IN, info(record(f"{SID}:session-error:e:2", title="Too long.", details=LONG))),
        (OUT, {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SID}}),
    ]  # fmt: skip


def _passing() -> dict[str, tuple[set[str], Frames]]:
    """Valid logs close to a violation, each with the rules it must not trip."""
    h, turn = handshake(), [(OUT, prompt(2))]
    split = record(title=PARAGRAPHS[0], details=PARAGRAPHS[1])
    other_meta = {"other": {"x": 1}, "jetbrains": {"theme": "dark", **air(record())["jetbrains"]}}
    long_split = record(title="Claude hit a limit.", details=LONG)
    fits = record(title="x" * 256)
    notice = f"{SID}:notice:e:2"
    replayed = [
        (OUT, _load()),
        (IN, chunk("hello", "user_message_chunk")),
        (IN, info(record())),
        (IN, {"jsonrpc": "2.0", "id": 5, "result": {}}),
    ]
    # fmt: off
    return {
        "clean": (set(RULES) - {"unparseable"}, _clean_log()),
        # docs/decisions.md#details: a short message of two paragraphs is split, title first,
        # details the rest.
        "two short paragraphs": ({"record-details", "title-paragraphs"}, [*h, (IN, info(split))]),
        "long text split": ({"title-too-long", "record-details"}, [*h, (IN, info(long_split))]),
        "title of 256": ({"title-too-long"}, [*h, (IN, info(fits))]),
        "one paragraph, two lines": ({"title-paragraphs"}, [
            *h, (IN, info(record(title="Line one\nline two")))]),
        "codes among words": ({"title-bare-code", "title-leak"}, [*h, (IN, info(record(
            title="API Error: 429 rate_limit_error \u00b7 see https://status.anthropic.com")))]),
        "masked and safe paths": ({"title-leak"}, [*h, (IN, info(record(
            title="Could not write ~/\u2026 or /rootfs/tmp")))]),
        "other _meta beside air": ({"air-extra-key", "record-carrier"}, [
            *h, (IN, update("session_info_update", _meta=other_meta))]),
        "known actions once": ({"record-actions"}, [
            *h, (IN, info(record(actions=["retry", "login", "new_session"])))]),
        "warnings then error": ({"warning-on-prompt", "turn-id"}, [
            *h, *turn, (IN, info(record(severity="warning", title="Retrying."))),
            (IN, answer(2, record(revision=2)))]),
        "replay keeps the live id": ({"turn-id", "revision-backwards", "turn-error-carrier"}, [
            *h, *turn, (IN, answer(2, record())), *replayed, (OUT, prompt(6)),
            (IN, answer(6, record("t6:error")))]),
        "counter rises by epoch": ({"id-counter", "notice-reused"}, [
            *h, (IN, info(record(f"{SID}:session-error:e:1"))), *turn, (IN, _notice(notice)),
            (IN, _notice(notice, 2)), (IN, answer(2)),
            (IN, info(record(f"{SID}:session-error:e:3"))),
            (IN, info(record(f"{SID}:session-error:f:1")))]),
        "agent_error opted in": ({"agent-error-surface", "error-leak"}, [
            *handshake(AGENT_ERROR_OPT_IN), *turn, (IN, _agent_error()), (IN, answer(2)),
            (OUT, {"jsonrpc": "2.0", "id": 9, "method": "x/unknown"}),
            (IN, {"jsonrpc": "2.0", "id": 9, "error": {"code": -32601, "message": "Unknown"}})]),
        # docs/decisions.md#capable-clients only means the same prose in the same turn.
        "title quoted later": ({"title-as-agent-text"}, [
            *h, *turn, (IN, answer(2, record())), (OUT, prompt(3)), (IN, chunk(TITLE)),
            (IN, answer(3))]),
        "short title in prose": ({"title-as-agent-text"}, [
            *h, *turn, (IN, chunk(f"Earlier: {TITLE} Now it works.")),
            (IN, answer(2, record()))]),
        # docs/decisions.md#early-limit-warning: an early limit warning is revised across turns as
        # its percent rises.
        "limit warning next turn": ({"notice-reused"}, [
            *h, *turn, (IN, info(record(notice, severity="warning", title="Used 92%."))),
            (IN, answer(2)), (OUT, prompt(3)),
            (IN, info(record(notice, 2, severity="warning", title="Used 97%."))),
            (IN, answer(3))]),
        # docs/decisions.md#limit-that-resets: an answered turn's limit is revised at its reset,
        # whatever prompt is live.
        "reset during a later prompt": ({"turn-error-carrier"}, [
            *h, *turn, (IN, answer(2, record())), (OUT, prompt(3)),
            (IN, info(record(revision=2, title=TITLE + " Reset.", actions=["retry"]))),
            (IN, answer(3))]),
        "legacy gets prose": ({"title-as-agent-text", "not-negotiated"}, [
            *handshake(None), *turn, (IN, chunk(TITLE)),
            (IN, {"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": TITLE}})]),
    }
    # fmt: on


PASSING = _passing()


@pytest.mark.parametrize("name", list(PASSING))
def test_each_near_miss_passes(tmp_path: Path, name: str) -> None:
    _, frames = PASSING[name]
    found, _ = check(tmp_path, frames, VARIANTS[list(PASSING).index(name) % len(VARIANTS)])
    assert found == []


def test_every_rule_has_a_failing_and_a_passing_case() -> None:
    failing = {rule for rule, _, _ in CASES.values()} | {"unparseable"}
    assert failing == set(RULES)
    passing = set().union(*(rules for rules, _ in PASSING.values())) | {"unparseable"}
    assert passing == set(RULES)


@pytest.mark.parametrize("variant", VARIANTS)
def test_clean_log_has_no_violations_in_every_spelling(tmp_path: Path, variant: str) -> None:
    found, _ = check(tmp_path, _clean_log(), variant)
    assert found == []


def test_unparseable_lines_are_reported_and_checking_goes_on(tmp_path: Path) -> None:
    good = [log_line("arrows", d, f) for d, f in handshake()]
    lines = [
        *good,
        "{not json",
        json.dumps({"direction": "sideways", "message": chunk("x")}),
        json.dumps(chunk("no direction")),
        "=> " + json.dumps(chunk("unknown arrow")),
        log_line("arrows", IN, answer(99)),
    ]
    path = tmp_path / "wire.log"
    path.write_bytes(("\n".join(lines) + "\n").encode() + b"<- \xff\n")
    report = check_file(path)
    found = [(v.frame, v.rule) for v in report.violations]
    assert found == [(n, "unparseable") for n in (5, 6, 7, 8)] + [
        (9, "unknown-response"),
        (10, "unparseable"),
    ]
    assert read_log(["", "# comment", "   "]) == []


def test_cli_exit_codes_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "wire.log"
    numbers = write_log(path, [*handshake(), (IN, info(record(retryable=True)))], "dir/msg")
    assert conformance_main([str(path)]) == 1
    out = capsys.readouterr().out
    assert "failure  error limit  id=t1:error  revision 1" in out
    assert out.rstrip().endswith("5 frames, 1 records, 1 violations")
    assert conformance_main([str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    [violation] = report["violations"]
    assert violation == {"frame": numbers[4], "rule": "record-extra-key", "message": ANY}
    assert conformance_main([str(tmp_path / "missing.log")]) == 2
    assert conformance_main([]) == 2
    # No frames at all is nothing to judge: an error, not a pass.
    empty = tmp_path / "empty.log"
    empty.write_text("# only a comment\n\n", encoding="utf-8")
    assert conformance_main([str(empty)]) == 2
    assert "holds no frames" in capsys.readouterr().err
    assert conformance_main(["--help"]) == 0
    help_text = capsys.readouterr().out
    assert "client_to_agent" in help_text
    assert "the sessionFailure extension of claude-agent-acp" in " ".join(help_text.split())
    # The help explains every rule, and points at nothing outside the repository.
    assert all(rule in help_text for rule in RULES)
    assert ".txt" not in help_text and "DECISIONS" not in help_text
