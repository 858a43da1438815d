"""JetBrains AIR's session index in the core (`fsm.air.session_index`): the methods' table and its
guard, the readers' -32602 cases, list options and cursors, paging and order, a transcript's
facts, a row's state and shape, and what a list subscription is told."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from fsm import SessionCore
from fsm.air.client import INDEX_CAPABILITIES, air_client
from fsm.air.session_index import (
    ARCHIVE_METHOD,
    BATCH_GET_METHOD,
    INDEX_METHODS,
    RENAME_METHOD,
    SUBSCRIBE_METHOD,
    UNARCHIVE_METHOD,
    UNSUBSCRIBE_METHOD,
    ArchiveRequest,
    BackgroundTasks,
    BadIndexRequest,
    BatchGetRequest,
    IndexMethodNotFound,
    IndexRow,
    ListOptions,
    ListSubscriptions,
    LiveRecord,
    OwnActivity,
    RenameRequest,
    SubscribeRequest,
    TooManySubscriptions,
    TranscriptFacts,
    UnsubscribeRequest,
    background_tasks_of,
    change_signature,
    decode_cursor,
    encode_cursor,
    index_list_options,
    index_page,
    index_session_info,
    iso_ms,
    live_sessions,
    needs_task_search,
    parse_iso_ms,
    registry_candidates,
    rename_to,
    route_index_request,
    row_state,
    sanitize_title,
    scan_transcript,
)
from fsm.events import CancelRequested, PromptReceived, PromptSent, ResultReceived, RuntimeStarted

SID = "0b6c5e2a-0000-4000-8000-000000000001"
INDEX = air_client({"jetbrains": {"air": {"version": 1, "capabilities": ["sessionIndex"]}}})
AIR_ONLY = air_client({"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}})
PLAIN = air_client(None)


def _list_meta(**options: Any) -> dict[str, Any]:
    return {"jetbrains": {"air": {"list": options}}}


# --- the table ------------------------------------------------------------------------------


def test_the_table_holds_the_six_methods() -> None:
    assert set(INDEX_METHODS) == {
        BATCH_GET_METHOD,
        RENAME_METHOD,
        ARCHIVE_METHOD,
        UNARCHIVE_METHOD,
        SUBSCRIBE_METHOD,
        UNSUBSCRIBE_METHOD,
    }


@pytest.mark.parametrize("client", [AIR_ONLY, PLAIN], ids=["air-without-index", "plain"])
@pytest.mark.parametrize("method", sorted(INDEX_METHODS))
def test_the_guard_refuses_a_client_without_the_index(client: Any, method: str) -> None:
    # Before the params are read: even good params get -32601.
    with pytest.raises(IndexMethodNotFound):
        route_index_request(client, method, {"sessionId": SID, "title": "x", "cwd": "/r"})


def test_the_other_five_names_alone_enable_nothing() -> None:
    others = air_client(
        {"jetbrains": {"air": {"version": 1, "capabilities": list(INDEX_CAPABILITIES[1:])}}}
    )
    assert not others.session_index
    declaration = others.declaration()
    assert declaration is not None
    assert not set(INDEX_CAPABILITIES) & set(declaration["capabilities"])
    full = INDEX.declaration()
    assert full is not None and full["capabilities"][-6:] == list(INDEX_CAPABILITIES)


@pytest.mark.parametrize(
    ("method", "params", "expected"),
    [
        (BATCH_GET_METHOD, {"sessionIds": [SID, "b"]}, BatchGetRequest((SID, "b"))),
        (BATCH_GET_METHOD, {"sessionIds": []}, BatchGetRequest(())),
        (ARCHIVE_METHOD, {"sessionId": f"  {SID} "}, ArchiveRequest(SID)),
        (UNARCHIVE_METHOD, {"sessionId": SID, "other": 1}, ArchiveRequest(SID)),
        (RENAME_METHOD, {"sessionId": SID, "title": " a\n\tb  "}, RenameRequest(SID, "a b")),
        (SUBSCRIBE_METHOD, {"cwd": "/repo", "x": 1}, SubscribeRequest("/repo")),
        (SUBSCRIBE_METHOD, {"cwd": "C:\\repo"}, SubscribeRequest("C:\\repo")),
        (UNSUBSCRIBE_METHOD, {"subscriptionId": ""}, UnsubscribeRequest("")),
    ],
)
def test_good_params(method: str, params: dict[str, Any], expected: object) -> None:
    assert route_index_request(INDEX, method, params) == expected


@pytest.mark.parametrize(
    ("method", "params"),
    [
        (BATCH_GET_METHOD, {"sessionIds": [SID, SID]}),
        (BATCH_GET_METHOD, {"sessionIds": [SID], "_meta": {}}),
        (BATCH_GET_METHOD, {"sessionIds": [" "]}),
        (BATCH_GET_METHOD, {"sessionIds": "x"}),
        (BATCH_GET_METHOD, None),
        (ARCHIVE_METHOD, {"sessionId": "  "}),
        (ARCHIVE_METHOD, {"sessionId": 7}),
        (UNARCHIVE_METHOD, []),
        (RENAME_METHOD, {"sessionId": SID}),
        (RENAME_METHOD, {"sessionId": SID, "title": " \n "}),
        (RENAME_METHOD, {"sessionId": SID, "title": 3}),
        (RENAME_METHOD, {"sessionId": "", "title": "x"}),
        (SUBSCRIBE_METHOD, {"cwd": "relative"}),
        (SUBSCRIBE_METHOD, {}),
        (UNSUBSCRIBE_METHOD, {"subscriptionId": 1}),
    ],
)
def test_bad_params(method: str, params: object) -> None:
    with pytest.raises(BadIndexRequest):
        route_index_request(INDEX, method, params)


def test_titles_are_collapsed_and_cut() -> None:
    assert sanitize_title("a\r\n  b\tc ") == "a b c"
    long = sanitize_title("x" * 10_000)
    assert len(long) == 256 and long.endswith("\u2026")


def test_a_rename_keeps_the_archive_state() -> None:
    assert rename_to("New", "[archived] Old", SID) == "[archived] New"
    assert rename_to("New", "Old", SID) == "New"
    assert rename_to("[archived] New", None, SID) == "New"  # a prefix is not a way to archive
    assert len(rename_to("y" * 300, None, SID)) == 200  # Claude Code's limit


# --- list options and cursors ---------------------------------------------------------------


def test_list_options_defaults_and_clamp() -> None:
    assert index_list_options(None, None) == ListOptions(None, 50, "unarchived", False)
    options = index_list_options("/r", _list_meta(limit=500, archived="all", includeWorktrees=True))
    assert options == ListOptions("/r", 200, "all", True)
    assert index_list_options("/r", _list_meta(limit=None, archived=None)).limit == 50
    assert index_list_options("/r", _list_meta(limit=3.0)).limit == 3


@pytest.mark.parametrize(
    ("cwd", "meta"),
    [
        ("relative", None),
        ("/r", _list_meta(limit=0)),
        ("/r", _list_meta(limit=True)),
        ("/r", _list_meta(limit="5")),
        ("/r", _list_meta(limit=2.5)),
        ("/r", _list_meta(archived="done")),
        ("/r", _list_meta(includeWorktrees="yes")),
    ],
)
def test_bad_list_options(cwd: str, meta: Any) -> None:
    with pytest.raises(BadIndexRequest):
        index_list_options(cwd, meta)


def test_a_cursor_belongs_to_its_scope() -> None:
    options = ListOptions("/r", 10, "unarchived", False)
    cursor = encode_cursor(1234, SID, options)
    assert decode_cursor(cursor, ListOptions("/r", 99, "unarchived", False)) == (1234, SID)
    for other in (
        ListOptions("/s", 10, "unarchived", False),
        ListOptions("/r", 10, "all", False),
        ListOptions("/r", 10, "unarchived", True),
    ):
        with pytest.raises(BadIndexRequest, match="another cwd or filter"):
            decode_cursor(cursor, other)
    for bad in ("", "not-a-cursor", "eyJ2Ijo0fQ"):  # the last: {"v":4}
        with pytest.raises(BadIndexRequest, match="Unknown session/list cursor"):
            decode_cursor(bad, options)


def _row(
    session_id: str,
    *,
    prompt: str | None = None,
    message: str | None = None,
    mtime: int = 2_000_000_000_000,
    archived: bool = False,
    title: str | None = "A title",
    has_messages: bool = True,
) -> IndexRow:
    facts = TranscriptFacts(
        has_messages=has_messages, last_prompt_at=prompt, last_message_at=message
    )
    return IndexRow(
        session_id=session_id,
        cwd="/r",
        title=title,
        archived=archived,
        mtime_ms=mtime,
        facts=facts,
    )


def test_pages_go_newest_first_by_last_prompt_and_follow_their_cursor() -> None:
    rows = [
        _row("b", prompt="2026-01-01T00:00:02.000Z", message="2026-01-01T00:00:09.000Z"),
        _row("a", prompt="2026-01-01T00:00:02.000Z"),  # the same order: by id
        _row("c", prompt="2026-01-01T00:00:05.000Z"),
        _row("d", mtime=parse_iso_ms("2026-01-01T00:00:01.000Z") or 0),
        _row("e", archived=True),
        _row("f", title=None),  # no title: no row
        _row("g", has_messages=False),
    ]
    options = ListOptions("/r", 2, "unarchived", False)
    first, cursor = index_page(rows, options, None)
    assert [r.session_id for r in first] == ["c", "a"] and cursor is not None
    second, cursor2 = index_page(rows, options, cursor)
    assert [r.session_id for r in second] == ["b", "d"] and cursor2 is None
    archived, _ = index_page(rows, ListOptions("/r", 5, "archived", False), None)
    assert [r.session_id for r in archived] == ["e"]
    everything, _ = index_page(rows, ListOptions("/r", 50, "all", False), None)
    assert {r.session_id for r in everything} == {"a", "b", "c", "d", "e"}


def test_updated_at_is_the_last_message_unless_the_file_is_older() -> None:
    row = _row(
        "a", message="2026-01-01T00:00:09.000Z", mtime=parse_iso_ms("2026-06-01T00:00:00Z") or 0
    )
    assert iso_ms(row.updated_ms) == "2026-01-01T00:00:09.000Z"  # records after it don't count


# --- a transcript's facts and a row ---------------------------------------------------------


def _line(**entry: Any) -> str:
    return json.dumps(entry)


PROMPT = _line(
    type="user",
    cwd="/repo",
    timestamp="2026-12-04T09:58:00.000Z",
    message={"role": "user", "content": [{"type": "text", "text": "Fix it"}]},
)
ANSWER = _line(
    type="assistant",
    timestamp="2026-12-04T09:59:00.000Z",
    message={"model": "claude-x", "stop_reason": "end_turn", "content": []},
)
TOOL_RESULT = _line(
    type="user",
    timestamp="2026-12-04T09:58:30.000Z",
    message={"content": [{"type": "tool_result", "content": "ok"}]},
)
API_ERROR = _line(
    type="assistant",
    isApiErrorMessage=True,
    timestamp="2026-12-04T10:00:00.000Z",
    message={"model": "<synthetic>", "content": []},
)
SLASH = _line(
    type="user",
    timestamp="2026-12-04T10:01:00.000Z",
    message={"content": "<command-name>/clear</command-name>"},
)


def test_scan_finds_the_last_prompt_model_and_turn() -> None:
    fork = _line(type="user", forkedFrom={"sessionId": SID}, message={"content": "x"})
    head = "\n".join([fork, PROMPT])
    tail = "\n".join([PROMPT, TOOL_RESULT, ANSWER, ""])
    facts = scan_transcript(head, tail)
    assert facts.has_messages and facts.cwd == "/repo" and facts.forked_from == SID
    assert facts.last_prompt_at == "2026-12-04T09:58:00.000Z"  # not the tool result
    assert facts.last_message_at == "2026-12-04T09:59:00.000Z"
    assert (facts.model, facts.turn, facts.last_turn_error) == ("claude-x", "finished", False)
    assert facts.last_turn_ended_at == "2026-12-04T09:59:00.000Z"


def test_scan_an_api_error_and_a_slash_command() -> None:
    tail = "\n".join([PROMPT, ANSWER, PROMPT, API_ERROR, SLASH])
    facts = scan_transcript(PROMPT, tail)
    assert facts.model == "claude-x"  # the synthetic one is skipped
    assert facts.last_prompt_at == "2026-12-04T09:58:00.000Z"  # a slash command is no prompt
    # The slash command's record is a user record: the turn it opens is unfinished.
    assert facts.turn == "unfinished"
    ended = scan_transcript(PROMPT, "\n".join([PROMPT, API_ERROR]))
    assert ended.turn == "finished" and ended.last_turn_error


def test_scan_survives_garbage() -> None:
    facts = scan_transcript("not json\n{", '[1,2]\n{"type":\n')
    assert facts == TranscriptFacts()


def test_row_state() -> None:
    now = parse_iso_ms("2026-12-04T10:00:00.000Z") or 0
    finished = _row("a")
    finished = IndexRow(**{**_fields(finished), "facts": TranscriptFacts(turn="finished")})
    failed = IndexRow(
        **{**_fields(finished), "facts": TranscriptFacts(turn="finished", last_turn_error=True)}
    )
    recent = IndexRow(
        **{**_fields(finished), "facts": TranscriptFacts(turn="unfinished"), "mtime_ms": now - 1000}
    )
    old = IndexRow(**{**_fields(recent), "mtime_ms": now - 11 * 60 * 1000})
    rows = (finished, failed, recent, old)
    # No live Claude Code holds it (its registry says so): idle, or error after an API error.
    assert [row_state(r, None, now) for r in rows] == ["idle", "error", "idle", "idle"]
    # Held by an SDK-driven one (whose registry status is not used): the transcript tells.
    sdk = LiveRecord(
        pid=7,
        session_id="a",
        kind="interactive",
        entrypoint="sdk-py",
        status="busy",
        status_updated_ms=now,
    )
    assert [row_state(r, None, now, sdk) for r in rows] == ["idle", "error", "running", None]
    # Held by an interactive CLI whose status is newer than the transcript: its status.
    cli = replace(sdk, entrypoint="cli", status_updated_ms=finished.mtime_ms + 1)
    assert row_state(finished, None, now, cli) == "running"
    assert row_state(finished, None, now, replace(cli, status="waiting")) == "requires_action"
    assert row_state(failed, None, now, replace(cli, status="idle")) == "error"
    assert row_state(finished, None, now, replace(cli, status="odd")) is None
    older = replace(cli, status_updated_ms=recent.mtime_ms - 1)
    assert row_state(recent, None, now, replace(older, status="idle")) == "running"
    # A session run here says what its core knows, whatever its transcript says.
    assert row_state(failed, OwnActivity(state="running"), now) == "running"
    assert row_state(finished, OwnActivity(state="idle", last_turn_failed=True), now) == "error"


def _rec(record: dict[str, Any]) -> str:
    return json.dumps(record)


def _notice(task: str, status: str | None = "completed") -> str:
    state = f"<status>{status}</status>" if status else ""
    return f"<task-notification><task-id>{task}</task-id>{state}</task-notification>"


def test_background_tasks_open_and_close_as_claude_code_writes_them() -> None:
    lines = [
        _rec({"type": "user", "toolUseResult": {"backgroundTaskId": "sh1"}}),
        _rec({"type": "user", "toolUseResult": {"isAsync": True, "agentId": "ag1"}}),
        _rec({"type": "user", "toolUseResult": {"backgroundTaskId": "sh2"}}),
        _rec({"type": "user", "toolUseResult": {"backgroundTaskId": "sh3"}}),
        _rec({"type": "user", "toolUseResult": {"backgroundTaskId": "side"}, "isSidechain": True}),
        # A notification with a status ends its task; a check-in without one does not.
        _rec({"type": "user", "message": {"content": _notice("sh1")}}),
        _rec({"type": "user", "message": {"content": _notice("ag1", None)}}),
        # A queued notification keeps the task open until a turn takes it in.
        _rec({"type": "queue-operation", "operation": "enqueue", "content": _notice("sh2")}),
        _rec({"type": "queue-operation", "operation": "remove", "content": _notice("sh3")}),
        # A task_id closes its task only in the result of a TaskStop call.
        _rec({"type": "user", "toolUseResult": {"task_id": "sh2"}}),
        "not json {",
    ]
    tasks = background_tasks_of("\n".join(lines), complete=True)
    assert tasks == BackgroundTasks(open=("ag1", "sh2"), complete=True)
    stop = [
        _rec(
            {
                "type": "assistant",
                "message": {"content": [{"type": "tool_use", "name": "TaskStop", "id": "t1"}]},
            }
        ),
        _rec(
            {
                "type": "user",
                "message": {"content": [{"type": "tool_result", "tool_use_id": "t1"}]},
                "toolUseResult": {"task_id": "sh2"},
            }
        ),
    ]
    half = background_tasks_of(stop[0], complete=False, after=tasks)
    assert half.stop_calls == ("t1",)
    assert background_tasks_of(stop[1], complete=True, after=half).open == ("ag1",)


def test_a_turn_that_ended_with_an_open_task_is_running_while_a_process_holds_it() -> None:
    now = parse_iso_ms("2026-12-04T10:00:00.000Z") or 0
    waiting = TranscriptFacts(
        turn="finished", background_tasks=BackgroundTasks(open=("sh1",), complete=True)
    )
    row = IndexRow(**{**_fields(_row("a")), "facts": waiting})
    sdk = LiveRecord(pid=7, session_id="a", kind="interactive", entrypoint="sdk-py", status="busy")
    assert row_state(row, None, now, sdk) == "running"
    # Also after an API error, and long after the turn ended.
    failed = replace(row, facts=replace(waiting, last_turn_error=True), mtime_ms=now - 3_600_000)
    assert row_state(failed, None, now, sdk) == "running"
    # The wait ends when the registry says idle (a task stopped in the UI writes nothing).
    assert row_state(row, None, now, replace(sdk, status="idle")) == "idle"
    # No live process: nothing wakes it.
    assert row_state(row, None, now) == "idle"
    # An unfinished turn does not wait; the transcript's rule holds.
    unfinished = replace(row, facts=replace(waiting, turn="unfinished"), mtime_ms=now - 700_000)
    assert row_state(unfinished, None, now, sdk) is None
    # The scan of a small whole file finds the task; a tail's set is incomplete.
    text = "\n".join(
        [
            _rec({"type": "user", "toolUseResult": {"backgroundTaskId": "sh1"}}),
            _rec({"type": "assistant", "message": {"stop_reason": "end_turn", "content": []}}),
        ]
    )
    whole = scan_transcript(text, text, whole=True)
    assert whole.background_tasks == BackgroundTasks(open=("sh1",), complete=True)
    assert row_state(replace(row, facts=whole), None, now, sdk) == "running"
    tail = scan_transcript(text, text)
    assert not tail.background_tasks.complete
    assert needs_task_search(tail, sdk)
    assert not needs_task_search(tail, None)
    assert not needs_task_search(whole, sdk)
    assert not needs_task_search(replace(tail, turn="unfinished"), sdk)


def _fields(row: IndexRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in row.__dataclass_fields__}


def test_session_info_shape() -> None:
    facts = scan_transcript(PROMPT, "\n".join([PROMPT, ANSWER]))
    row = IndexRow(
        session_id=SID,
        cwd="/repo",
        title="[archived] Fix\n  it",
        archived=True,
        mtime_ms=parse_iso_ms("2026-12-04T10:00:00.000Z") or 0,
        facts=facts,
        agent_worktree=True,
    )
    info = index_session_info(row, OwnActivity(state="idle", cost_usd=0.42), 0)
    assert info == {
        "sessionId": SID,
        "cwd": "/repo",
        "title": "Fix it",
        "updatedAt": "2026-12-04T09:59:00.000Z",
        "_meta": {
            "jetbrains": {
                "air": {
                    "version": 1,
                    "archived": True,
                    "lastPromptAt": "2026-12-04T09:58:00.000Z",
                    "model": "claude-x",
                    "agentWorktree": True,
                    "state": "idle",
                    "lastTurnEndedAt": "2026-12-04T09:59:00.000Z",
                    "cost": {"amount": 0.42, "currency": "USD"},
                }
            }
        },
    }
    bare = index_session_info(_row(SID, has_messages=True), None, 0)
    assert bare["_meta"] == {
        "jetbrains": {"air": {"version": 1, "archived": False, "state": "idle"}}
    }
    no_cost = index_session_info(row, OwnActivity(state="idle", cost_usd=0.0), 0)
    assert "cost" not in no_cost["_meta"]["jetbrains"]["air"]


def test_iso_round_trip() -> None:
    for text in (
        "1970-01-01T00:00:00.000Z",
        "2026-12-04T09:58:00.123Z",
        "2000-02-29T23:59:59.999Z",
    ):
        ms = parse_iso_ms(text)
        assert ms is not None and iso_ms(ms) == text
    assert parse_iso_ms("2026-12-04T10:00:00+02:00") == parse_iso_ms("2026-12-04T08:00:00Z")
    assert parse_iso_ms("yesterday") is None and parse_iso_ms(None) is None
    assert parse_iso_ms("2026-13-01T00:00:00Z") is None


# --- subscriptions --------------------------------------------------------------------------


def _info(session_id: str, title: str, updated: str = "2026-01-01T00:00:00.000Z") -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "cwd": "/r",
        "title": title,
        "updatedAt": updated,
        "_meta": None,
    }


def test_a_subscription_is_told_each_change_once() -> None:
    subscriptions = ListSubscriptions()
    subscriptions.subscribe("s1", "/r")
    first = subscriptions.deliver("s1", ["a"], {"a": _info("a", "T")}, {"a"})
    assert first == {"subscriptionId": "s1", "sessions": [_info("a", "T")], "removed": []}
    # `updatedAt` alone is no change; a new title is.
    assert (
        subscriptions.deliver(
            "s1", ["a"], {"a": _info("a", "T", "2027-01-01T00:00:00.000Z")}, {"a"}
        )
        is None
    )
    renamed = subscriptions.deliver("s1", ["a"], {"a": _info("a", "U")}, {"a"})
    assert renamed is not None and renamed["sessions"][0]["title"] == "U"
    # No row any more but its transcript is there: removed once.
    gone = subscriptions.deliver("s1", ["a"], {}, {"a"})
    assert gone == {"subscriptionId": "s1", "sessions": [], "removed": ["a"]}
    assert subscriptions.deliver("s1", ["a"], {}, {"a"}) is None
    # Its row is back: sent in full again.
    back = subscriptions.deliver("s1", ["a"], {"a": _info("a", "U")}, {"a"})
    assert back is not None and back["sessions"] == [_info("a", "U")]
    # The transcript is gone too: removed, then forgotten.
    assert subscriptions.deliver("s1", ["a"], {}, set()) == {
        "subscriptionId": "s1",
        "sessions": [],
        "removed": ["a"],
    }


def test_subscriptions_are_independent_bounded_and_end() -> None:
    subscriptions = ListSubscriptions()
    subscriptions.subscribe("s1", "/r")
    subscriptions.subscribe("s2", "/r")
    assert subscriptions.deliver("s1", ["a"], {"a": _info("a", "T")}, {"a"}) is not None
    assert subscriptions.deliver("s2", ["a"], {"a": _info("a", "T")}, {"a"}) is not None
    subscriptions.unsubscribe("s1")
    subscriptions.unsubscribe("never")  # no error
    assert subscriptions.deliver("s1", ["a"], {"a": _info("a", "V")}, {"a"}) is None
    assert subscriptions.scopes() == {"s2": "/r"}
    for n in range(127):  # with s2: 128
        subscriptions.subscribe(f"x{n}", "/r")
    with pytest.raises(TooManySubscriptions) as caught:
        subscriptions.subscribe("one-more", "/r")
    assert caught.value.data == {"reason": "too_many_subscriptions", "max": 128}


def test_change_signature_ignores_updated_at_only() -> None:
    assert change_signature(_info("a", "T")) == change_signature(
        _info("a", "T", "2030-01-01T00:00:00.000Z")
    )
    assert change_signature(_info("a", "T")) != change_signature(_info("a", "U"))


# --- the session's own activity, kept by its core -------------------------------------------


def test_the_core_knows_its_sessions_activity_and_cost() -> None:
    core = SessionCore(session_id=SID, epoch="e1", capable=True)
    core.handle(RuntimeStarted(epoch="e1"))
    assert core.activity() == OwnActivity(state="idle")
    core.handle(PromptReceived(turn_id="t1"))
    core.handle(PromptSent(turn_id="t1", now=1.0))
    assert core.activity().state == "running"
    assert core.activity(asking=True).state == "requires_action"
    core.handle(ResultReceived(epoch="e1", subtype="success", is_error=False, total_cost_usd=0.25))
    assert core.activity() == OwnActivity(state="idle", cost_usd=0.25)
    core.handle(PromptReceived(turn_id="t2"))
    core.handle(PromptSent(turn_id="t2", now=2.0))
    core.handle(CancelRequested(now=3.0))
    core.handle(ResultReceived(epoch="e1", subtype="error_during_execution", is_error=True))
    # A cancel is no failure; the cost stays the last one Claude Code said.
    assert core.activity() == OwnActivity(state="idle", cost_usd=0.25)


def test_the_registry_counts_live_processes_of_this_pid_domain_only() -> None:
    now = 1_800_000_000_000.0
    files: dict[str, object] = {
        "11.json": {
            "pid": 11,
            "sessionId": "s1",
            "kind": "interactive",
            "entrypoint": "cli",
            "status": "busy",
            "statusUpdatedAt": now - 5,
            "procStart": "Fri Dec  4 10:00:00 2026",
        },
        "12.json": {
            "pid": 12,
            "sessionId": "s1",
            "status": "idle",
            "statusUpdatedAt": now - 1,
            "startedAt": now - 10,
        },
        "13.json": {"pid": 13, "sessionId": "s3", "pidDomain": "elsewhere", "startedAt": now},
        "14.json": {"pid": 99, "sessionId": "s4", "startedAt": now},  # another pid's
        "15.json": None,  # unreadable
        "16.key": {"pid": 16, "sessionId": "s6"},
        "17.json": {"pid": 17, "sessionId": "s7", "procStart": "Thu Dec  3 01:00:00 2026"},
        "18.json": {"pid": 18, "sessionId": "s8", "startedAt": now - 2 * 86_400_000},
        "19.json": {"pid": True, "sessionId": "s9"},
    }
    candidates = registry_candidates(files, "linux:m:pid:[1]")
    assert sorted(c.pid for c in candidates) == [11, 12, 17, 18]
    assert next(c for c in candidates if c.pid == 11).proc_start == "Fri Dec 4 10:00:00 2026"
    alive = {11, 12, 17, 18}
    starts = {11: "Fri Dec 4 10:00:00 2026", 17: "Fri Dec 4 09:00:00 2026"}
    live = live_sessions(candidates, alive, starts, now)
    # s1: two live processes, the newest status wins; s7: its pid was reused; s8: stale.
    assert set(live) == {"s1"} and live["s1"].pid == 12
    assert live_sessions(candidates, {11}, starts, now)["s1"].status == "busy"
    assert live_sessions(candidates, set(), starts, now) == {}
    # A stale entry whose start matches the live process still counts.
    old = registry_candidates({"11.json": {**files["11.json"], "statusUpdatedAt": 0}}, "d")  # type: ignore[dict-item]
    assert set(live_sessions(old, {11}, starts, now)) == {"s1"}


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        # docs/decisions.md#listed-titles: a reminder appended to the first prompt goes.
        ("fix the bug<system-reminder>\nThe date is today.\n</system-reminder>", "fix the bug"),
        ("[archived] tidy <system-reminder>r</system-reminder>the notes", "tidy the notes"),
        # Nothing else left: listed as stored, so the session keeps its row.
        ("<command-name>/model</command-name>", "<command-name>/model</command-name>"),
        # A marker that never closes (the SDK cut the prompt) is text, as on replay.
        ("fix it<system-reminder>The da\u2026", "fix it<system-reminder>The da\u2026"),
    ],
)
def test_a_listed_title_leaves_claude_codes_markers_out(stored: str, shown: str) -> None:
    row = _row("a", title=stored)
    assert row.shown_title == shown
    assert row.listed


def test_a_notification_ends_its_task_only_as_async_tasks_reads_it() -> None:
    # The index reads `<task-notification>` inputs through `async_tasks.task_notices`, the one
    # parser of them (the reference's `endedTaskId` over `taskNotificationsOf`).
    def open_after(content: object) -> tuple[str, ...]:
        lines = [
            _rec({"type": "user", "toolUseResult": {"backgroundTaskId": task}})
            for task in ("sh1", "sh2")
        ]
        lines.append(_rec({"type": "user", "message": {"content": content}}))
        return background_tasks_of("\n".join(lines), complete=True).open

    assert open_after("\n  " + _notice("sh1")) == ("sh2",)  # whitespace before the tag
    assert open_after([{"type": "text", "text": _notice("sh2")}]) == ("sh1",)
    # Only an input that starts with the tag, and only its first notification with a status
    # (a check-in without one comes first while the task still runs).
    assert open_after("Done: " + _notice("sh1")) == ("sh1", "sh2")
    assert open_after(_notice("sh1", None) + _notice("sh2")) == ("sh1",)
    assert open_after(_notice("sh1") + _notice("sh2")) == ("sh2",)
    # A notification quoted in another's `<result>` body is no notification.
    quoted = (
        "<task-notification><task-id>sh1</task-id><result>"
        + _notice("sh2")
        + "</result></task-notification>"
    )
    assert open_after(quoted) == ("sh1", "sh2")
    # Unfinished or empty tags end nothing.
    assert open_after("<task-notification><task-id>sh1</task-id><status>done") == ("sh1", "sh2")
    assert open_after(_notice(" ")) == ("sh1", "sh2")
