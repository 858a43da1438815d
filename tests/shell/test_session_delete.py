"""`session/delete`, which acp 0.12.1 does not route: the session is torn down
if it runs (its prompt in flight answered `cancelled`), its transcript and marker removed, and it
is gone from `session/list`. (An id nobody knows gets -32002, a malformed one -32602:
`tests/shell/test_agent_answers.py`, in process.)

These are clients that mean removal by it: not JetBrains AIR, whose delete archives
(tests/e2e/test_air_session_delete.py).

Played in process (`agent_in_process`). End to end, in tests/e2e/test_session_delete.py: deleting a
running session, whose Claude is stopped (a process that hangs).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, Adapter, until
from tests.support.listing import listed
from tests.support.raw_agent import processes_mentioning
from tests.support.shell_harness import agent_in_process

# A client with a failure dialect that is not JetBrains AIR: its delete removes.
AGENT_ERROR: dict[str, Any] = {"agentError": {"version": 1}}


async def refused(adapter: Adapter, session_id: Any) -> acp.RequestError:
    with pytest.raises(acp.RequestError) as caught:
        await adapter.delete_session(session_id)
    return caught.value


@pytest.mark.asyncio
async def test_a_prompted_session_is_gone_from_disk_and_list(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", client_meta=AGENT_ERROR) as adapter:
        kept, doomed = await adapter.new_session(), await adapter.new_session()
        for session in (kept, doomed):
            assert isinstance(await adapter.prompt(session, "hello"), PromptResponse)
        assert {kept, doomed} <= await listed(adapter)
        assert adapter.transcripts_of(doomed)
        assert await adapter.delete_session(doomed) == {}
        after = await listed(adapter)
        gone = await adapter.prompt(doomed, "still there?")
        again = await refused(adapter, doomed)
        load = adapter.conn.load_session(
            cwd=str(adapter.workdir), session_id=doomed, mcp_servers=[]
        )
        with pytest.raises(acp.RequestError) as not_loaded:
            await asyncio.wait_for(load, TIMEOUT)
        still = await adapter.prompt(kept, "and you?")
    assert kept in after and doomed not in after
    assert adapter.transcripts_of(doomed) == []
    assert not (adapter.config_dir / "claude-acp" / "sessions" / f"{doomed}.json").exists()
    assert isinstance(gone, acp.RequestError) and gone.code == -32602  # no such session open
    assert again.code == -32002  # deleted: nobody knows it any more
    assert not_loaded.value.code == -32002
    assert isinstance(still, PromptResponse) and still.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_a_never_prompted_session_loses_its_marker(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", client_meta=AGENT_ERROR) as adapter:
        session = await adapter.new_session()
        marker = adapter.config_dir / "claude-acp" / "sessions" / f"{session}.json"
        assert marker.exists()
        assert await adapter.delete_session(session) == {}
        again = await refused(adapter, session)
    assert not marker.exists()
    assert again.code == -32002


@pytest.mark.asyncio
async def test_a_delete_racing_a_prompt_answers_both_and_leaves_nothing(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", client_meta=AGENT_ERROR) as adapter:
        session = await adapter.new_session()
        # Sent back to back: the delete lands while the prompt's Claude is still starting.
        prompt = asyncio.create_task(adapter.prompt(session, "hello"))
        deleting = asyncio.create_task(adapter.delete_session(session))
        answer = await asyncio.wait_for(prompt, TIMEOUT)
        assert await asyncio.wait_for(deleting, TIMEOUT) == {}
        # A prompt after the delete finds no session.
        late = await adapter.prompt(session, "are you there?")
        await until(lambda: not processes_mentioning(session), "the session's Claude to exit")
        after = await listed(adapter)
        again = await refused(adapter, session)
    # However the race fell, the prompt was answered once, as a finished or cancelled turn.
    assert isinstance(answer, PromptResponse) and answer.stop_reason in ("end_turn", "cancelled")
    # (as a prompt to a closed session: the params name no open session)
    assert isinstance(late, acp.RequestError) and late.code == -32602
    assert "no session" in str(late)
    assert adapter.answers() == {k: 1 for k in adapter.answers()}
    assert session not in after and adapter.transcripts_of(session) == []
    assert again.code == -32002
