"""Extra folders with the real Claude Code CLI: a session's
`additionalDirectories` reach the CLI as `--add-dir`, so a Read the model asks for in such a
folder runs without a permission question and returns the file; the same Read from a session
without the folder makes Claude Code ask first (`session/request_permission`).
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble, ToolUse, tool_result_text
from tests.real_claude.support import Turn, session_frames
from tests.support.harness import TIMEOUT, Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

SECRET = "kept in the extra folder, line 1\n"


async def _read_turn(
    adapter: Adapter, double: MessagesApiDouble, target: Path, **extra: Any
) -> tuple[Turn, str, int]:
    """A session in a fresh folder (with `extra` on `session/new`, sent raw: acp 0.12.1 has no
    `additionalDirectories`), whose model reads `target`: the turn, what the Read returned to
    the model, and how many permission questions the client was asked."""
    project = adapter.workdir.parent / f"main-{uuid.uuid4().hex[:8]}"
    project.mkdir()
    params = {"cwd": str(project), "mcpServers": [], **extra}
    opened = await asyncio.wait_for(adapter.conn._conn.send_request("session/new", params), TIMEOUT)
    session_id = str(opened["sessionId"])
    double.script(ToolUse("Read", {"file_path": str(target)}), Answer("Read it."))
    asked_before = len(adapter.client.permission_requests)
    start = len(adapter.frames)
    answer = await adapter.prompt(session_id, "Read the notes in the other folder.")
    turn = Turn(session_id, answer, session_frames(adapter, start, session_id))
    assert turn.response.stop_reason == "end_turn"
    [result] = double.messages()[-1].tool_results()
    asked = len(adapter.client.permission_requests) - asked_before
    return turn, tool_result_text(result), asked


async def test_an_extra_folder_is_readable_without_a_question(
    adapter: Adapter, double: MessagesApiDouble
) -> None:
    extra = adapter.workdir.parent / f"extra-{uuid.uuid4().hex[:8]}"
    extra.mkdir()
    (extra / "notes.txt").write_text(SECRET, encoding="utf-8")
    turn, returned, asked = await _read_turn(
        adapter, double, extra / "notes.txt", additionalDirectories=[str(extra)]
    )
    assert "kept in the extra folder" in returned and asked == 0
    [(_, card)] = turn.tool_calls().items()
    assert card[-1]["status"] == "completed"
    # The same file from a session without the folder: outside its folders, Claude Code asks.
    _, _, asked = await _read_turn(adapter, double, extra / "notes.txt")
    assert asked == 1
