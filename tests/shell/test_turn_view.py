"""The translation from Claude's messages to ACP updates, in process (no subprocess): stream
assembly, cards, results, plan and usage, including the odd shapes Claude may send."""

from __future__ import annotations

from typing import Any

import pytest

from adapter.view.plan import plan_update
from adapter.view.stream_assembly import BROKEN_MARK, MalformedStream, StreamAssembly
from adapter.view.tool_cards import card_for
from adapter.view.tool_results import fenced, result_updates
from adapter.view.turn_view import TurnView
from adapter.view.usage import UsageMeter


def _start(message_id: str, model: str = "claude-sonnet-4-5") -> dict[str, Any]:
    return {"type": "message_start", "message": {"id": message_id, "model": model}}


def _delta(text: str, kind: str = "text_delta") -> dict[str, Any]:
    key = "text" if kind == "text_delta" else "thinking"
    return {"type": "content_block_delta", "index": 0, "delta": {"type": kind, key: text}}


def _texts(updates: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [(u["sessionUpdate"], u["content"]["text"], u.get("messageId")) for u in updates]


def test_deltas_stream_and_the_finished_message_adds_only_the_rest() -> None:
    view = TurnView(cwd="/w", live=True)
    streamed = []
    for event in (_start("m1"), _delta("Hel"), _delta("lo "), _delta("think", "thinking_delta")):
        streamed += view.stream_event(event, None)
    assert _texts(streamed) == [
        ("agent_message_chunk", "Hel", "m1"),
        ("agent_message_chunk", "lo ", "m1"),
        ("agent_thought_chunk", "think", "m1"),
    ]
    # Claude Code finishes a message block by block; all of it streamed but " world".
    finished = view.assistant(
        [{"type": "thinking", "thinking": "think"}, {"type": "text", "text": "Hello world"}],
        message_id="m1",
        parent=None,
    )
    assert _texts(finished) == [("agent_message_chunk", "world", "m1")]
    assert view.stream_event({"type": "message_stop"}, None) == []
    # A message that never streamed (non-streaming fallback) is sent whole, once.
    assert _texts(
        view.assistant([{"type": "text", "text": "Whole"}], message_id="m2", parent=None)
    ) == [("agent_message_chunk", "Whole", "m2")]


def test_synthetic_and_subagent_streams_are_not_streamed() -> None:
    view = TurnView(cwd="/w", live=True)
    assert view.stream_event(_start("s1", "<synthetic>"), None) == []
    with pytest.raises(MalformedStream):
        view.stream_event(_delta("API Error"), None)  # no open message: skipped by the caller
    assert view.stream_event(_start("m1"), "toolu_task") == []
    assert view.stream_event(_delta("sub"), "toolu_task") == []


def test_a_subagents_words_stream_to_its_child_session_for_a_native_subagents_client() -> None:
    from fsm import air_client

    native = air_client(
        {"jetbrains": {"air": {"version": 1, "capabilities": ["nativeSubagentSessions"]}}}
    )
    view = TurnView(cwd="/w", live=True, air=native)
    streamed = []
    for event in (_start("c1"), _delta("Rea"), _delta("ding")):
        streamed += view.stream_event(event, "toolu_task")
    assert _texts(streamed) == [
        ("agent_message_chunk", "Rea", "c1"),
        ("agent_message_chunk", "ding", "c1"),
    ]
    assert {str(u["_meta"]) for u in streamed} == {
        "{'claudeCode': {'parentToolUseId': 'toolu_task'}}"
    }
    # The root's own stream is apart: a root delta is no child's, and the reverse.
    assert _texts(view.stream_event(_start("m1"), None)) == []
    assert _texts(view.stream_event(_delta("Root"), None)) == [
        ("agent_message_chunk", "Root", "m1")
    ]
    finished = view.assistant(
        [{"type": "text", "text": "Reading the file."}], message_id="c1", parent="toolu_task"
    )
    assert _texts(finished) == [("agent_message_chunk", " the file.", "c1")]
    assert finished[0]["_meta"] == {"claudeCode": {"parentToolUseId": "toolu_task"}}


def test_a_broken_stream_is_closed_before_the_retry() -> None:
    stream = StreamAssembly()
    stream.event(_start("a"), None)
    stream.event(_delta("partial"), None)
    closing = stream.event(_start("b"), None)
    assert _texts(closing) == [("agent_message_chunk", BROKEN_MARK, "a")]
    assert stream.event({"type": "message_stop"}, None) == []
    assert stream.event(_start("c"), None) == []  # a finished message needs no mark
    # Another finished message, or the turn's end, closes a broken one too.
    stream.event(_delta("more"), None)
    assert _texts(stream.close_broken(unless="c")) == []
    assert _texts(stream.close_broken()) == [("agent_message_chunk", BROKEN_MARK, "c")]
    assert stream.close_broken() == []


def test_an_attempt_stopped_after_an_error_is_closed_before_a_plain_retry() -> None:
    # Claude Code ends a stream that got an error event with message_stop, then asks again
    # without streaming: the retry arrives as a finished message under a new id.
    stream = StreamAssembly()
    stream.event(_start("a"), None)
    stream.event(_delta("Parti"), None)
    assert stream.event({"type": "message_stop"}, None) == []
    assert _texts(stream.close_broken(unless="b")) == [("agent_message_chunk", BROKEN_MARK, "a")]
    # A message whose finished copy accounted for all it streamed is not broken.
    stream.event(_start("c"), None)
    stream.event(_delta("Whole"), None)
    assert stream.close_broken(unless="c") == []
    assert stream.remainder("c", False, "Whole") == ""
    assert stream.close_broken() == []


@pytest.mark.parametrize(
    "event",
    ["text", {}, {"type": 5}, {"type": "message_start"}, {"type": "content_block_delta"}],
)
def test_malformed_stream_events_raise_the_one_documented_error(event: Any) -> None:
    with pytest.raises(MalformedStream):
        StreamAssembly().event(event, None)


def test_unknown_blocks_are_counted_and_the_rest_goes_on() -> None:
    view = TurnView(cwd="/w", live=False)
    updates = view.assistant(
        [{"type": "hologram"}, {"type": "text", "text": 5}, {"type": "text", "text": "ok"}],
        message_id=None,
        parent=None,
    )
    assert _texts(updates) == [("agent_message_chunk", "ok", None)]
    assert view.skipped == 2


@pytest.mark.parametrize(
    ("name", "tool_input", "title", "kind"),
    [
        ("Read", {"file_path": "/w/a.py"}, "Read a.py", "read"),
        ("Read", {"file_path": "/w/a.py", "offset": 10}, "Read a.py (from line 10)", "read"),
        ("Write", {"file_path": "/elsewhere/b.py", "content": ""}, "Write /elsewhere/b.py", "edit"),
        ("Bash", {"command": "make  test\n"}, "make test", "execute"),
        ("Glob", {"pattern": "*.md"}, "Find *.md in .", "search"),
        (
            "Grep",
            {"pattern": "x", "path": "/w/src", "type": "py"},
            'Search "x" in src (py)',
            "search",
        ),
        ("mcp__srv__do_it", {}, "do_it (srv MCP)", "other"),
        ("Edit", "not a dict", "Edit", "edit"),
        ("WebSearch", {"query": 7}, "WebSearch", "fetch"),
    ],
)
def test_card_titles_and_kinds(name: str, tool_input: Any, title: str, kind: str) -> None:
    card = card_for("t1", name, tool_input, "/w")
    assert (card["title"], card["kind"], card["status"]) == (title, kind, "pending")


def test_a_long_title_is_cut() -> None:
    card = card_for("t1", "Bash", {"command": "x" * 500}, "/w")
    assert len(card["title"]) == 200 and card["title"].endswith("\u2026")


def test_edit_result_diffs_the_whole_file_or_keeps_the_snippet() -> None:
    edit = {"file_path": "/w/a.py", "old_string": "b", "new_string": "c"}
    common: dict[str, Any] = {"tool_id": "t", "name": "Edit", "tool_input": edit, "content": "ok"}
    whole = result_updates(
        **common,
        is_error=False,
        tool_use_result={"originalFile": "a\nb\n", "structuredPatch": [{"newStart": 2}]},
        cwd="/w",
        terminal=False,
    )
    assert whole[0]["content"] == [
        {"type": "diff", "path": "/w/a.py", "oldText": "a\nb\n", "newText": "a\nc\n"}
    ]
    assert whole[0]["locations"] == [{"path": "/w/a.py", "line": 2}]
    for odd in ({"originalFile": "\x00bin"}, {"originalFile": "no match"}, None, "text"):
        [update] = result_updates(
            **common, is_error=False, tool_use_result=odd, cwd="/w", terminal=False
        )
        assert "content" not in update and update["status"] == "completed"


def test_a_todos_own_priority_is_kept_and_anything_off_acps_three_is_medium() -> None:
    # docs/decisions.md#todo-priority: older Claude Code's todos carry a priority.
    todos = [
        {"content": "A", "status": "pending", "activeForm": "A", "priority": "low"},
        {"content": "B", "status": "pending", "activeForm": "B", "priority": "urgent"},
        {"content": "C", "status": "pending", "activeForm": "C", "priority": 3},
    ]
    plan = plan_update({"todos": todos})
    assert plan is not None
    assert [e["priority"] for e in plan["entries"]] == ["low", "medium", "medium"]


def test_todo_write_is_the_plan() -> None:
    todos = [
        {"content": "A", "status": "completed", "activeForm": "Doing A"},
        {"content": "B", "status": "in_progress", "activeForm": "Doing B", "priority": "high"},
        {"content": "C", "status": "bogus"},
        "junk",
    ]
    assert plan_update({"todos": todos}) == {
        "sessionUpdate": "plan",
        "entries": [
            {"content": "A", "status": "completed", "priority": "medium"},
            {"content": "Doing B", "status": "in_progress", "priority": "high"},
        ],
    }
    assert plan_update({"todos": "nope"}) is None
    view = TurnView(cwd="/w", live=True)
    use = {"type": "tool_use", "id": "t", "name": "TodoWrite", "input": {"todos": todos}}
    assert [u["sessionUpdate"] for u in view.assistant([use], message_id=None, parent=None)] == [
        "plan"
    ]
    result = {"type": "tool_result", "tool_use_id": "t", "content": "ok"}
    assert view.user([result]) == []


def test_open_calls_fail_when_the_turn_ends() -> None:
    view = TurnView(cwd="/w", live=True)
    use = {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "sleep 9"}}
    view.assistant([use], message_id=None, parent=None)
    assert view.close_open_calls() == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "failed"}
    ]
    assert view.close_open_calls() == []


def test_a_background_subagents_calls_outlive_the_turn_and_end_with_it() -> None:
    # The subagent runs on after the turn's answer (JetBrains AIR's `backgroundSubagents`, or
    # Claude's own follow-up of another one): its open call is not failed at the turn's end,
    # its result still completes it, and what it left open fails when the subagent ends.
    view = TurnView(cwd="/w", live=True)
    launch = {"type": "tool_use", "id": "ag", "name": "Agent", "input": {"prompt": "audit"}}
    view.assistant([launch], message_id=None, parent=None)
    started = {"task_id": "a1", "tool_use_id": "ag", "subagent_type": "general-purpose"}
    assert view.task_started({**started, "is_backgrounded": True}) == []
    view.user([{"type": "tool_result", "tool_use_id": "ag", "content": "launched"}])
    for ident in ("r1", "r2"):
        use = {"type": "tool_use", "id": ident, "name": "Read", "input": {"file_path": "/w/a"}}
        view.assistant([use], message_id=None, parent="ag")
    main = {"type": "tool_use", "id": "m", "name": "Bash", "input": {"command": "ls"}}
    view.assistant([main], message_id=None, parent=None)
    assert view.close_open_calls() == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "m", "status": "failed"}
    ]
    done = view.user([{"type": "tool_result", "tool_use_id": "r1", "content": "a"}])
    assert [(u["toolCallId"], u.get("status")) for u in done] == [("r1", "completed")]
    ended = {"task_id": "a1", "status": "completed"}
    assert view.task_ended(ended) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "r2", "status": "failed"}
    ]
    assert view.close_open_calls() == []
    # A foreground subagent, or one Claude Code never said runs in the background, holds
    # nothing: its calls end with the turn, as before.
    view.assistant([{**launch, "id": "ag2"}], message_id=None, parent=None)
    assert view.task_started({**started, "task_id": "a2", "tool_use_id": "ag2"}) == []
    use = {"type": "tool_use", "id": "r3", "name": "Read", "input": {"file_path": "/w/a"}}
    view.assistant([use], message_id=None, parent="ag2")
    closed = {u["toolCallId"] for u in view.close_open_calls()}
    assert closed == {"ag2", "r3"}
    # Claude's stream ended: no subagent runs on, so the next end closes their calls.
    view.assistant([{**launch, "id": "ag3"}], message_id=None, parent=None)
    view.task_started({**started, "task_id": "a3", "tool_use_id": "ag3", "is_backgrounded": True})
    view.assistant([{**use, "id": "r4"}], message_id=None, parent="ag3")
    view.subagents_ended()
    assert {u["toolCallId"] for u in view.close_open_calls()} == {"ag3", "r4"}


def test_a_foreground_subagent_moved_to_the_background_keeps_its_calls_open() -> None:
    # `task_updated` with `is_backgrounded` (a steer, or the user, moved it): its calls outlive
    # the turn as those of one started in the background do, and end with it.
    view = TurnView(cwd="/w", live=True)
    launch = {"type": "tool_use", "id": "ag", "name": "Agent", "input": {"prompt": "audit"}}
    view.assistant([launch], message_id=None, parent=None)
    started = {"task_id": "a1", "tool_use_id": "ag", "subagent_type": "general-purpose"}
    assert view.task_started({**started, "is_backgrounded": False}) == []
    use = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "/w/a"}}
    view.assistant([use], message_id=None, parent="ag")
    assert view.task_moved({"task_id": "a1", "patch": {"is_backgrounded": True}}) == []
    view.user([{"type": "tool_result", "tool_use_id": "ag", "content": "moved"}])
    assert view.close_open_calls() == []
    assert view.task_ended({"task_id": "a1", "status": "completed"}) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "r1", "status": "failed"}
    ]
    # A patch that moves nothing, or a task never seen in the foreground: nothing kept.
    view.assistant([{**launch, "id": "ag2"}], message_id=None, parent=None)
    view.task_started({**started, "task_id": "a2", "tool_use_id": "ag2"})
    view.assistant([{**use, "id": "r2"}], message_id=None, parent="ag2")
    assert view.task_moved({"task_id": "a2", "patch": {"is_backgrounded": False}}) == []
    assert view.task_moved({"task_id": "zz", "patch": {"is_backgrounded": True}}) == []
    assert {u["toolCallId"] for u in view.close_open_calls()} == {"ag2", "r2"}


def test_usage_reports_context_cost_and_session_totals() -> None:
    meter = UsageMeter()
    assert meter.response_usage() is None
    meter.saw_request({"input_tokens": 10, "cache_read_input_tokens": 90, "output_tokens": 5})
    update = meter.saw_result(
        {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 90},
        {"claude-x": {"contextWindow": 1000000}},
        0.25,
        for_turn=True,
    )
    assert update == {
        "sessionUpdate": "usage_update",
        "used": 105,
        "size": 1000000,
        "cost": {"amount": 0.25, "currency": "USD"},
    }
    meter.saw_result({"input_tokens": "lots", "output_tokens": 1}, None, True, for_turn=True)
    # Claude's own work (the core's `ShowResult` names no prompt): reported, never the turn's.
    own = meter.saw_result({"input_tokens": 500, "output_tokens": 50}, None, 0.5, for_turn=False)
    assert own is not None
    usage = meter.response_usage()
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cached_read_tokens) == (10, 6, 90)
    assert usage.total_tokens == 106


def test_tool_progress_of_odd_shapes_is_safe() -> None:
    view = TurnView(cwd="/w", live=True)
    use = {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "make"}}
    view.assistant([use], message_id=None, parent=None)
    assert view.progress({"tool_use_id": ["not", "an id"], "parent_tool_use_id": {}}) == []
    [first] = view.progress({"tool_use_id": "t", "elapsed_time_seconds": "soon"})
    assert first == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "status": "in_progress",
        "_meta": {"claudeCode": {"toolName": "Bash", "toolResponse": {}}},
    }
    assert view.progress({"tool_use_id": "t", "elapsed_time_seconds": True}) == []
    view.user([{"type": "tool_result", "tool_use_id": "t", "content": "ok"}])
    assert view.progress({"tool_use_id": "t", "elapsed_time_seconds": 9}) == []


def test_usage_follows_the_stream_during_a_turn() -> None:
    meter = UsageMeter()
    start = {
        "type": "message_start",
        "message": {
            "model": "claude-opus-4[1m]",
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    }
    assert meter.saw_stream(start) == {
        "sessionUpdate": "usage_update",
        "used": 11,
        "size": 1_000_000,
        "_meta": {"_claude/model": "claude-opus-4[1m]"},
    }
    # A delta's missing or null counts keep their value; no change, no update.
    delta = {"type": "message_delta", "usage": {"output_tokens": 30, "input_tokens": None}}
    assert meter.saw_stream(delta)["used"] == 40  # type: ignore[index]
    assert meter.saw_stream(delta) is None
    assert meter.saw_stream({"type": "message_delta", "usage": "lots"}) is None
    # Claude Code's own messages never move the meter.
    synthetic = {"type": "message_start", "message": {"model": "<synthetic>", "usage": {}}}
    assert meter.saw_stream(synthetic) is None
    assert meter.saw_stream({"type": "message_delta", "usage": {"output_tokens": 9}}) is None
    # The result's window is the session's from then on; the turn's end reports as before.
    end = meter.saw_result(
        {"output_tokens": 30}, {"m": {"contextWindow": 500_000}}, None, for_turn=True
    )
    assert end is not None and (end["used"], end["size"]) == (40, 500_000)
    assert meter.saw_stream(start) == {
        "sessionUpdate": "usage_update",
        "used": 11,
        "size": 500_000,
        "_meta": {"_claude/model": "claude-opus-4[1m]"},
    }


def test_compaction_cards_of_odd_orders_and_shapes() -> None:
    from adapter.view.compaction import CompactionCards
    from adapter.view.compaction_ids import CompactionIds, compaction_id

    cards = CompactionCards(CompactionIds("s-1", before=0))
    # A boundary with no start opens and closes a card of its own; odd counts are left out.
    metadata = {"trigger": "weird", "pre_tokens": -1, "post_tokens": 5}
    opened, closed = cards.system("compact_boundary", {"uuid": "b", "compact_metadata": metadata})
    assert (opened["toolCallId"], opened["status"], closed["status"]) == (
        compaction_id("s-1", 0),
        "in_progress",
        "completed",
    )
    assert closed["rawOutput"] == {"postTokens": 5}
    # Counts of an odd shape: the card still closes, with no counts.
    opened, closed = cards.system("compact_boundary", {"compact_metadata": "x"})
    assert (opened["toolCallId"], closed["status"]) == (compaction_id("s-1", 1), "completed")
    assert closed["rawOutput"] == {}
    # A compaction the turn's end interrupts fails, and says so; a succeeded one with no
    # boundary is done.
    [started] = cards.system("status", {"status": "compacting", "uuid": 7})
    assert started["toolCallId"] == compaction_id("s-1", 2)
    assert cards.system("status", {"status": "compacting", "uuid": "d"}) == []
    [failed] = cards.turn_ended()
    assert (failed["toolCallId"], failed["status"]) == (compaction_id("s-1", 2), "failed")
    assert "did not finish" in failed["content"][0]["content"]["text"]
    [retried] = cards.system("status", {"status": "compacting", "uuid": "e"})
    assert retried["toolCallId"] == compaction_id("s-1", 2, retry=1)
    assert cards.system("status", {"compact_result": "success"}) == []
    assert [u["status"] for u in cards.turn_ended()] == ["completed"]
    assert cards.turn_ended() == []
    meter = UsageMeter()
    assert meter.compacted({"post_tokens": "many"})["used"] == 0


def _shown(name: str, content: object, *, is_error: bool = True, air: bool = False) -> object:
    [update] = result_updates(
        tool_id="t1",
        name=name,
        tool_input={},
        content=content,
        is_error=is_error,
        tool_use_result=None,
        cwd="/w",
        terminal=False,
        air=air,
    )
    return update["content"][0]["content"]["text"]


def test_a_failed_calls_text_is_fenced_as_the_reference_shows_it() -> None:
    # docs/decisions.md#failed-call-text-fenced: every client, every tool but the commands.
    assert _shown("Read", "File does not exist.") == "```\nFile does not exist.\n```"
    assert _shown("Read", "ok", is_error=False) == "ok"
    blocks = [{"type": "text", "text": "Error: __init__ failed"}]
    assert _shown("mcp__db__query", blocks) == "```\nError: __init__ failed\n```"
    assert _shown("Bash", "boom") == "```console\nboom\n```"
    # JetBrains AIR reads its agent control tools' and the plan exit's error text plain.
    assert _shown("SendMessage", '{"error": "no agent"}', air=True) == '{"error": "no agent"}'
    assert _shown("ExitPlanMode", "```\nKeep planning\n```", air=True) == "```\nKeep planning\n```"
    assert _shown("SendMessage", "no agent") == "```\nno agent\n```"
    assert _shown("Read", "gone", air=True) == "```\ngone\n```"
    # Text that opens a fence of its own gets a longer one, so it cannot close the block.
    assert fenced("a\n```\nb") == "````\na\n```\nb\n````"
    assert fenced("a\n`````py\nb") == "``````\na\n`````py\nb\n``````"
    assert fenced("inline ``` stays") == "```\ninline ``` stays\n```"
    # Markdown closes a block on a fence indented by up to three spaces, not by four.
    assert fenced("error:\n  ```\n  rest") == "````\nerror:\n  ```\n  rest\n````"
    assert fenced("code:\n    ```") == "```\ncode:\n    ```\n```"
    # A command's output gets the same guard, with its `console` label.
    assert _shown("Bash", "out\n```\nmore") == "````console\nout\n```\nmore\n````"


def _plan_exit(view: TurnView, parent: str | None, result: object = None) -> list[dict[str, Any]]:
    """ExitPlanMode `toolu_plan` (under `parent`) and its approved, not-failed result."""
    call = {"type": "tool_use", "id": "toolu_plan", "name": "ExitPlanMode"}
    view.assistant([{**call, "input": {"plan": " The plan "}}], message_id="m1", parent=parent)
    approved = {"type": "tool_result", "tool_use_id": "toolu_plan", "content": "User approved"}
    return view.user([approved], tool_use_result=result)


def _plan_updates(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [u for u in updates if u["sessionUpdate"] == "plan_update"]


def test_an_approved_plan_follows_its_result_for_a_client_that_declared_plan() -> None:
    # Replay too: the reference sends it wherever it renders the result.
    for live in (True, False):
        updates = _plan_exit(TurnView(cwd="/w", live=live, plan_updates=True), None)
        assert updates[-2]["toolCallId"] == "toolu_plan"
        assert updates[-2]["status"] == "completed"
        assert updates[-1] == {
            "sessionUpdate": "plan_update",
            "plan": {"type": "markdown", "planId": "plan-mode", "content": "The plan"},
        }


def test_a_subagents_approved_plan_is_not_the_sessions_plan() -> None:
    # Its call runs under an Agent call (the reference's `parentToolUseId`) ...
    view = TurnView(cwd="/w", live=True, plan_updates=True)
    assert _plan_updates(_plan_exit(view, "toolu_agent")) == []
    # ... or its result says it is an agent's.
    view = TurnView(cwd="/w", live=True, plan_updates=True)
    assert _plan_updates(_plan_exit(view, None, {"plan": "The plan", "isAgent": True})) == []


def test_a_client_without_plan_gets_no_approved_plan() -> None:
    view = TurnView(cwd="/w", live=True)
    updates = _plan_exit(view, None, {"plan": "Edited plan"})
    assert updates and _plan_updates(updates) == []
