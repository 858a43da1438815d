"""A session to reopen: switched to a mode and a model, then prompted once so its transcript says
so. Shared by the in-process and end-to-end tests of a reopened session's mode and model."""

from __future__ import annotations

import asyncio

from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, Adapter


async def switched_and_prompted(adapter: Adapter, *, mode: str, model: str) -> str:
    """A new session in `adapter` switched to `mode` and `model`, then prompted once."""
    session = await adapter.new_session()
    conn = adapter.conn
    await asyncio.wait_for(conn.set_session_mode(session_id=session, mode_id=mode), TIMEOUT)
    await asyncio.wait_for(
        conn.set_config_option(config_id="model", session_id=session, value=model), TIMEOUT
    )
    answer = await adapter.prompt(session, "remember this")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    return session
