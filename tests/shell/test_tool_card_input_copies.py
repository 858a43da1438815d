"""A card's content for a client that renders `rawInput` itself (JetBrains AIR's
`rawInputRendering`): what only repeats the input goes, what shows a change stays."""

from __future__ import annotations

from typing import Any

import pytest

from adapter.view.tool_cards import card_for

COPIES: list[tuple[str, dict[str, Any]]] = [
    ("Bash", {"command": "ls", "description": "List files"}),
    ("PowerShell", {"command": "dir", "description": "List files"}),
    ("WebFetch", {"url": "https://example.com", "prompt": "Summarise"}),
    ("Agent", {"description": "Explore", "prompt": "Find the parser"}),
    ("Task", {"description": "Explore", "prompt": "Find the parser"}),
    ("ExitPlanMode", {"plan": "1. Do it"}),
    ("AskUserQuestion", {"questions": [{"question": "Which one?"}]}),
    ("NotebookEdit", {"notebook_path": "/r/n.ipynb", "new_source": "x = 1"}),
    ("SandboxNetworkAccess", {"host": "example.com"}),
    ("ReportFindings", {"findings": [{"file": "a.py", "line": 3, "summary": "Off by one"}]}),
]


@pytest.mark.parametrize(("name", "tool_input"), COPIES, ids=[n for n, _ in COPIES])
def test_input_copies_go_only_to_a_client_that_wants_them(
    name: str, tool_input: dict[str, Any]
) -> None:
    shown = card_for("t1", name, tool_input, "/r")
    left_out = card_for("t1", name, tool_input, "/r", input_copies=False)
    assert shown["content"]
    assert "content" not in left_out
    assert left_out["rawInput"] == tool_input and left_out["title"] == shown["title"]


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("Edit", {"file_path": "/r/a.py", "old_string": "a", "new_string": "b"}),
        ("Write", {"file_path": "/r/a.py", "content": "b"}),
        ("MultiEdit", {"file_path": "/r/a.py", "edits": [{"old_string": "a", "new_string": "b"}]}),
    ],
)
def test_a_change_is_no_copy_of_the_input(name: str, tool_input: dict[str, Any]) -> None:
    card = card_for("t1", name, tool_input, "/r", input_copies=False)
    assert [c["type"] for c in card["content"]] == ["diff"] * len(card["content"])
    assert card["content"]


@pytest.mark.parametrize(
    ("findings", "title", "shown"),
    [
        (
            [
                {"file": "src/a.py", "line": 12, "summary": "Off by one"},
                {"file": "README.md", "summary": "Stale link"},
            ],
            "Report 2 findings",
            ["**src/a.py:12** \u2014 Off by one", "**README.md** \u2014 Stale link"],
        ),
        ([{"file": "a.py", "summary": "x"}], "Report 1 finding", ["**a.py** \u2014 x"]),
        ([], "Report findings: none found", None),
        ("not a list", "Report findings: none found", None),
        ([None, 3], "Report findings: none found", None),
    ],
)
def test_report_findings_as_the_reference_draws_it(
    findings: Any, title: str, shown: list[str] | None
) -> None:
    """docs/reference-adapter.md#report-findings: a `think` card whose title counts the
    findings, each finding a line the user reads."""
    card = card_for("t1", "ReportFindings", {"findings": findings}, "/r")
    assert (card["title"], card["kind"]) == (title, "think")
    texts = [c["content"]["text"] for c in card.get("content", [])] or None
    assert texts == shown
