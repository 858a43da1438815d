"""A client's slips do not reach Claude (docs/decisions.md#empty-and-placeholder-input), through
the real stdio agent and the scripted Claude (which logs its environment and every user message
it receives): a placeholder credential in the adapter's environment or in a client's
`_meta.claudeCode.options.env` never reaches Claude Code's environment, and is said once on
stderr without its value; a prompt with no content is -32602 and Claude receives nothing.

Played in process (`agent_in_process`). End to end, in tests/e2e/test_client_slips.py: a placeholder
credential in the adapter's own environment (the agent's process environment).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.handshake import LOG_ENV
from tests.support.harness import TIMEOUT
from tests.support.scripted_log import claude_log
from tests.support.shell_harness import agent_in_process

# A made-up token of the real shape: a credential that was set, which must still pass.


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "prompt",
    [[], [{"type": "text", "text": ""}], [{"type": "text", "text": "  \n"}] * 2],
    ids=["no-blocks", "empty-text", "blank-texts"],
)
async def test_an_empty_prompt_is_32602_and_claude_receives_nothing(
    tmp_path: Path, prompt: list[dict[str, Any]]
) -> None:
    env = {LOG_ENV: str(tmp_path / "claude-log.jsonl")}
    async with agent_in_process(tmp_path, "success", env=env) as adapter:
        session = await adapter.new_session()
        with pytest.raises(acp.RequestError) as refused:
            await asyncio.wait_for(
                adapter.conn._conn.send_request(
                    "session/prompt", {"sessionId": session, "prompt": prompt}
                ),
                TIMEOUT,
            )
        received_before = [e for e in claude_log(tmp_path) if e["kind"] == "user"]
        # The session goes on: a real prompt after it is answered, and is all Claude received.
        after = await adapter.prompt(session, "hello")
    assert refused.value.code == -32602
    assert "empty" in json.dumps(refused.value.data)
    assert received_before == []
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert len([e for e in claude_log(tmp_path) if e["kind"] == "user"]) == 1
