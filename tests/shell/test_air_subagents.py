"""JetBrains AIR's native subagent sessions, through the agent and the real SDK in process:
a client that declares `nativeSubagentSessions` sees the subagent as a child session (spawned,
its words, calls and question on it, its end), the Agent call hidden and a failed launch shown;
an AIR client without it and a plain client see the Agent call as before."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.claude.subagent_files import subagent_files
from adapter.scripted_claude.air_scenarios import SCOUT_AGENT, SCOUT_CALL
from tests.support.harness import NATIVE, OPT_IN, TIMEOUT, Adapter, until
from tests.support.shell_harness import agent_in_process

CLIENTS = {"native": NATIVE, "air_sf": OPT_IN, "plain": None}
PROMPT = "Find where the input is parsed and report the function."


def _updates(adapter: Adapter) -> list[tuple[str, dict[str, Any]]]:
    return [
        (m["params"]["sessionId"], m["params"]["update"])
        for m in adapter.incoming()
        if m.get("method") == "session/update"
    ]


def _messages(chunks: Any) -> list[str]:
    """Chunks joined by the message they belong to, in order."""
    joined: dict[Any, str] = {}
    for chunk in chunks:
        key = chunk.get("messageId")
        joined[key] = joined.get(key, "") + chunk["content"]["text"]
    return list(joined.values())


@pytest.mark.asyncio
async def test_a_declaring_air_client_gets_the_subagent_as_a_child_session(tmp_path: Path) -> None:
    async with agent_in_process(
        tmp_path, "air_subagents", client_meta=NATIVE, capable=True
    ) as adapter:
        init = next(m for m in adapter.incoming() if "agentCapabilities" in m.get("result", {}))
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "Where is the input parsed?")
        updates = _updates(adapter)
        asked = [
            m["params"]
            for m in adapter.incoming()
            if m.get("method") == "session/request_permission"
        ]
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    result = init["result"]
    assert result["agentCapabilities"]["sessionCapabilities"]["subagents"] == {}
    assert "nativeSubagentSessions" in result["_meta"]["jetbrains"]["air"]["capabilities"]
    kinds = [(sid, u["sessionUpdate"]) for sid, u in updates]
    spawned = [u for _, u in updates if u["sessionUpdate"] == "subagent_spawned"]
    assert spawned == [
        {
            "sessionUpdate": "subagent_spawned",
            "subagentSessionId": SCOUT_AGENT,
            "name": "Scout the parser",
            "task": PROMPT,
            "prompt": PROMPT,
            "capabilities": {},
        }
    ]
    assert (session, "subagent_spawned") in kinds
    child = [u for sid, u in updates if sid == SCOUT_AGENT]
    # Nothing of the child before its announcement; its words and calls on it.
    first_child = next(i for i, (sid, _) in enumerate(updates) if sid == SCOUT_AGENT)
    assert kinds.index((session, "subagent_spawned")) < first_child
    # Streamed to the child as Claude Code streams it: each message whole once joined.
    said = _messages(u for u in child if u["sessionUpdate"] == "agent_message_chunk")
    assert len(said) < len([u for u in child if u["sessionUpdate"] == "agent_message_chunk"])
    assert said == [
        "Reading the parser first.",
        "Bash was allowed.",
        "The input is parsed by parse() in src/app.py.",
    ]
    child_calls = {u["toolCallId"] for u in child if u["sessionUpdate"] == "tool_call"}
    assert len(child_calls) == 2  # the Read and the Bash
    # The child shows the model it ran on, once (a one-option picker the client cannot change).
    models = [u for u in child if u["sessionUpdate"] == "config_option_update"]
    assert len(models) == 1 and models[0]["configOptions"][0]["id"] == "model"
    assert len(models[0]["configOptions"][0]["options"]) == 1
    # The subagent's question goes on its session.
    assert [a["sessionId"] for a in asked] == [SCOUT_AGENT]
    # Its end on the parent; the Agent call itself never shown; the failed launch shown once.
    ended = [u for sid, u in updates if u["sessionUpdate"] == "subagent_state_update"]
    assert ended == [
        {
            "sessionUpdate": "subagent_state_update",
            "subagentSessionId": SCOUT_AGENT,
            "state": "completed",
        }
    ]
    assert all(u.get("toolCallId") != SCOUT_CALL for _, u in updates)
    failed = [u for _, u in updates if u.get("toolCallId") == "toolu_missing"]
    assert len(failed) == 1 and failed[0]["sessionUpdate"] == "tool_call"
    assert failed[0]["status"] == "failed"
    assert "subagent" not in failed[0]["_meta"]["jetbrains"]["air"]
    root_said = [
        u["content"]["text"]
        for sid, u in updates
        if sid == session and u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert "".join(root_said) == "The scout found the parser: parse() in src/app.py."


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["air_sf", "plain"])
async def test_other_clients_see_the_agent_call_on_the_session(tmp_path: Path, kind: str) -> None:
    meta = CLIENTS[kind]
    async with agent_in_process(
        tmp_path, "air_subagents", client_meta=meta, capable=meta is not None
    ) as adapter:
        init = next(m for m in adapter.incoming() if "agentCapabilities" in m.get("result", {}))
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "Where is the input parsed?")
        updates = _updates(adapter)
        asked = [
            m["params"]
            for m in adapter.incoming()
            if m.get("method") == "session/request_permission"
        ]
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert {sid for sid, _ in updates} == {session}
    assert [a["sessionId"] for a in asked] == [session]
    kinds = {u["sessionUpdate"] for _, u in updates}
    assert not kinds & {"subagent_spawned", "subagent_state_update"}
    launch = [u for _, u in updates if u.get("toolCallId") == SCOUT_CALL]
    assert launch and launch[0]["sessionUpdate"] == "tool_call"
    session_caps = init["result"]["agentCapabilities"]["sessionCapabilities"]
    air = (launch[0].get("_meta") or {}).get("jetbrains", {}).get("air")
    if kind == "plain":
        assert "subagents" not in session_caps and air is None
    else:
        # Every AIR client is told the call launches a subagent, as the reference does.
        assert session_caps["subagents"] == {} and air == {"version": 1, "subagent": True}


@pytest.mark.asyncio
async def test_a_load_replays_each_subagent_on_a_replay_child_session(tmp_path: Path) -> None:
    meta = {
        "jetbrains": {
            "air": {
                "version": 1,
                "capabilities": ["sessionFailure", "nativeSubagentSessions", "loadReplayEnd"],
            }
        }
    }
    async with agent_in_process(
        tmp_path, "air_subagents", client_meta=meta, capable=True
    ) as adapter:
        session = await adapter.new_session()
        assert isinstance(
            await adapter.prompt(session, "Where is the input parsed?"), PromptResponse
        )
        before = len(adapter.incoming())
        await asyncio.wait_for(
            adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        scout = f"{session}:replay-subagent:{SCOUT_CALL}"

        def models_on_the_child() -> int:
            return sum(
                1
                for m in adapter.incoming()[before:]
                if m.get("method") == "session/update"
                and m["params"]["sessionId"] == scout
                and m["params"]["update"]["sessionUpdate"] == "config_option_update"
            )

        await until(lambda: models_on_the_child() == 2, "the replayed child's model refined")
        frames = adapter.incoming()[before:]
    updates = [
        (m["params"]["sessionId"], m["params"]["update"])
        for m in frames
        if m.get("method") == "session/update"
    ]
    scout, missing = (f"{session}:replay-subagent:{call}" for call in (SCOUT_CALL, "toolu_missing"))
    spawned = [(sid, u) for sid, u in updates if u["sessionUpdate"] == "subagent_spawned"]
    assert spawned == [
        (
            session,
            {
                "sessionUpdate": "subagent_spawned",
                "subagentSessionId": scout,
                "name": "Scout the parser",
                "task": PROMPT,
                "capabilities": {},
            },
        ),
        (
            session,
            {
                "sessionUpdate": "subagent_spawned",
                "subagentSessionId": missing,
                "name": "Ask a planner",
                "task": "Plan.",
                "capabilities": {},
            },
        ),
    ]
    said = [
        u["content"]["text"]
        for sid, u in updates
        if sid == scout and "content" in u and u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert said == [
        "Reading the parser first.",
        "Bash was allowed.",
        "The input is parsed by parse() in src/app.py.",
    ]
    assert (
        len(
            {
                u["toolCallId"]
                for sid, u in updates
                if sid == scout and u["sessionUpdate"] == "tool_call"
            }
        )
        == 2
    )
    replayed_models = [
        u for sid, u in updates if sid == scout and u["sessionUpdate"] == "config_option_update"
    ]
    # The child's model by its id while the load replays (the model list comes with Claude),
    # then, once the load is answered, as the model picker names it (after the command list).
    assert [m["configOptions"][0]["options"] for m in replayed_models] == [
        [{"value": "claude-sonnet-4-5", "name": "claude-sonnet-4-5"}],
        [{"value": "default", "name": "Default (recommended)"}],
    ]
    answered = next(i for i, m in enumerate(frames) if "result" in m)
    commands = next(
        i
        for i, m in enumerate(frames)
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] == "available_commands_update"
    )
    refined = max(
        i
        for i, m in enumerate(frames)
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] == "config_option_update"
    )
    assert answered < commands < refined
    # The launch calls are not shown; the ends come last, newest first, before loadReplayEnd.
    assert all(u.get("toolCallId") not in (SCOUT_CALL, "toolu_missing") for _, u in updates)
    ends = [
        (i, u)
        for i, (_, u) in enumerate(updates)
        if u["sessionUpdate"] == "subagent_state_update"
        or (u["sessionUpdate"] == "session_info_update" and u.get("_meta", {}).get("jetbrains"))
    ]
    assert [u for _, u in ends] == [
        {"sessionUpdate": "subagent_state_update", "subagentSessionId": missing, "state": "failed"},
        {
            "sessionUpdate": "subagent_state_update",
            "subagentSessionId": scout,
            "state": "completed",
        },
        {
            "sessionUpdate": "session_info_update",
            "_meta": {"jetbrains": {"air": {"version": 1, "loadReplayEnd": True}}},
        },
    ]
    # The child's replay is over before the ends (its refined model follows the answer).
    last_child = max(
        i for i, (sid, u) in enumerate(updates) if sid == scout and u is not replayed_models[-1]
    )
    assert all(updates[i][0] == session for i, _ in ends) and ends[0][0] > last_child


@pytest.mark.asyncio
async def test_an_agent_from_before_a_load_is_restored_when_it_speaks_again(
    tmp_path: Path,
) -> None:
    async with agent_in_process(
        tmp_path, "air_subagents", client_meta=NATIVE, capable=True
    ) as adapter:
        session = await adapter.new_session()
        assert isinstance(
            await adapter.prompt(session, "Where is the input parsed?"), PromptResponse
        )
        await asyncio.wait_for(
            adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        before = len(adapter.incoming())
        assert isinstance(await adapter.prompt(session, "Go on."), PromptResponse)
        updates = [
            (m["params"]["sessionId"], m["params"]["update"])
            for m in adapter.incoming()[before:]
            if m.get("method") == "session/update"
        ]
    spawned = [(sid, u) for sid, u in updates if u["sessionUpdate"] == "subagent_spawned"]
    assert len(spawned) == 1
    parent, announced = spawned[0]
    restored = announced["subagentSessionId"]
    assert parent == session and restored.startswith(f"{SCOUT_AGENT}:generation:")
    assert int(restored.rsplit(":", 1)[1]) > 1  # a time, not a count: no clash with before
    assert announced["name"] == "Scout the parser"
    said = _messages(u for sid, u in updates if sid == restored and "content" in u)
    assert said == ["Picking up where I left off."]


@pytest.mark.asyncio
async def test_a_load_restores_a_childs_async_task_on_the_childs_replay_session(
    tmp_path: Path,
) -> None:
    meta = {
        "jetbrains": {
            "air": {
                "version": 1,
                "capabilities": ["sessionFailure", "nativeSubagentSessions", "asyncTasks"],
            }
        }
    }
    async with agent_in_process(
        tmp_path, "air_subagents", client_meta=meta, capable=True
    ) as adapter:
        session = await adapter.new_session()
        assert isinstance(
            await adapter.prompt(session, "Where is the input parsed?"), PromptResponse
        )
        # The scout ran a command in the background, and heard of its end, in its own history.
        (transcript,) = adapter.config_dir.glob("projects/*/*.jsonl")
        child_file = subagent_files(transcript)[SCOUT_CALL].transcript
        last = json.loads(child_file.read_text().splitlines()[-1])
        shared = {k: last[k] for k in ("sessionId", "cwd", "isSidechain", "agentId") if k in last}
        call = {"type": "tool_use", "id": "toolu_bg", "name": "Bash", "input": {"command": "make"}}
        notice = (
            "<task-notification><task-id>bg1</task-id><tool-use-id>toolu_bg</tool-use-id>"
            "<status>completed</status><summary>built</summary></task-notification>"
        )
        records = [
            {**shared, "type": "assistant", "message": {"role": "assistant", "content": [call]}},
            {**shared, "type": "user", "message": {"role": "user", "content": notice}},
        ]
        with child_file.open("a") as out:
            out.write("".join(json.dumps(record) + "\n" for record in records))
        before = len(adapter.incoming())
        await asyncio.wait_for(
            adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        frames = adapter.incoming()[before:]
    scout = f"{session}:replay-subagent:{SCOUT_CALL}"
    tasks = [
        (m["params"]["sessionId"], m["params"]["update"])
        for m in frames
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"].startswith("async_task_")
    ]
    assert tasks == [
        (
            scout,
            {
                "sessionUpdate": "async_task_spawned",
                "asyncTaskId": "bg1",
                "name": "make",
                "taskType": "shell",
                "description": "make",
                "showInTranscript": True,
                "canStop": True,
                "toolCallId": "toolu_bg",
            },
        ),
        (
            scout,
            {
                "sessionUpdate": "async_task_state_update",
                "asyncTaskId": "bg1",
                "state": "completed",
                "summary": "built",
            },
        ),
    ]
