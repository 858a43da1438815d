"""What an AIR client is not sent again (`fsm.air.changed_meta_filter`): the `_meta` keys of a
`tool_call_update` that an earlier report of the call sent with the same value, rule by rule as
the reference's `ChangedMetaFilter` has them."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fsm import ChangedMetaFilter, air_client
from fsm.air.changed_meta_filter import (
    COMPARED_FLAGS,
    MERGED_NAMESPACES,
    TOOL_CALL_LIMIT,
)

Wire = dict[str, Any]


def _call(tool_id: str = "t1", **meta: Any) -> Wire:
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": tool_id,
        "title": "Run ls",
        "status": "pending",
        "_meta": meta,
    }


def _update(tool_id: str = "t1", *, meta: Any = None, **fields: Any) -> Wire:
    update: Wire = {"sessionUpdate": "tool_call_update", "toolCallId": tool_id, **fields}
    if meta is not None:
        update["_meta"] = meta
    return update


def _opened(*updates: Wire) -> ChangedMetaFilter:
    meta_filter = ChangedMetaFilter()
    for update in updates:
        meta_filter.apply(update)
    return meta_filter


def test_the_compared_keys_are_the_references() -> None:
    assert MERGED_NAMESPACES == ("claudeCode",)
    assert COMPARED_FLAGS == ("is_mcp_tool_call", "terminal_info")
    assert TOOL_CALL_LIMIT == 2048


@pytest.mark.parametrize(
    "update",
    [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}},
        {"sessionUpdate": "agent_thought_chunk", "_meta": {"claudeCode": {"toolName": "x"}}},
        {"sessionUpdate": "plan", "entries": []},
        {"sessionUpdate": "session_info_update", "_meta": {"jetbrains": {"air": {"a": 1}}}},
        {"toolCallId": "t1", "_meta": {"claudeCode": {"toolName": "Bash"}}},  # no kind
    ],
)
def test_any_other_update_passes_as_it_is_and_nothing_is_held(update: Wire) -> None:
    meta_filter = ChangedMetaFilter()
    for _ in range(2):
        assert meta_filter.apply(update) is update
    assert len(meta_filter) == 0


def test_a_tool_call_passes_whole_and_an_update_loses_what_it_repeats() -> None:
    meta: Wire = {
        "claudeCode": {"toolName": "Bash"},
        "jetbrains": {"air": {"commandTitle": "List files"}},
        "terminal_info": {"terminal_id": "t1", "cwd": "/w"},
    }
    meta_filter = ChangedMetaFilter()
    opening = _call(**copy.deepcopy(meta))
    assert meta_filter.apply(opening) is opening
    refined = _update(meta=copy.deepcopy(meta), title="Run ls -la")
    assert meta_filter.apply(refined) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "title": "Run ls -la",
    }


def test_each_key_of_a_namespace_is_compared_on_its_own() -> None:
    meta_filter = _opened(
        _call(claudeCode={"toolName": "Agent", "parentToolUseId": "p"}),
    )
    out = meta_filter.apply(
        _update(meta={"claudeCode": {"toolName": "Agent", "toolResponse": {"elapsed": 1}}})
    )
    assert out == _update(meta={"claudeCode": {"toolResponse": {"elapsed": 1}}})
    # The same progress again: nothing is left, and the update is dropped.
    again = _update(meta={"claudeCode": {"toolName": "Agent", "toolResponse": {"elapsed": 1}}})
    assert meta_filter.apply(again) is None


def test_air_keys_are_compared_one_by_one_and_other_jetbrains_keys_are_not() -> None:
    meta_filter = _opened(
        _call(jetbrains={"air": {"mcp": {"server": "s", "tool": "t"}, "subagent": True}}),
    )
    out = meta_filter.apply(
        _update(
            meta={
                "jetbrains": {
                    "air": {"mcp": {"server": "s", "tool": "t"}, "subagent": False},
                    "other": 1,
                }
            }
        )
    )
    assert out == _update(meta={"jetbrains": {"air": {"subagent": False}, "other": 1}})
    # `jetbrains.air` emptied: it goes, but `jetbrains` keeps what else it holds.
    out = meta_filter.apply(_update(meta={"jetbrains": {"air": {"subagent": False}, "other": 1}}))
    assert out == _update(meta={"jetbrains": {"other": 1}})
    # Nothing else in `jetbrains`: it goes too.
    out = meta_filter.apply(_update(meta={"jetbrains": {"air": {"subagent": False}}}, status="x"))
    assert out == _update(status="x")


@pytest.mark.parametrize("flag", ["is_mcp_tool_call", "terminal_info"])
def test_the_two_flags_are_compared(flag: str) -> None:
    value: Any = True if flag == "is_mcp_tool_call" else {"terminal_id": "t1", "cwd": "/w"}
    meta_filter = _opened(_call(**{flag: value}))
    assert meta_filter.apply(_update(meta={flag: copy.deepcopy(value)})) is None
    changed: Any = False if flag == "is_mcp_tool_call" else {"terminal_id": "t1", "cwd": "/x"}
    assert meta_filter.apply(_update(meta={flag: changed})) == _update(meta={flag: changed})


@pytest.mark.parametrize(
    "key",
    ["terminal_output", "terminal_output_delta", "terminal_exit", "mcp_output_delta", "other"],
)
def test_output_and_every_other_top_level_key_goes_every_time(key: str) -> None:
    value: Any = {"terminal_id": "t1", "data": "same"}
    meta_filter = _opened(_call(**{key: value}), _update(meta={key: value}))
    again = _update(meta={key: dict(value)})
    assert meta_filter.apply(again) is again


def test_a_key_that_changes_is_held_at_its_new_value() -> None:
    meta_filter = _opened(_call(claudeCode={"toolName": "Bash", "stage": "a"}))
    assert meta_filter.apply(_update(meta={"claudeCode": {"stage": "b"}})) == _update(
        meta={"claudeCode": {"stage": "b"}}
    )
    # Back to `a`: a change from what was last sent, so it goes.
    assert meta_filter.apply(_update(meta={"claudeCode": {"stage": "a"}})) == _update(
        meta={"claudeCode": {"stage": "a"}}
    )
    assert meta_filter.apply(_update(meta={"claudeCode": {"stage": "a"}})) is None


def test_a_value_is_compared_as_its_json_text() -> None:
    meta_filter = _opened(_call(claudeCode={"r": {"a": 1, "b": 2}, "n": 1, "z": None}))
    # Key order counts, as in `JSON.stringify`; `true` is not `1`; null is a value.
    out = meta_filter.apply(
        _update(meta={"claudeCode": {"r": {"b": 2, "a": 1}, "n": True, "z": None}})
    )
    assert out == _update(meta={"claudeCode": {"r": {"b": 2, "a": 1}, "n": True}})


def test_a_value_with_no_json_text_is_never_taken_for_unchanged() -> None:
    odd = {1, 2}  # a set: no JSON text
    meta_filter = _opened(_call(claudeCode={"odd": odd}))
    again = _update(meta={"claudeCode": {"odd": odd}})
    assert meta_filter.apply(again) is again


def test_an_update_of_a_call_never_seen_passes_whole_and_is_held() -> None:
    meta_filter = ChangedMetaFilter()
    first = _update("new", meta={"claudeCode": {"toolName": "Read"}, "terminal_info": {}})
    assert meta_filter.apply(first) is first
    assert meta_filter.apply(_update("new", meta=copy.deepcopy(first["_meta"]))) is None


def test_a_tool_call_starts_its_call_afresh() -> None:
    meta_filter = _opened(_call(claudeCode={"toolName": "Bash"}, terminal_info={"id": 1}))
    # Opened again, with less: what was held before is forgotten.
    reopened = _call(claudeCode={"toolName": "Bash"})
    assert meta_filter.apply(reopened) is reopened
    update = _update(meta={"claudeCode": {"toolName": "Bash"}, "terminal_info": {"id": 1}})
    assert meta_filter.apply(update) == _update(meta={"terminal_info": {"id": 1}})


def test_a_tool_call_repeating_every_key_still_passes_whole() -> None:
    meta_filter = _opened(_call(claudeCode={"toolName": "Bash"}))
    repeat = _call(claudeCode={"toolName": "Bash"})
    assert meta_filter.apply(repeat) is repeat


def test_calls_are_held_apart_by_id() -> None:
    meta_filter = _opened(_call("a", claudeCode={"toolName": "Bash"}))
    other = _update("b", meta={"claudeCode": {"toolName": "Bash"}})
    assert meta_filter.apply(other) is other


def test_what_is_left_decides_whether_the_update_goes() -> None:
    meta_filter = _opened(_call(claudeCode={"toolName": "Bash"}))
    same = {"claudeCode": {"toolName": "Bash"}}
    assert meta_filter.apply(_update(meta=dict(same))) is None
    assert meta_filter.apply(_update(meta=dict(same), status="completed")) == _update(
        status="completed"
    )
    # A field with a null value is still a field.
    assert meta_filter.apply(_update(meta=dict(same), rawOutput=None)) == _update(rawOutput=None)


def test_an_update_without_meta_passes_as_it_is() -> None:
    meta_filter = _opened(_call(claudeCode={"toolName": "Bash"}))
    bare = _update()
    assert meta_filter.apply(bare) is bare  # nothing else in it, and still it goes
    null = {**_update(), "_meta": None}
    assert meta_filter.apply(null) is null


def test_an_empty_meta_goes_from_an_update_and_may_take_the_update_with_it() -> None:
    meta_filter = _opened(_call(claudeCode={"toolName": "Bash"}))
    assert meta_filter.apply(_update(meta={})) is None
    assert meta_filter.apply(_update(meta={}, status="failed")) == _update(status="failed")
    # An emptied namespace goes too.
    out = meta_filter.apply(_update(meta={"claudeCode": {}, "jetbrains": {"air": {}}}, x=1))
    assert out == _update(x=1)


def test_a_tool_call_loses_only_its_empty_namespaces() -> None:
    meta_filter = ChangedMetaFilter()
    out = meta_filter.apply(_call(claudeCode={}, jetbrains={"air": {}}))
    assert out is not None and out["_meta"] == {}  # `_meta` itself stays on an opening
    out = meta_filter.apply(_call(jetbrains={"air": {}, "other": 1}, terminal_info={}))
    assert out is not None and out["_meta"] == {"jetbrains": {"other": 1}, "terminal_info": {}}


@pytest.mark.parametrize("namespace", [["x"], "text", 7, None])
def test_a_namespace_that_is_no_object_is_not_compared(namespace: object) -> None:
    meta_filter = _opened(_call(claudeCode=namespace, jetbrains={"air": namespace}))
    again = _update(meta={"claudeCode": namespace, "jetbrains": {"air": namespace}})
    assert meta_filter.apply(again) is again


@pytest.mark.parametrize(("meta", "left"), [(["x"], True), ("text", True), (7, False)])
def test_a_meta_that_is_no_object_is_kept_while_it_has_keys(meta: object, left: bool) -> None:
    # The reference keeps a `_meta` with keys (an array's, a string's), and deletes one
    # without (a number's).
    meta_filter = _opened(_call(claudeCode={"toolName": "Bash"}))
    update = _update(meta=meta, status="completed")
    assert meta_filter.apply(update) == (update if left else _update(status="completed"))


def test_the_input_is_never_changed() -> None:
    opening = _call(claudeCode={}, jetbrains={"air": {}, "o": 1})
    update = _update(
        meta={
            "claudeCode": {"toolName": "Bash", "new": 1},
            "jetbrains": {"air": {"commandTitle": "t"}},
            "terminal_info": {"terminal_id": "t1"},
        }
    )
    before = copy.deepcopy((opening, update))
    meta_filter = _opened(
        _call(
            claudeCode={"toolName": "Bash"},
            jetbrains={"air": {"commandTitle": "t"}},
            terminal_info={"terminal_id": "t1"},
        )
    )
    assert meta_filter.apply(update) == _update(meta={"claudeCode": {"new": 1}})
    _opened(opening)
    assert (opening, update) == before


def test_an_id_no_dict_can_key_passes_whole_and_is_not_held() -> None:
    meta_filter = ChangedMetaFilter()
    odd: Wire = {"sessionUpdate": "tool_call_update", "toolCallId": ["x"], "_meta": {"a": 1}}
    assert meta_filter.apply(odd) is odd
    assert meta_filter.apply(odd) is odd
    assert len(meta_filter) == 0


def test_at_most_the_limit_of_calls_is_held_the_least_recent_forgotten() -> None:
    meta = {"claudeCode": {"toolName": "Bash"}}
    meta_filter = ChangedMetaFilter()
    for n in range(TOOL_CALL_LIMIT):
        meta_filter.apply(_call(f"t{n}", **meta))
    # A report makes its call the most recent: t0 outlives t1.
    assert meta_filter.apply(_update("t0", status="in_progress")) is not None
    meta_filter.apply(_call("one-more", **meta))
    assert len(meta_filter) == TOOL_CALL_LIMIT
    assert meta_filter.apply(_update("t0", meta=dict(meta))) is None  # still held
    forgotten = _update("t1", meta=dict(meta))
    assert meta_filter.apply(forgotten) is forgotten  # never seen, as far as it knows
    assert len(meta_filter) == TOOL_CALL_LIMIT  # and t2 made room for it
    kept = _update("t2", meta=dict(meta))
    assert meta_filter.apply(kept) is kept


def test_every_air_client_and_no_other_has_its_meta_filtered() -> None:
    assert air_client({"jetbrains": {"air": {}}}).filters_meta  # no capability needed
    assert air_client({"jetbrains": {"air": {"version": 1, "capabilities": []}}}).filters_meta
    assert not air_client(None).filters_meta
    assert not air_client({"jetbrains": {"air": ["not", "an", "object"]}}).filters_meta


_PASSED: list[Wire] = [
    {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}},
    {"sessionUpdate": "agent_thought_chunk", "_meta": {"claudeCode": {"toolName": "x"}}},
    {"sessionUpdate": "plan", "entries": []},
    {"sessionUpdate": "usage_update", "used": 1, "size": 2},
    {"toolCallId": "t1", "_meta": {"claudeCode": {"toolName": "Bash"}}},  # no kind
]


def test_it_reads_a_tool_calls_reports_only() -> None:
    assert ChangedMetaFilter.FILTERED_UPDATES == ("tool_call", "tool_call_update")
    meta_filter = ChangedMetaFilter()
    for update in (_call(), _update(meta={"claudeCode": {"toolName": "Bash"}})):
        assert update["sessionUpdate"] in meta_filter.FILTERED_UPDATES
        meta_filter.apply(update)
    assert len(meta_filter) == 1  # held: it was read


@pytest.mark.parametrize("update", _PASSED)
def test_what_it_does_not_read_it_passes_as_it_is_so_a_sender_may_skip_it(update: Wire) -> None:
    # The one rule a sender leans on to send a streamed chunk past the filter: what is not
    # among `FILTERED_UPDATES`, `apply` hands back untouched and holds nothing of, however
    # often it comes.
    meta_filter = _opened(_call(claudeCode={"toolName": "x"}))
    assert update.get("sessionUpdate") not in ChangedMetaFilter.FILTERED_UPDATES
    for _ in range(2):
        assert meta_filter.apply(update) is update
    assert len(meta_filter) == 1
