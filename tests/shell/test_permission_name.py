"""The tool-call `name` (ACP 1.22) on `session/request_permission`'s `toolCall`:
`acp` 0.12.1's request model has no field for it, so the adapter sends the request itself;
the frame the client receives is the card's, with `name`, and the answer still works."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.choosing_client import KindClient
from tests.support.shell_harness import agent_in_process


@pytest.mark.asyncio
async def test_the_permission_question_names_the_tool(tmp_path: Path) -> None:
    client = KindClient(kind="allow_once")
    # A plain client: JetBrains AIR gets only its share of the card, without `name`
    # (tests/shell/test_permission_cards.py).
    async with agent_in_process(tmp_path, "permission", client=client, capable=False) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "clean up")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [request] = [m for m in adapter.incoming() if m.get("method") == "session/request_permission"]
    tool_call = request["params"]["toolCall"]
    [card] = [u for u in adapter.updates("tool_call")]
    assert tool_call == {
        "toolCallId": card["toolCallId"],
        "name": "Bash",
        "title": "rm -rf build",
        "kind": "execute",
        "status": "pending",
        "rawInput": {"command": "rm -rf build", "description": "Remove the build directory"},
        "content": [
            {"type": "content", "content": {"type": "text", "text": "Remove the build directory"}}
        ],
    }
    assert card["name"] == tool_call["name"]
    assert [o["optionId"] for o in request["params"]["options"]] == [
        "allow",
        "allow_always",
        "reject",
    ]
    assert "Bash was allowed." in adapter.agent_texts()
