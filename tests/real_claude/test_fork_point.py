"""A fork at a message (JetBrains AIR's `_meta.jetbrains.air.fork`) with the real Claude Code
CLI: the adapter finds the message in the transcript the bundled CLI (2.1.332) wrote, forks
it up to that message (`fork_session(up_to_message_id=...)`), and the fork's next prompt goes
to Claude with the conversation up to that message and not after it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.real_claude.api_double import Answer, MessagesApiDouble
from tests.real_claude.support import real_adapter, run_turn
from tests.support.harness import TIMEOUT

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio]


async def test_a_fork_at_the_first_answer_leaves_the_second_turn_out(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    double.script(
        Answer("The first answer."),
        Answer("The second answer."),
        Answer("Answered in the fork."),
    )
    async with real_adapter(tmp_path, double, capable=True) as adapter:
        first = await run_turn(adapter, "the first question")
        second = await run_turn(adapter, "the second question", first.session_id)
        [(message_id, text)] = first.messages()
        assert text == "The first answer." and message_id is not None
        assert message_id.startswith("msg_")  # the API's own message id
        point = {"version": 1, "messageId": message_id}
        params = {
            "sessionId": first.session_id,
            "cwd": str(first.cwd),
            "mcpServers": [],
            "_meta": {"jetbrains": {"air": {"fork": point}}},
        }
        forked = await asyncio.wait_for(
            adapter.conn._conn.send_request("session/fork", params), TIMEOUT
        )
        in_fork = await run_turn(adapter, "the fork's question", forked["sessionId"])
    assert second.response.stop_reason == "end_turn"
    assert in_fork.response.stop_reason == "end_turn"
    asked = json.dumps(double.messages()[-1].body["messages"])
    assert "the first question" in asked and "The first answer." in asked
    assert "the fork's question" in asked
    assert "the second question" not in asked and "The second answer." not in asked
