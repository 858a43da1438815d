"""JetBrains AIR negotiation (`fsm.air`) and the archive title rules (`fsm.archive_titles`)."""

from __future__ import annotations

from typing import Any

import pytest

from fsm.air import SESSION_INDEX, AirClient, air_client
from fsm.archive_titles import (
    archive_to,
    default_title,
    is_archived,
    stored_title,
    title_records,
    visible_title,
)

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
    # Declared but not implemented here: not negotiated, so delete still means "done".
    declared = air_client(_air({"version": 1, "capabilities": [SESSION_INDEX]}))
    assert declared.session_index == declared.negotiated(SESSION_INDEX)
    assert declared.delete_archives is not declared.session_index
    assert declared.list_hides_archived == declared.delete_archives


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
