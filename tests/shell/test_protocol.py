"""The agent's ACP surface in process (`agent_in_process`: a real ACP client, the real SDK and
the scripted Claude in this process): negotiation from raw `clientCapabilities`, session errors
(among them ids and folders no session can have), content, and permission. What needs the real
process is end to end (tests/e2e/test_protocol.py): that stdout carries nothing but frames, an
opt-in only raw text can carry, a Claude that cannot start, a cancel of a Claude that hangs, and
authentication.

The negotiation tests send `initialize` with raw params (`InProcessAgent.call`): only a raw
request can carry a malformed `_meta` the `acp` client's models would refuse to build.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.steps import Permission, Result, Scenario
from tests.support.choosing_client import KindClient
from tests.support.harness import OPT_IN, TIMEOUT, Adapter
from tests.support.negotiation import (
    advertisement_problem,
    air_json,
    initialize_json,
    mode_chosen,
    opt_in_json,
)
from tests.support.shell_harness import agent_in_process


def _initialize_params(capabilities_json: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(initialize_json(capabilities_json))
    return loaded


# --- negotiation (docs/decisions.md#negotiation and #advertising) ---------------------------------


# Raw JSON for `clientCapabilities`: everything here must silently mean legacy
# (docs/decisions.md#negotiation). One variant per layer of the envelope; the pure check itself is
# table-tested in the core's tests. (No `_meta` at all is every legacy run of
# the failure matrix, tests/shell/test_failure_matrix.py and tests/e2e/test_failure_matrix.py.)
# A version of `1e400`, valid JSON no encoder writes, is sent as raw text end to end:
# tests/e2e/test_protocol.py.
LEGACY_CAPABILITIES: dict[str, str] = {
    "_meta a list": '{"_meta":[]}',
    "_meta null": '{"_meta":null}',
    "jetbrains a list": '{"_meta":{"jetbrains":[]}}',
    "air a string": air_json('"sessionFailure"'),
    "version true": opt_in_json("true"),
    'version "1"': opt_in_json('"1"'),
    "version 1.5": opt_in_json("1.5"),
    "version 0": opt_in_json("0"),
    "capabilities a string": opt_in_json("1", '"sessionFailure"'),
    "capabilities wrong case": opt_in_json("1", '["sessionfailure"]'),
    "old nested form": air_json('{"sessionFailure":{"version":1}}'),
    "envelope outside _meta": json.dumps(OPT_IN),
}
# Positive controls: the same path must produce a record when the opt-in is well formed.
CAPABLE_CAPABILITIES: dict[str, str] = {
    "version 2, more capabilities": json.dumps(
        {
            "_meta": {
                "jetbrains": {"air": {"version": 2, "capabilities": ["other", "sessionFailure"]}},
                "vendor": {"x": 1},
            }
        }
    ),
}


async def _negotiate(tmp_path: Path, capabilities_json: str) -> str:
    """Initialize with raw capabilities, then fail one turn; say which mode the agent chose."""
    # Off-spec on purpose: the client's own initialize carries the malformed opt-ins.
    off_spec = "a malformed opt-in, on purpose"
    async with agent_in_process(
        tmp_path, "rate_limit", initialize=False, off_spec=off_spec
    ) as adapter:
        init = await adapter.call("initialize", _initialize_params(capabilities_json))
        problem = advertisement_problem(init, capabilities_json)
        if problem is not None:
            return problem
        created = await adapter.call("session/new", {"cwd": str(adapter.workdir), "mcpServers": []})
        session = created["result"]["sessionId"]
        answer = await adapter.call(
            "session/prompt",
            {"sessionId": session, "prompt": [{"type": "text", "text": "hello"}]},
        )
    return mode_chosen(answer, adapter.incoming())


async def _negotiate_all(tmp_path: Path, variants: dict[str, str]) -> dict[str, str]:
    # Independent agents, one after the other.
    return {
        name: await _negotiate(tmp_path / f"v{index}", capabilities_json)
        for index, (name, capabilities_json) in enumerate(variants.items())
    }


@pytest.mark.asyncio
async def test_malformed_opt_in_means_legacy_never_an_error(tmp_path: Path) -> None:
    # docs/decisions.md#negotiation; and docs/decisions.md#advertising: every variant's initialize
    # response carries the advertisement.
    outcomes = await _negotiate_all(tmp_path, LEGACY_CAPABILITIES)
    assert outcomes == dict.fromkeys(LEGACY_CAPABILITIES, "legacy")


@pytest.mark.asyncio
async def test_well_formed_opt_in_enables_records(tmp_path: Path) -> None:
    # The positive control for the test above: the same path, a well-formed opt-in.
    outcomes = await _negotiate_all(tmp_path, CAPABLE_CAPABILITIES)
    assert outcomes == dict.fromkeys(CAPABLE_CAPABILITIES, "capable")


# --- session/new and unknown sessions ------------------------------------------------------------


@pytest.mark.asyncio
async def test_session_new_rejects_a_missing_or_relative_cwd(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path) as adapter:
        missing = await adapter.call("session/new", {"mcpServers": []})
        relative = await adapter.call("session/new", {"cwd": "project", "mcpServers": []})
        dotted = await adapter.call("session/new", {"cwd": "./project", "mcpServers": []})
        # The agent is still serving: a good request still works.
        good = await adapter.call("session/new", {"cwd": str(adapter.workdir), "mcpServers": []})
    for answer in (missing, relative, dotted):
        assert answer.get("error", {}).get("code") == -32602, answer
    assert isinstance(good.get("result", {}).get("sessionId"), str), good


@pytest.mark.asyncio
async def test_prompt_for_an_unknown_session_is_an_error(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path) as adapter:
        await adapter.conn.cancel(session_id="no-such-session")  # a notification: ignored
        answer = await adapter.prompt("no-such-session", "hello")
        # The agent is unharmed: a real session still works.
        session = await adapter.new_session()
        ok = await adapter.prompt(session, "hello")
    assert isinstance(answer, acp.RequestError)
    assert answer.code in (-32602, -32002), answer
    assert isinstance(ok, PromptResponse) and ok.stop_reason == "end_turn"
    assert all(count == 1 for count in adapter.answers().values())


async def _load(adapter: Adapter, session: str) -> Any:
    return await asyncio.wait_for(
        adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
        TIMEOUT,
    )


@pytest.mark.asyncio
async def test_a_load_with_a_300_character_id_is_a_clean_not_found(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        with pytest.raises(acp.RequestError) as caught:
            await _load(adapter, "a" * 300)
    error = caught.value
    assert error.code == -32002
    assert str(tmp_path) not in repr(error.data) and "/" not in repr(error.data)


@pytest.mark.asyncio
@pytest.mark.parametrize("cwd", ["/" + "d" * 5000, "/tmp/\x00nul"])
async def test_an_unusable_cwd_is_invalid_params(tmp_path: Path, cwd: str) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        with pytest.raises(acp.RequestError) as new:
            await adapter.conn.new_session(cwd=cwd, mcp_servers=[])
        with pytest.raises(acp.RequestError) as load:
            await adapter.conn.load_session(cwd=cwd, session_id="x", mcp_servers=[])
    assert new.value.code == -32602 and load.value.code == -32602


# --- content -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_thinking_tools_and_text_arrive_in_order(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "thinking_and_tools") as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "what is here?")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    updates = [
        u
        for u in adapter.updates()
        if u["sessionUpdate"]
        in {"agent_thought_chunk", "tool_call", "tool_call_update", "agent_message_chunk"}
    ]
    # Text and thinking stream: consecutive chunks of one message join up.
    merged: list[dict[str, Any]] = []
    for u in updates:
        if (
            merged
            and u["sessionUpdate"].endswith("_chunk")
            and merged[-1]["sessionUpdate"] == (u["sessionUpdate"])
        ):
            assert u.get("messageId") == merged[-1].get("messageId")
            merged[-1]["content"]["text"] += u["content"]["text"]
        else:
            merged.append(json.loads(json.dumps(u)))
    # The card opens as Claude starts writing the call, is refined as its command completes,
    # and is filled in once its input is whole.
    assert [u["sessionUpdate"] for u in merged] == [
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "tool_call_update",
        "tool_call_update",
        "tool_call_update",
        "agent_message_chunk",
    ]
    thought, call, refined, filled, running, result, text = merged
    assert "list the files" in thought["content"]["text"]
    # This client is AIR: no `rawInput` until the input is whole.
    assert (refined["title"], "rawInput" in refined) == ("ls", False)
    assert (call["title"], filled["title"], filled["rawInput"]["command"]) == ("Bash", "ls", "ls")
    assert (
        call["toolCallId"] == filled["toolCallId"] == running["toolCallId"] == result["toolCallId"]
    )
    assert (call["status"], running["status"], result["status"]) == (
        "pending",
        "in_progress",
        "completed",
    )
    assert "README.md" in json.dumps(result)
    assert text["content"]["text"] == "The directory holds README.md, src and tests."
    assert adapter.records() == []


@pytest.mark.asyncio
async def test_resource_links_and_embedded_resources_reach_claude(tmp_path: Path) -> None:
    link_uri = "file:///workspace/notes.md"
    embedded_uri = "file:///workspace/tool.py"
    embedded_text = "print('embedded context')"
    async with agent_in_process(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        answer = await asyncio.wait_for(
            adapter.conn.prompt(
                session_id=session,
                prompt=[
                    acp.text_block("Summarize these"),
                    acp.resource_link_block("notes.md", link_uri),
                    acp.resource_block(acp.embedded_text_resource(embedded_uri, embedded_text)),
                ],
            ),
            TIMEOUT,
        )
    assert answer.stop_reason == "end_turn"
    # The scripted Claude echoes the text of the user message it received.
    [reply] = [t for t in adapter.agent_texts() if t.startswith("Scripted reply to:")]
    for part in ("Summarize these", link_uri, embedded_text):
        assert part in reply, reply


# --- permission -------------------------------------------------------------------------------


PERMISSION_KINDS = ["allow_always", "allow_once", "reject_once"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("kind", "fail", "expected"),
    [
        ("allow_once", False, "Bash was allowed."),
        ("reject_once", False, "Bash was denied"),
        ("allow_once", True, "Bash was denied"),
    ],
    ids=["allow", "reject", "client-error"],
)
async def test_permission_is_asked_and_honoured(
    tmp_path: Path, kind: str, fail: bool, expected: str
) -> None:
    client = KindClient(kind=kind, fail=fail)
    async with agent_in_process(tmp_path, "permission", client=client) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "clean up")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [offered] = client.offered
    assert sorted(k for _, k in offered) == sorted(PERMISSION_KINDS)
    assert len({option_id for option_id, _ in offered}) == 3
    [request] = [m for m in adapter.incoming() if m.get("method") == "session/request_permission"]
    assert request["params"]["sessionId"] == session
    assert "rm -rf build" in json.dumps(request["params"]["toolCall"])
    texts = adapter.agent_texts()
    assert any(t.startswith(expected) for t in texts), texts
    assert adapter.records() == []


# No shipped scenario asks twice, so this test plays its own two-turn script.
_ASK = Permission(tool_name="Bash", input={"command": "rm -rf build"}, result="")
PERMISSION_TWICE = Scenario(
    name="permission_twice",
    description="The same tool needs permission in two turns.",
    turns=((_ASK, Result()), (_ASK, Result())),
)


@pytest.mark.asyncio
async def test_allow_always_is_not_asked_again(tmp_path: Path) -> None:
    client = KindClient(kind="allow_always")
    async with agent_in_process(
        tmp_path, "permission_twice", client=client, scenarios=[PERMISSION_TWICE]
    ) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "clean up")
        asked_once = len(client.offered)
        second = await adapter.prompt(session, "clean up again")
    assert isinstance(first, PromptResponse) and isinstance(second, PromptResponse)
    assert asked_once == 1
    assert len(client.offered) == 1  # the second call was allowed without asking
    assert adapter.agent_texts().count("Bash was allowed.") == 2
