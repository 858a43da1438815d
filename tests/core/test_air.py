"""JetBrains AIR negotiation (`fsm.air.client`) and the archive title rules
(`fsm.air.archive_titles`)."""

from __future__ import annotations

from typing import Any

import pytest

from fsm.air.archive_titles import (
    archive_to,
    default_title,
    is_archived,
    stored_title,
    title_records,
    visible_title,
)
from fsm.air.client import SESSION_INDEX, AirClient, air_client

SID = "0b6c5e2a-0000-4000-8000-000000000001"


def _air(air: Any) -> dict[str, Any]:
    return {"jetbrains": {"air": air}}


@pytest.mark.parametrize(
    ("meta", "is_air", "declared"),
    [
        (None, False, set()),
        ({}, False, set()),
        ({"jetbrains": []}, False, set()),
        (_air([]), False, set()),  # an array is not the AIR object
        (_air({}), True, set()),
        (_air({"version": 1, "capabilities": ["sessionFailure", 3]}), True, {"sessionFailure"}),
        (_air({"version": 1.0, "capabilities": ["diffPatch"]}), True, {"diffPatch"}),
        (_air({"version": True, "capabilities": ["diffPatch"]}), True, set()),
        (_air({"version": 0, "capabilities": ["diffPatch"]}), True, set()),
        (_air({"version": 1, "capabilities": "diffPatch"}), True, set()),
    ],
)
def test_who_is_air_and_what_it_declared(meta: Any, is_air: bool, declared: set[str]) -> None:
    client = air_client(meta)
    assert (client.air, set(client.declared)) == (is_air, declared)


def test_delete_archives_for_every_air_client_without_a_negotiated_index() -> None:
    assert not AirClient().delete_archives  # a plain client removes
    assert AirClient(air=True).delete_archives
    # The session index negotiated: delete removes (the client archives with its own method).
    declared = air_client(_air({"version": 1, "capabilities": [SESSION_INDEX]}))
    assert declared.session_index and declared.negotiated(SESSION_INDEX)
    assert not declared.delete_archives and not declared.list_hides_archived
    # Declared by a client that is not AIR, or malformed: nothing negotiated.
    assert not air_client({"air": {"version": 1, "capabilities": [SESSION_INDEX]}}).session_index
    assert not air_client(_air({"version": "1", "capabilities": [SESSION_INDEX]})).session_index


@pytest.mark.parametrize(
    ("name", "archived"),
    [
        (None, False),
        ("[archived] Fix it", True),
        ("  [archived]\tFix it", True),
        ("[archived]Fix it", False),  # the marker needs white space after it
        ("[archived]   ", False),  # and a title character after that
        ("Fix [archived] it", False),
    ],
)
def test_is_archived(name: str | None, archived: bool) -> None:
    assert is_archived(name) is archived


def test_stored_titles() -> None:
    assert stored_title("  Fix\n the   test ", True, SID) == "[archived] Fix the test"
    assert stored_title("[archived] [archived] Fix", False, SID) == "Fix"
    assert stored_title("[archived] Fix", True, SID) == "[archived] Fix"
    assert stored_title("   ", True, SID) == f"[archived] {default_title(SID)}"
    assert default_title(SID) == "Session 0b6c5e2a"
    long = stored_title("x" * 500, True, SID)
    assert len(long) == 200 and long.startswith("[archived] x")
    assert visible_title("[archived] Fix") == "Fix"


def test_archive_to_is_none_in_the_same_state() -> None:
    assert archive_to(True, "[archived] Fix", SID) is None
    assert archive_to(False, "Fix", SID) is None
    assert archive_to(True, "Fix", SID) == "[archived] Fix"
    assert archive_to(False, "[archived] Fix", SID) == "Fix"
    assert archive_to(True, None, SID) == f"[archived] {default_title(SID)}"


def test_title_records_are_compact_json_lines() -> None:
    assert title_records(SID, "[archived] Fé") == (
        f'{{"type":"custom-title","customTitle":"[archived] Fé","sessionId":"{SID}"}}\n'
        f'{{"type":"agent-name","agentName":"[archived] Fé","sessionId":"{SID}"}}\n'
    )


def test_with_air_meta_keeps_other_namespaces_and_keys() -> None:
    from fsm.air.meta import air_info_update, with_air_meta

    meta = {"claudeCode": {"x": 1}, "jetbrains": {"air": {"version": 7, "other": True}}}
    assert with_air_meta(meta, "planFile", "p") == {
        "claudeCode": {"x": 1},
        "jetbrains": {"air": {"version": 1, "other": True, "planFile": "p"}},
    }
    assert meta["jetbrains"] == {"air": {"version": 7, "other": True}}  # not changed in place
    assert air_info_update("loadReplayEnd", True) == {
        "sessionUpdate": "session_info_update",
        "_meta": {"jetbrains": {"air": {"version": 1, "loadReplayEnd": True}}},
    }


@pytest.mark.parametrize(
    ("tool", "title", "reason", "expected"),
    [
        ("ExitPlanMode", "anything", None, {"title": "Ready to code?"}),
        ("Bash", "a  \tb", None, {"title": "a  \tb"}),  # a command verbatim
        (
            "Write",
            " Write\x01  a.md ",
            "x\ty\x7f",
            {"title": "Write a.md", "description": "Reason: x\ty"},
        ),
        ("Write", "x" * 4001, "r" * 4001, {"title": "Use tool?"}),
        ("Write", "\x02", "  ", {"title": "Use tool?"}),
    ],
)
def test_permission_heading(
    tool: str, title: str, reason: str | None, expected: dict[str, Any]
) -> None:
    from fsm.air.meta import permission_heading

    meta = permission_heading(
        tool_name=tool, title=title, decision_reason=reason, default_to_no=False
    )
    assert meta == {"jetbrains": {"air": {"version": 1, "permission": {"version": 1, **expected}}}}
    hinted = permission_heading(
        tool_name=tool, title=title, decision_reason=reason, default_to_no=True
    )
    assert hinted["jetbrains"]["air"]["permission"]["defaultToNo"] is True


def test_declaration_and_replay_end_follow_what_was_declared() -> None:
    from fsm.air.client import IMPLEMENTED

    plain = air_client(None)
    assert plain.declaration() is None and plain.after_replay() == []
    bare = air_client(_air({}))
    # The session index's names only for a client that declared it.
    without_index = [name for name in IMPLEMENTED if name != SESSION_INDEX]
    goal = {"version": 1, "controlMethod": "_session/goal", "actions": ["set", "clear"]}
    assert bare.declaration() == {"version": 1, "capabilities": without_index, "goal": goal}
    from fsm.air.client import ADVERTISED

    assert list(ADVERTISED) == without_index
    assert IMPLEMENTED[0] == "sessionFailure"
    assert bare.after_replay() == []
    declared = air_client(_air({"version": 1, "capabilities": ["loadReplayEnd"]}))
    assert declared.after_replay() == [
        {
            "sessionUpdate": "session_info_update",
            "_meta": {"jetbrains": {"air": {"version": 1, "loadReplayEnd": True}}},
        }
    ]
    assert "loadReplayEnd" not in IMPLEMENTED  # declared by the client, never advertised


def test_background_subagents_is_negotiated_when_declared() -> None:
    from fsm.air.client import IMPLEMENTED

    assert "backgroundSubagents" in IMPLEMENTED
    declared = air_client(_air({"version": 1, "capabilities": ["backgroundSubagents"]}))
    assert declared.background_subagents
    assert not air_client(_air({"version": 1, "capabilities": []})).background_subagents
    # A plain client holding the same list outside `jetbrains.air` negotiates nothing.
    assert not air_client({"capabilities": ["backgroundSubagents"]}).background_subagents


def test_raw_input_rendering_is_honoured_when_declared_and_never_advertised() -> None:
    declared = air_client(_air({"version": 1, "capabilities": ["rawInputRendering"]}))
    assert declared.raw_input_rendering
    declaration = declared.declaration()
    assert declaration is not None and "rawInputRendering" not in declaration["capabilities"]
    assert not air_client(_air({"version": 1, "capabilities": []})).raw_input_rendering
    assert not air_client({"air": {"version": 1, "capabilities": ["rawInputRendering"]}}).air
    assert not air_client(None).raw_input_rendering


def test_an_approved_plan_is_one_per_approval_for_air_and_one_per_session_otherwise() -> None:
    air = air_client(_air({}))
    assert air.approved_plan_id("toolu_1") == "plan-mode:toolu_1"
    assert air.approved_plan_id("") == "plan-mode"  # no call to join it to
    assert air_client(None).approved_plan_id("toolu_1") == "plan-mode"
    assert AirClient().approved_plan_id("toolu_1") == "plan-mode"


def test_only_air_fixes_the_question_cards_title() -> None:
    assert air_client(_air({})).fixed_question_title
    assert not air_client(None).fixed_question_title
