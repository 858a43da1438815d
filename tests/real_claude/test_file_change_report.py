"""The real Claude Code CLI's file checkpoint, previewed for JetBrains AIR's
`agentFileChangeReport`.

For a client that declared the capability the adapter starts Claude Code with file
checkpointing; a prompt that asks for a report gets one before its answer, from the bundled
CLI's (2.1.332) `rewind_files` control request with `dry_run` (the Python SDK has no wrapper
for the dry run), which names the files the turn's file tools changed and rewinds nothing.
"""

from __future__ import annotations

import asyncio
import subprocess
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


def _edit_scripted(project: Path, double: MessagesApiDouble) -> tuple[Path, Path]:
    """A project whose `notes.txt` Claude reads, then edits (gamma to delta), then answers."""
    project.mkdir()
    notes = project / "notes.txt"
    notes.write_text("alpha\ngamma\n", encoding="utf-8")
    double.script(
        ToolUse("Read", {"file_path": str(notes)}),
        ToolUse("Edit", {"file_path": str(notes), "old_string": "gamma", "new_string": "delta"}),
        Answer("Edited gamma to delta."),
    )
    return project, notes


async def test_the_checkpoint_names_the_file_the_turn_edited_before_the_answer(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    project, notes = _edit_scripted(tmp_path / "project-edit", double)
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


PATCHING = {
    "jetbrains": {
        "air": {
            "version": 1,
            "capabilities": ["sessionFailure", "agentFileChangeReport", "diffPatch"],
        }
    }
}


CARD_UPDATES = ("tool_call", "tool_call_update")


def _patches(frames: list[dict[str, Any]], method: str) -> list[str]:
    """Every `diffPatch` text in the frames of `method`, in order."""
    found = []
    for frame in frames:
        if frame.get("method") != method:
            continue
        params = frame["params"]
        call = params["toolCall"] if method == "session/request_permission" else params["update"]
        if method == "session/update" and call.get("sessionUpdate") not in CARD_UPDATES:
            continue
        for block in call.get("content") or []:
            patch = block.get("_meta", {}).get("jetbrains", {}).get("air", {}).get("diffPatch")
            if block.get("type") == "diff" and patch is not None:
                assert patch["version"] == 1 and patch["format"] == "git_patch"
                found.append(patch["text"])
    return found


def _applied(patch: str, before: str, scratch: Path) -> str:
    """What `git apply` makes of `before` with `patch`: the patch names the file by its absolute
    path without the leading `/`, so it applies from `/` to a copy moved there by `--directory`."""
    copy = scratch / "copy"
    target = copy / patch.split("\n", 1)[0].split(" b/", 1)[1]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(before, encoding="utf-8")
    subprocess.run(
        ["git", "apply", "--unsafe-paths", f"--directory={copy.relative_to('/')}"],
        input=patch.encode(),
        cwd="/",
        check=True,
        capture_output=True,
    )
    return target.read_text(encoding="utf-8")


async def test_a_real_edit_carries_the_exact_patch_before_approval_and_after_the_write(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    project, notes = _edit_scripted(tmp_path / "project-patch", double)
    async with real_adapter(tmp_path, double, capable=True, client_meta=PATCHING) as adapter:
        session = await adapter.new_session(cwd=project)
        answer = await adapter.prompt(session, "fix notes.txt")
        frames = adapter.incoming()
    assert getattr(answer, "stop_reason", None) == "end_turn"
    assert notes.read_text(encoding="utf-8") == "alpha\ndelta\n"
    asked = _patches(frames, "session/request_permission")
    written = _patches(frames, "session/update")
    assert asked and written
    # Each patch is the change Claude made, exactly: applied to the file as it was, it gives the
    # file as it is now.
    for at, patch in enumerate([asked[0], written[-1]]):
        assert _applied(patch, "alpha\ngamma\n", tmp_path / f"apply-{at}") == "alpha\ndelta\n"
