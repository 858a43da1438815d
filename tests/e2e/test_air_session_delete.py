"""`session/delete` from JetBrains AIR (docs/decisions.md#session-delete-from-air): AIR sends it
to mark a session done, so for an AIR client that has not negotiated the session index the
session is archived, as the reference adapter does: its transcript stays (with the two title
records AIR's own Claude provider writes), it can be loaded again, AIR's plain list leaves it
out, a client that means removal lists it with its archived title, and all of it survives a
restart of the agent. A plain client's delete still removes (tests/e2e/test_session_delete.py).

Only what needs the real processes stays here: an AIR delete of a running session. The rest is
played in process: tests/shell/test_air_session_delete.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.archive_files import archived_records, last_records, transcript
from tests.support.harness import TIMEOUT, AdapterPool, until
from tests.support.raw_agent import processes_mentioning

# AIR with the whole set it may declare; the session index is not negotiated while the agent
# does not advertise it, so this client's delete archives too.
# An AIR client whose declaration is malformed: still AIR, no capability on.


@pytest.mark.asyncio(loop_scope="module")
async def test_an_air_delete_of_a_running_session_cancels_and_keeps_it(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(tmp_path, "hang") as adapter:
        session = await adapter.new_session()
        prompt = asyncio.create_task(adapter.prompt(session, "take your time"))
        await until(lambda: adapter.agent_texts(), "Claude's first text")
        assert await adapter.delete_session(session) == {}
        answer = await asyncio.wait_for(prompt, TIMEOUT)
        await until(lambda: not processes_mentioning(session), "the session's Claude to exit")
        after = await adapter.listed_sessions()
        records = last_records(transcript(adapter, session))
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert adapter.answers() == {k: 1 for k in adapter.answers()}
    assert session not in after
    assert records == archived_records(session, "take your time")
