"""JetBrains AIR's `agentFileChangeReport`: which requests count, what a settled turn
reports, and the paths a report may show (docs/reference-adapter.md#file-change-reports)."""

from __future__ import annotations

import json
from typing import Any

from fsm import FileChangeReports, ReportPlan

ROOTS = ["/repo", "/extra"]


def _request(request_id: object = "r-1", **extra: Any) -> dict[str, Any]:
    body = {"version": 1, "requestId": request_id, **extra}
    return {"jetbrains": {"air": {"agentFileChangeReportRequest": body}}}


def _payload(update: dict[str, Any]) -> dict[str, Any]:
    assert update["sessionUpdate"] == "session_info_update" and set(update) == {
        "sessionUpdate",
        "_meta",
    }
    air = update["_meta"]["jetbrains"]["air"]
    assert air["version"] == 1
    report: dict[str, Any] = air["agentFileChangeReport"]
    return report


def test_only_exact_well_formed_new_requests_are_taken() -> None:
    reports = FileChangeReports(enabled=True)
    assert reports.request("t1", _request("a.b:c-1_2"))
    assert not reports.request("t2", _request("a.b:c-1_2"))  # used before in the session
    for bad in (
        _request("bad id"),
        _request(""),
        _request("x" * 129),
        _request(7),
        _request("ok", extra=1),
        {"jetbrains": {"air": {"agentFileChangeReportRequest": {"requestId": "ok"}}}},
        {
            "jetbrains": {
                "air": {"agentFileChangeReportRequest": {"version": True, "requestId": "ok"}}
            }
        },
        {"jetbrains": {"air": {"agentFileChangeReportRequest": ["ok"]}}},
        None,
    ):
        assert not reports.request("t3", bad), bad
    assert reports.settle("t3", stop_reason="end_turn", failed=False) is None
    assert not FileChangeReports(enabled=False).request("t1", _request())


def test_a_settled_turn_is_previewed_unless_cancelled_or_failed() -> None:
    reports = FileChangeReports(enabled=True)
    for turn, request_id in (("t1", "a"), ("t2", "b"), ("t3", "c"), ("t4", "d")):
        reports.request(turn, _request(request_id))
    assert reports.settle("t1", stop_reason="end_turn", failed=False) == ReportPlan("a", "t1", None)
    assert reports.settle("t2", stop_reason="max_tokens", failed=False) == ReportPlan(
        "b", "t2", None
    )
    assert reports.settle("t3", stop_reason="cancelled", failed=False) == ReportPlan(
        "c", "t3", "cancelled"
    )
    assert reports.settle("t4", stop_reason="end_turn", failed=True) == ReportPlan(
        "d", "t4", "providerError"
    )
    assert reports.settle("t1", stop_reason="end_turn", failed=False) is None  # once


def test_unavailable_reports_and_the_subagents_edits() -> None:
    plan = ReportPlan("a", "t1", "cancelled")
    assert _payload(FileChangeReports.report(plan, changed=None, failure=None, roots=ROOTS)) == {
        "version": 1,
        "requestId": "a",
        "status": "unavailable",
        "reason": "cancelled",
    }
    timed_out = ReportPlan("a", "t1", None)
    payload = _payload(
        FileChangeReports.report(timed_out, changed=None, failure="timeout", roots=ROOTS)
    )
    assert payload["reason"] == "timeout"
    # A subagent's edits still make a report when the preview failed.
    reports = FileChangeReports(enabled=True)
    reports.request("t1", _request("a"))
    reports.tool_use("e1", "Edit", {"file_path": "/repo/sub.py"}, "toolu_agent")
    reports.tool_use("e2", "Write", {"file_path": "/repo/failed.py"}, "toolu_agent")
    reports.tool_use("e3", "Edit", {"file_path": "/repo/main.py"}, None)  # the checkpoint's
    reports.tool_use("e4", "NotebookEdit", {"notebook_path": "/repo/n.ipynb"}, "toolu_agent")
    reports.tool_result("e1", is_error=False)
    reports.tool_result("e2", is_error=True)
    reports.tool_result("e3", is_error=False)
    reports.tool_result("e4", is_error=False)
    plan2 = reports.settle("t1", stop_reason="end_turn", failed=False)
    assert plan2 == ReportPlan("a", "t1", None, ("/repo/sub.py", "/repo/n.ipynb"))
    payload = _payload(
        FileChangeReports.report(plan2, changed=None, failure="invalidOutput", roots=ROOTS)
    )
    assert payload == {
        "version": 1,
        "requestId": "a",
        "status": "reported",
        "paths": ["/repo/sub.py", "/repo/n.ipynb"],
        "declaredComplete": False,
        "truncated": False,
    }


def test_paths_outside_the_folders_or_unusable_are_dropped_as_truncated() -> None:
    plan = ReportPlan("a", "t1", None)
    changed: list[object] = [
        "/repo/a.py",
        "/repo/a.py",  # a duplicate: dropped quietly
        "/extra/b.py",
        "/elsewhere/c.py",
        "/repo",  # a folder itself
        "/repo/bad\x07name",
        "/repo/" + "x" * 4100,
        "  ",
        7,
        "relative.py",
    ]
    payload = _payload(FileChangeReports.report(plan, changed=changed, failure=None, roots=ROOTS))
    assert payload["paths"] == ["/repo/a.py", "/extra/b.py"]
    assert payload["truncated"] is True
    clean = _payload(FileChangeReports.report(plan, changed=[], failure=None, roots=ROOTS))
    assert (clean["paths"], clean["truncated"]) == ([], False)


def test_a_report_stays_within_its_size_bounds() -> None:
    plan = ReportPlan("a", "t1", None)
    many = [f"/repo/f{i}.py" for i in range(2000)]
    payload = _payload(FileChangeReports.report(plan, changed=many, failure=None, roots=ROOTS))
    assert len(payload["paths"]) == 1024 and payload["truncated"] is True
    long = [f"/repo/{i:04d}" + "y" * 4000 for i in range(80)]
    payload = _payload(FileChangeReports.report(plan, changed=long, failure=None, roots=ROOTS))
    assert len(json.dumps(payload).encode()) <= 256 * 1024
    assert payload["truncated"] is True and payload["paths"]
