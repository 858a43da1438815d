"""Sign-in that leads somewhere, in process (`agent_in_process`, the scripted Claude reporting a
failed sign-in): Claude Code's terminal-only "/login" never reaches a record's title or a plain
client's answer, which says what works from an editor. What runs Claude Code's own command line
(`authenticate`, a terminal login) is end to end: tests/e2e/test_sign_in.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.harness import assert_signed_out_answer, record_in
from tests.support.shell_harness import agent_in_process


@pytest.mark.asyncio
async def test_the_sign_in_record_keeps_what_happened_and_drops_the_terminal_step(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "synthetic_login") as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    assert isinstance(answer, PromptResponse)
    record = record_in(answer.field_meta)
    assert record is not None
    assert (record["category"], record["actions"]) == ("access", ["login"])
    # Claude Code said "Please run /login · API key is invalid": what happened stays.
    assert record["title"] == "API key is invalid"
    assert "/login" not in json.dumps(record)


@pytest.mark.asyncio
async def test_a_plain_client_is_told_what_works_from_an_editor(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "synthetic_login", capable=False) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    assert_signed_out_answer(answer)
