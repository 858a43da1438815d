"""The real Claude Code CLI's file checkpoint, previewed for JetBrains AIR's
`agentFileChangeReport`.

For a client that declared the capability the adapter starts Claude Code with file
checkpointing; a prompt that asks for a report gets one before its answer, from the bundled
CLI's (2.1.332) `rewind_files` control request with `dry_run` (the Python SDK has no wrapper
for the dry run), which names the files the turn's file tools changed and rewinds nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble, ToolUse
from tests.real_claude.support import real_adapter
from tests.support.harness import TIMEOUT

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio]

REPORTING = {
    "jetbrains": {
        "air": {"version": 1, "capabilities": ["sessionFailure", "agentFileChangeReport"]}
    }
}


async def test_the_checkpoint_names_the_file_the_turn_edited_before_the_answer(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    project = tmp_path / "project-edit"
    project.mkdir()
    notes = project / "notes.txt"
    notes.write_text("alpha\ngamma\n", encoding="utf-8")
    double.script(
        ToolUse("Read", {"file_path": str(notes)}),
        ToolUse("Edit", {"file_path": str(notes), "old_string": "gamma", "new_string": "delta"}),
        Answer("Edited gamma to delta."),
    )
    async with real_adapter(tmp_path, double, capable=True, client_meta=REPORTING) as adapter:
        session = await adapter.new_session(cwd=project)
        meta = {
            "jetbrains": {
                "air": {"agentFileChangeReportRequest": {"version": 1, "requestId": "r-1"}}
            }
        }
        params = {
            "sessionId": session,
            "prompt": [{"type": "text", "text": "fix notes.txt"}],
            "_meta": meta,
        }
        request = adapter.conn._conn.send_request("session/prompt", params)
        answer = await asyncio.wait_for(request, TIMEOUT)
        frames = adapter.incoming()
    assert answer["stopReason"] == "end_turn"
    assert notes.read_text(encoding="utf-8") == "alpha\ndelta\n"  # the preview rewound nothing
    reports: list[tuple[int, Any]] = [
        (i, f["params"]["update"]["_meta"]["jetbrains"]["air"]["agentFileChangeReport"])
        for i, f in enumerate(frames)
        if f.get("method") == "session/update"
        and "agentFileChangeReport"
        in f["params"]["update"].get("_meta", {}).get("jetbrains", {}).get("air", {})
    ]
    [(at, report)] = reports
    assert report == {
        "version": 1,
        "requestId": "r-1",
        "status": "reported",
        "paths": [str(notes.resolve())],
        "declaredComplete": False,
        "truncated": False,
    }
    answered = next(i for i, f in enumerate(frames) if f.get("result", {}).get("stopReason"))
    assert at < answered
