"""JetBrains AIR's Async Tasks entry for a turn Claude runs on its own
(docs/reference-adapter.md#autonomous-turns), in process (`agent_in_process`) with the scripted
Claude playing a background task's follow-up after the prompt's answer: an AIR client that
declared `asyncTasks` sees "Claude is working" from the follow-up's first words to its result,
described by the task notification that woke Claude; Stop interrupts Claude; a client that did
not declare it sees nothing new."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.background_scenarios import autonomous_result, task_notification
from adapter.scripted_claude.steps import RawFrame, Result, Scenario, Sleep, Text
from adapter.session.session import Session
from fsm import PromptReceived
from tests.support.harness import TIMEOUT, Adapter, until
from tests.support.shell_harness import agent_in_process

FOLLOW_UP = "The build passed."
MINE = [
    Scenario(
        name="autonomous_follow_up",
        description="",
        turns=(
            (
                Text(text="I started the build."),
                Result(),
                task_notification("b1", "bg1", "Build finished", "completed"),
                Text(text=FOLLOW_UP),
                autonomous_result(),
            ),
        ),
    ),
    Scenario(
        name="autonomous_long",
        description="",
        turns=(
            (
                Text(text="I started the build."),
                Result(),
                Text(text="Following up on my own."),
                # Until the interrupt: the scripted Claude checks its inbox while it waits.
                Sleep(seconds=60),
                Text(text="Never said."),
                autonomous_result(),
            ),
        ),
    ),
]


def _state(state: str) -> RawFrame:
    return RawFrame(
        frame={
            "type": "system",
            "subtype": "session_state_changed",
            "state": state,
            "session_id": "x",
            "uuid": f"state-{state}-fire",
        }
    )


# A `/loop` wakeup fires between turns: Claude Code goes idle after the prompt's turn, then
# `running`, says which command the wakeup started, works, and its result names no origin.
LOOP_FIRE = (
    _state("idle"),  # the prompt's turn is over
    _state("running"),
    RawFrame(
        frame={
            "type": "command_lifecycle",
            "command_uuid": "fire-1",
            "state": "started",
            "wakeup_source": "loop_wakeup",
            "scheduled_for": 1_767_258_000_000,
            "session_id": "x",
            "uuid": "lifecycle-fire-1",
        }
    ),
    Text(text="Checked the deploy again: still green."),
    Result(),
)
MINE.append(
    Scenario(
        name="loop_fire",
        description="",
        turns=((Text(text="I will check the deploy every hour."), Result(), *LOOP_FIRE),),
    )
)

AIR_TASKS = {"jetbrains": {"air": {"version": 1, "capabilities": ["asyncTasks"]}}}
_ID = re.compile(r"autonomous-turn-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _task_updates(adapter: Adapter) -> list[dict[str, Any]]:
    return [
        u
        for u in (m.get("params", {}).get("update", {}) for m in adapter.incoming())
        if str(u.get("sessionUpdate", "")).startswith("async_task")
    ]


def _ended(adapter: Adapter) -> bool:
    return any(u["sessionUpdate"] == "async_task_state_update" for u in _task_updates(adapter))


@pytest.mark.asyncio
@pytest.mark.parametrize("air", [True, False], ids=["air", "plain"])
async def test_a_follow_up_nobody_prompted_is_an_async_task_for_air_only(
    tmp_path: Path, air: bool
) -> None:
    meta = AIR_TASKS if air else None
    async with agent_in_process(
        tmp_path, "autonomous_follow_up", scenarios=MINE, client_meta=meta, capable=False
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "build it")
        await until(lambda: FOLLOW_UP in adapter.agent_texts(), "the follow-up")
        if air:
            await until(lambda: _ended(adapter), "the autonomous turn's end")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    updates = _task_updates(adapter)
    if not air:
        assert updates == []
        return
    spawned, ended = updates
    assert _ID.fullmatch(spawned.pop("asyncTaskId"))
    assert spawned == {
        "sessionUpdate": "async_task_spawned",
        "name": "Claude is working",
        "taskType": "turn",
        # The notification that woke Claude names why it works.
        "description": "Build finished",
        "showInTranscript": False,
        "canStop": True,
    }
    assert _ID.fullmatch(ended.pop("asyncTaskId"))
    assert ended == {"sessionUpdate": "async_task_state_update", "state": "completed"}
    # The follow-up's words are shown as before, after the entry opened.
    texts = adapter.agent_texts()
    assert texts.count(FOLLOW_UP) == 1


async def _stop(adapter: Adapter, **params: Any) -> Any:
    return await asyncio.wait_for(
        adapter.conn._conn.send_request("_session/async_task/stop", params), TIMEOUT
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("records", [True, False], ids=["records", "legacy"])
async def test_stopping_the_entry_interrupts_claude_and_says_so_once(
    tmp_path: Path, records: bool
) -> None:
    log = tmp_path / "claude.log"
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    capabilities = ["asyncTasks", "sessionFailure"] if records else ["asyncTasks"]
    meta = {"jetbrains": {"air": {"version": 1, "capabilities": capabilities}}}
    async with agent_in_process(
        tmp_path, "autonomous_long", env=env, scenarios=MINE, client_meta=meta, capable=False
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "build it")
        await until(lambda: _task_updates(adapter), "the autonomous turn's entry")
        task_id = _task_updates(adapter)[0]["asyncTaskId"]
        stopped = await _stop(adapter, sessionId=session, asyncTaskId=task_id)
        again = await _stop(adapter, sessionId=session, asyncTaskId=task_id)
        after = await adapter.prompt(session, "anything else?")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert stopped == {"stopped": True} and again == {"stopped": False}
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert _task_updates(adapter)[1:] == [
        {"sessionUpdate": "async_task_state_update", "asyncTaskId": task_id, "state": "stopped"}
    ]
    said = [t for t in adapter.agent_texts() if "stopped by user" in t]
    assert said == ["**Task stopped by user:** Claude is working."]
    assert "Never said." not in adapter.agent_texts()
    # The interrupt's error result is no failure (docs/decisions.md#stopped-own-turn).
    assert adapter.records() == []
    assert not [t for t in adapter.agent_texts() if "interrupted" in t.lower()]
    controls = [json.loads(line) for line in log.read_text().splitlines()]
    asked = [c["request"].get("subtype") for c in controls if c["kind"] == "control"]
    assert "interrupt" in asked and "stop_task" not in asked


@pytest.mark.asyncio
async def test_a_prompt_waiting_for_the_lock_refuses_the_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Claude's reader holds the feed lock (mid-frame); a prompt waits for it, then a Stop
    # arrives. The core, fed the prompt first, refuses the stop: the interrupt would fold the
    # prompt into Claude's own turn and drop it (docs/decisions.md#stopped-own-turn).
    opened: list[Session] = []
    init = Session.__init__

    def keep(self: Session, **kwargs: Any) -> None:
        init(self, **kwargs)
        opened.append(self)

    monkeypatch.setattr(Session, "__init__", keep)
    log = tmp_path / "claude.log"
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(log)}
    async with agent_in_process(
        tmp_path, "autonomous_long", env=env, scenarios=MINE, client_meta=AIR_TASKS, capable=False
    ) as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "build it")
        await until(lambda: _task_updates(adapter), "the autonomous turn's entry")
        task_id = _task_updates(adapter)[0]["asyncTaskId"]
        [live] = opened
        fed: list[str] = []
        feed = live.feed
        arriving, held = asyncio.Event(), asyncio.Event()

        async def noted(event: Any, message: Any = None) -> None:
            if isinstance(event, PromptReceived):
                arriving.set()
                await held.wait()  # the reader took the lock first
            fed.append(type(event).__name__)  # then it waits for the lock at once
            await feed(event, message)

        monkeypatch.setattr(live, "feed", noted)
        prompt = asyncio.ensure_future(adapter.prompt(session, "anything else?"))
        await arriving.wait()
        async with live._feed_lock:
            held.set()
            await until(lambda: "PromptReceived" in fed, "the prompt at the lock")
            stop = asyncio.ensure_future(_stop(adapter, sessionId=session, asyncTaskId=task_id))
            await until(lambda: "OwnTurnStopped" in fed, "the stop at the lock")
        stopped = await stop
        controls = [json.loads(line) for line in log.read_text().splitlines()]
        asked = [c["request"].get("subtype") for c in controls if c["kind"] == "control"]
        # The prompt's own cancel ends Claude's long sleep.
        await adapter.conn.cancel(session_id=session)
        after = await prompt
    assert stopped == {"stopped": False}
    assert "interrupt" not in asked
    assert isinstance(after, PromptResponse)
    # Refused, the entry may be stopped again: nothing said it stopped.
    assert not [t for t in adapter.agent_texts() if "stopped by user" in t]


@pytest.mark.asyncio
async def test_a_loop_wakeup_names_itself_as_the_turns_cause(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path, "loop_fire", scenarios=MINE, client_meta=AIR_TASKS, capable=False
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "watch the deploy")
        await until(lambda: _ended(adapter), "the autonomous turn's end")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    spawned, named, ended = _task_updates(adapter)
    task_id = spawned["asyncTaskId"]
    assert _ID.fullmatch(task_id)
    # Claude Code went `running` first: the entry opened before the wakeup named itself.
    assert spawned["description"] == "Claude Code started a turn without a prompt."
    assert named == {
        "sessionUpdate": "async_task_progress",
        "asyncTaskId": task_id,
        "description": "A scheduled wakeup fired (set for 2026-01-01T09:00:00.000Z).",
    }
    # Its result names no origin: still no prompt's, so it ends the turn.
    assert ended == {
        "sessionUpdate": "async_task_state_update",
        "asyncTaskId": task_id,
        "state": "completed",
    }
    assert adapter.records() == []
