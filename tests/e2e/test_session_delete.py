"""`session/delete`, which acp 0.12.1 does not route: the session is torn down
if it runs (its prompt in flight answered `cancelled`), its transcript and marker removed, and it
is gone from `session/list`. (An id nobody knows gets -32002, a malformed one -32602:
`tests/shell/test_agent_answers.py`, in process.)

These are clients that mean removal by it: not JetBrains AIR, whose delete archives
(tests/e2e/test_air_session_delete.py).

Only what needs the real processes stays here: deleting a running session. The rest is played in
process: tests/shell/test_session_delete.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, AdapterPool, until
from tests.support.listing import listed
from tests.support.raw_agent import processes_mentioning

# A client with a failure dialect that is not JetBrains AIR: its delete removes.
AGENT_ERROR: dict[str, Any] = {"agentError": {"version": 1}}


@pytest.mark.asyncio(loop_scope="module")
async def test_deleting_a_running_session_cancels_its_prompt_and_stops_claude(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(tmp_path, "hang", client_meta=AGENT_ERROR) as adapter:
        session = await adapter.new_session()
        prompt = asyncio.create_task(adapter.prompt(session, "take your time"))
        await until(lambda: adapter.agent_texts(), "Claude's first text")
        assert await adapter.delete_session(session) == {}
        answer = await asyncio.wait_for(prompt, TIMEOUT)
        await until(lambda: not processes_mentioning(session), "the session's Claude to exit")
        after = await listed(adapter)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    assert adapter.answers() == {k: 1 for k in adapter.answers()}  # every prompt answered once
    assert session not in after and adapter.transcripts_of(session) == []
