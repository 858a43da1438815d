"""Turns that would end blank, through the agent, the real SDK and the scripted Claude in
process (`agent_in_process`): a local command's output (`system/local_command_output`), the
result text of a turn that showed nothing else, and Claude Code's `system/informational` lines
(a hook's block reason), as a `notice` for a client that declared `session.notices` and as text
otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.steps import RawFrame, Reply, Result, Scenario
from tests.support.config_requests import initialize_with
from tests.support.harness import Adapter
from tests.support.shell_harness import agent_in_process

NOTICES: dict[str, Any] = {"session": {"notices": {}}}
BLOCKED = "Stop hook blocked: tests are failing"


# The scripted Claude's turns these tests play, besides the shipped scenarios.
def system(subtype: str, **fields: Any) -> RawFrame:
    return RawFrame(
        frame={
            "type": "system",
            "subtype": subtype,
            "session_id": "x",
            "uuid": "u-" + subtype,
            **fields,
        }
    )


MINE = [
    Scenario(
        name="local_output",
        description="",
        turns=(
            (
                system("local_command_output", content="Context: 12k of 200k tokens"),
                Result(result="Context: 12k of 200k tokens"),
            ),
        ),
    ),
    Scenario(name="result_only", description="", turns=((Result(result="The cached answer."),),)),
    Scenario(name="answered", description="", turns=((Reply(), Result()),)),
    Scenario(
        name="hook_blocked",
        description="",
        turns=(
            (
                system(
                    "informational",
                    content="Stop hook blocked: tests are failing",
                    level="warning",
                    tool_use_id="hook-1",
                ),
                system(
                    "informational",
                    content="Stop hook blocked: tests are failing",
                    level="warning",
                    tool_use_id="hook-1",
                ),
                system("informational", content="Loaded 3 skills", level="info"),
                system(
                    "informational",
                    content="## Tip\nUse **/compact** to `free` room",
                    level="suggestion",
                ),
                Result(result="Stop hook blocked: tests are failing"),
            ),
        ),
    ),
    Scenario(
        name="failed_result",
        description="",
        turns=(
            (
                Result(
                    subtype="error_during_execution",
                    is_error=True,
                    errors=("boom",),
                    terminal_reason="api_error",
                    stop_reason=None,
                ),
            ),
        ),
    ),
]


async def _run(
    tmp_path: Path, scenario: str, text: str = "hi", **kwargs: Any
) -> tuple[Adapter, Any]:
    async with agent_in_process(tmp_path, scenario, scenarios=MINE, **kwargs) as adapter:
        if "capabilities" in kwargs:
            # `acp` 0.12.1 drops `session.notices` from a typed initialize: say it raw.
            await initialize_with(adapter, kwargs["capabilities"])
        session = await adapter.new_session()
        answer = await adapter.prompt(session, text)
    assert adapter.answers() and set(adapter.answers().values()) == {1}
    return adapter, answer


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_a_local_commands_output_is_shown_once(tmp_path: Path, capable: bool) -> None:
    adapter, answer = await _run(tmp_path, "local_output", "/cost", capable=capable)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [chunk] = adapter.updates("agent_message_chunk")
    assert chunk == {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "Context: 12k of 200k tokens"},
        "messageId": "u-local_command_output",
    }


@pytest.mark.asyncio
@pytest.mark.parametrize("prompt", ["/context", "what did you say?"])
async def test_a_turn_answered_only_in_its_result_shows_the_result(
    tmp_path: Path, prompt: str
) -> None:
    adapter, answer = await _run(tmp_path, "result_only", prompt)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert adapter.updates("agent_message_chunk") == [
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "The cached answer."},
        }
    ]


@pytest.mark.asyncio
async def test_a_streamed_answer_is_not_repeated_from_the_result(tmp_path: Path) -> None:
    adapter, answer = await _run(tmp_path, "answered")
    assert isinstance(answer, PromptResponse)
    texts = adapter.agent_texts()
    assert len(texts) == 1 and texts[0]


@pytest.mark.asyncio
async def test_a_failed_result_is_not_shown_as_an_answer(tmp_path: Path) -> None:
    adapter, _ = await _run(tmp_path, "failed_result")
    assert "boom" not in adapter.agent_texts()


@pytest.mark.asyncio
async def test_a_hooks_block_reason_is_a_notice_once_for_a_notices_client(tmp_path: Path) -> None:
    adapter, answer = await _run(tmp_path, "hook_blocked", capable=False, capabilities=NOTICES)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert adapter.updates("notice") == [
        {
            "sessionUpdate": "notice",
            "severity": "warning",
            "title": BLOCKED,
            "_meta": {"claudeCode": {"kind": "informational", "level": "warning"}},
        },
        {
            "sessionUpdate": "notice",
            "severity": "info",
            "title": "Tip",
            "description": "Use /compact to free room",
            "_meta": {"claudeCode": {"kind": "informational", "level": "suggestion"}},
        },
    ]
    # The result only repeats the notice: no text; the `info` line is transcript noise.
    assert adapter.updates("agent_message_chunk") == []


@pytest.mark.asyncio
async def test_a_hooks_block_reason_is_bold_text_for_other_clients(tmp_path: Path) -> None:
    adapter, answer = await _run(tmp_path, "hook_blocked", capable=False)
    assert isinstance(answer, PromptResponse)
    assert adapter.updates("notice") == []
    chunks = adapter.updates("agent_message_chunk")
    assert [c["content"]["text"] for c in chunks] == [
        f"**Warning:** {BLOCKED}",
        "Loaded 3 skills",
        "**Suggestion:** ## Tip\nUse **/compact** to `free` room",
    ]
    assert chunks[0]["_meta"] == {"claudeCode": {"kind": "informational", "level": "warning"}}
