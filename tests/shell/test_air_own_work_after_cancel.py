"""JetBrains AIR's "Claude is working" entry after a `session/cancel`, on the fakes of
`tests/support/shell_harness.py` (docs/reference-adapter.md#autonomous-turns): what Claude says
of the stopped work opens none, but once a Claude Code that names the prompts each model
request serves (`request_marker_lists_v1`) asks the model for its own next work (a follow-up
after a background command ended, with no prompt open), that work's output opens it, as the
reference adapter opens it."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from acp.schema import PromptResponse
from claude_agent_sdk import AssistantMessage, SystemMessage, TextBlock

from adapter.controls.pickers import SessionConfig
from adapter.controls.session_controls import SessionControls
from fsm.air.client import AirClient
from tests.support.shell_harness import (
    EPOCH,
    WAIT,
    FakeLink,
    answer_of,
    prompt_in_background,
    result_message,
    session_with_fakes,
)

pytestmark = pytest.mark.anyio

WORDS = AssistantMessage(content=[TextBlock(text="The build passed.")], model="claude-x")


def _air(link: FakeLink) -> SessionControls:
    air = AirClient(air=True, declared=frozenset({"asyncTasks"}))
    config = SessionConfig.initial({}, None)
    return SessionControls(session_id="s", link=link, config=config, air=air)


async def _system(session: Any, subtype: str, **data: Any) -> None:
    frame = {"type": "system", "subtype": subtype, "session_id": "c", **data}
    await session.claude.on_message(SystemMessage(subtype=subtype, data=frame), frame, EPOCH)


def _spawned(link: FakeLink) -> list[dict[str, Any]]:
    return [
        u
        for u in link.sent
        if isinstance(u, dict) and u.get("sessionUpdate") == "async_task_spawned"
    ]


@pytest.mark.parametrize("marker_lists", [True, False], ids=["marker-lists", "no-marker-lists"])
async def test_claude_s_own_work_after_a_cancel_opens_the_entry(marker_lists: bool) -> None:
    capabilities = ["msg_lifecycle_v1"] + (["request_marker_lists_v1"] if marker_lists else [])
    async with (
        session_with_fakes(controls=_air) as (session, link, runtime, _),
        anyio.create_task_group() as tg,
    ):
        await _system(session, "init", capabilities=capabilities)
        box = await prompt_in_background(session, runtime, tg)
        stamp = runtime.prompts[-1]["uuid"]
        await session.cancel()
        with anyio.fail_after(WAIT):
            while runtime.interrupts < 1:
                await anyio.sleep(0)
        cancelled = result_message(
            is_error=True, subtype="error_during_execution", text=None, prompts=(stamp,)
        )
        await session.claude.on_message(cancelled, {}, EPOCH)
        answer = await answer_of(box)
        # The stopped work's tail opens nothing.
        await session.claude.on_message(WORDS, {}, EPOCH)
        assert _spawned(link) == []
        # Claude's own follow-up: its model request serves no prompt.
        await _system(session, "status", status="requesting", user_message_uuids=[])
        await session.claude.on_message(WORDS, {}, EPOCH)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"
    spawned = _spawned(link)
    if not marker_lists:  # nothing tells its own work from the stopped one's: as the reference
        assert spawned == []
        return
    [entry] = spawned
    assert entry["asyncTaskId"].startswith("autonomous-turn-")
    assert entry["name"] == "Claude is working"
