"""The scripted Claude, driven through the real `claude_agent_sdk.ClaudeSDKClient`.

Each test spawns `python -m adapter.scripted_claude` through `write_launcher` as the SDK's
`cli_path`, so what is asserted here is what the adapter will see: the SDK's parsed messages and
the exceptions it raises when the process misbehaves. Messages are compared as short summaries
(`summary`) so one table (`tests/support/scripted_expectations.py`) states every scenario's
whole turn.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ClaudeSDKError,
    CLIConnectionError,
    CLIJSONDecodeError,
    Message,
    PermissionResultAllow,
    PermissionResultDeny,
    ProcessError,
    RateLimitEvent,
    ResultError,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ToolPermissionContext,
    ToolUseBlock,
    get_session_messages,
    query,
)

from adapter.scripted_claude import (
    DEFAULT_SCENARIO,
    SCENARIO_ENV,
    TEXTS,
    write_launcher,
)
from adapter.scripted_claude.transcript import sanitize_path, transcript_path
from tests.support.scripted_expectations import (
    EXPECTED,
    INIT,
    OK,
    TEXT,
    TOOL,
    api_result,
    summary,
    synthetic_error,
)

TIMEOUT = 60


# -- helpers -----------------------------------------------------------------------------------


def _options(
    tmp_path: Path,
    scenario: str,
    *,
    env: dict[str, str] | None = None,
    **kwargs: Any,
) -> ClaudeAgentOptions:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    full_env = {SCENARIO_ENV: scenario, "CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    full_env.update(env or {})
    return ClaudeAgentOptions(
        cli_path=write_launcher(tmp_path / "bin"), cwd=work, env=full_env, **kwargs
    )


async def _prompt(text: str, message_uuid: str) -> AsyncIterator[dict[str, Any]]:
    # ClaudeSDKClient.query() writes each dict as one stdin line (adding "session_id"), so a
    # dict is how a prompt gets a `uuid` that comes back as `user_message_uuid`.
    yield {
        "type": "user",
        "message": {"role": "user", "content": text},
        "parent_tool_use_id": None,
        "uuid": message_uuid,
    }


@dataclass(kw_only=True)
class Turn:
    messages: list[Message]
    ending: str
    error: ClaudeSDKError | None = None

    @property
    def summary(self) -> list[str]:
        return [summary(m) for m in self.messages]

    @property
    def result(self) -> ResultMessage:
        last = self.messages[-1]
        assert isinstance(last, ResultMessage)
        return last

    def assistants(self) -> list[AssistantMessage]:
        return [m for m in self.messages if isinstance(m, AssistantMessage)]


OnMessage = Callable[[Message], Awaitable[None]]


async def _turn(
    client: ClaudeSDKClient,
    text: str = "hello",
    message_uuid: str | None = None,
    on_message: OnMessage | None = None,
) -> Turn:
    """Send one prompt and read until its result, an idle state frame, EOF or an exception."""
    if message_uuid is None:
        await client.query(text)
    else:
        await client.query(_prompt(text, message_uuid))
    messages: list[Message] = []
    try:
        async for message in client.receive_messages():
            messages.append(message)
            if on_message is not None:
                await on_message(message)
            if isinstance(message, ResultMessage):
                return Turn(messages=messages, ending="result")
            if (
                isinstance(message, SystemMessage)
                and message.subtype == "session_state_changed"
                and message.data.get("state") == "idle"
            ):
                return Turn(messages=messages, ending="idle")
    except ClaudeSDKError as exc:
        code = exc.exit_code if isinstance(exc, ProcessError) else None
        return Turn(messages=messages, ending=f"{type(exc).__name__}:{code}", error=exc)
    return Turn(messages=messages, ending="eof")


def _startup_failure(exc: ClaudeSDKError) -> str:
    """How `connect()` failed for a process that exits before the handshake.

    The SDK writes `initialize` right after spawning, long before a Python process can exit, so
    it normally sees the exit status (`ProcessError`). Only if the process were gone before that
    write would it raise `CLIConnectionError("Failed to write to process stdin")`, which
    hides the status: that reads as "connect:ProcessError:?", so a loaded machine cannot make
    the tests flaky.
    """
    if isinstance(exc, CLIConnectionError) and "Failed to write" in str(exc):
        return "connect:ProcessError:?"
    code = exc.exit_code if isinstance(exc, ProcessError) else None
    return f"connect:{type(exc).__name__}:{code}"


def _session_ids(turn: Turn) -> set[str | None]:
    ids: set[str | None] = set()
    for message in turn.messages:
        if isinstance(message, SystemMessage):
            ids.add(message.data.get("session_id"))
        elif isinstance(message, AssistantMessage | ResultMessage | RateLimitEvent):
            ids.add(message.session_id)
    return ids


# -- tests -------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_handshake_and_success(tmp_path: Path) -> None:
    session_id = str(uuid.uuid4())
    prompt_uuid = str(uuid.uuid4())
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(_options(tmp_path, "success", session_id=session_id)) as client:
            info = await client.get_server_info()
            assert info is not None
            assert info["scripted_claude"]["scenario"] == "success"
            turn = await _turn(client, "hi there", prompt_uuid)
    assert turn.summary == [INIT, TEXT, OK]
    assert _session_ids(turn) == {session_id}
    [answer] = turn.assistants()
    assert answer.content == [TextBlock(text="Scripted reply to: hi there")]
    assert answer.user_message_uuid == prompt_uuid
    assert turn.result.result == "Scripted reply to: hi there"
    assert turn.result.user_message_uuid == prompt_uuid


@pytest.mark.asyncio
@pytest.mark.parametrize("name", list(EXPECTED))
async def test_scenario(name: str, tmp_path: Path) -> None:
    expect = EXPECTED[name]
    session_id = str(uuid.uuid4())
    prompt_uuid = str(uuid.uuid4())
    client = ClaudeSDKClient(_options(tmp_path, name, env=expect.env, session_id=session_id))
    interrupted = False

    async def interrupt_once(message: Message) -> None:
        nonlocal interrupted
        if expect.interrupt and not interrupted and isinstance(message, AssistantMessage):
            interrupted = True
            await client.interrupt()

    with anyio.fail_after(TIMEOUT):
        try:
            try:
                await client.connect()
            except ClaudeSDKError as exc:
                assert _startup_failure(exc) in (expect.ending, "connect:ProcessError:?")
                return
            turn = await _turn(client, "hello", prompt_uuid, interrupt_once)
            assert (turn.summary, turn.ending) == (list(expect.turn), expect.ending)
            assert _session_ids(turn) == {session_id}
            for assistant in turn.assistants():
                assert assistant.user_message_uuid == prompt_uuid
                assert assistant.session_id == session_id
            if expect.text is not None:
                result = turn.result
                if result.errors is not None:
                    assert result.errors == [expect.text]
                else:
                    # Claude's own text, both on its message and in the result.
                    assert result.result == expect.text
                    assert turn.assistants()[-1].content == [TextBlock(text=expect.text)]
            if turn.ending == "result":
                assert turn.result.user_message_uuid == prompt_uuid
            if turn.ending in ("result", "idle"):
                # Every turn after the scripted ones plays the plain success turn.
                after = await _turn(client, "again")
                states = ["state:running"] if expect.env else []
                assert after.summary == [*states, INIT, TEXT, OK]
                assert after.result.result == "Scripted reply to: again"
        finally:
            await client.disconnect()


@pytest.mark.asyncio
async def test_crash_then_resume_continues_the_turn_index(tmp_path: Path) -> None:
    session_id = str(uuid.uuid4())
    with anyio.fail_after(TIMEOUT):
        client = ClaudeSDKClient(_options(tmp_path, "crash_mid_turn", session_id=session_id))
        await client.connect()
        try:
            crashed = await _turn(client, "first", str(uuid.uuid4()))
        finally:
            await client.disconnect()
        assert crashed.ending == "ProcessError:-9"
        # Turn 1 (the crash) is in the transcript, so a resumed process plays turn 2.
        options = _options(tmp_path, "crash_mid_turn", resume=session_id)
        async with ClaudeSDKClient(options) as client:
            resumed = await _turn(client, "second", str(uuid.uuid4()))
    assert resumed.summary == [INIT, TEXT, OK]
    assert resumed.result.session_id == session_id


@pytest.mark.asyncio
async def test_resume_of_an_unknown_session_fails_connect(tmp_path: Path) -> None:
    missing = str(uuid.uuid4())
    with anyio.fail_after(TIMEOUT):
        client = ClaudeSDKClient(_options(tmp_path, "success", resume=missing))
        with pytest.raises(ResultError) as caught:
            await client.connect()
    assert caught.value.errors == [f"No conversation found with session ID: {missing}"]
    assert caught.value.exit_code == 1


@pytest.mark.asyncio
async def test_continue_and_fork_session(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(_options(tmp_path, DEFAULT_SCENARIO)) as client:
            first = await _turn(client)
        assert first.result.is_error
        session_id = first.result.session_id
        # --continue picks the latest session of the directory and plays its turn 2.
        async with ClaudeSDKClient(
            _options(tmp_path, DEFAULT_SCENARIO, continue_conversation=True)
        ) as client:
            continued = await _turn(client)
        assert (continued.summary, continued.result.session_id) == ([INIT, TEXT, OK], session_id)
        # --fork-session copies the history into a new session id.
        async with ClaudeSDKClient(
            _options(tmp_path, DEFAULT_SCENARIO, resume=session_id, fork_session=True)
        ) as client:
            forked = await _turn(client)
    assert forked.summary == [INIT, TEXT, OK]
    assert forked.result.session_id != session_id
    work = str(tmp_path / "work")
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    copied = transcript_path(env, work, forked.result.session_id).read_text().splitlines()
    original = transcript_path(env, work, session_id).read_text().splitlines()
    assert len(copied) == len(original) + 2  # the history, then this turn's prompt and answer


@pytest.mark.asyncio
async def test_interrupt_ends_a_hanging_turn_and_the_session_goes_on(tmp_path: Path) -> None:
    prompt_uuid = str(uuid.uuid4())
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(_options(tmp_path, "hang")) as client:
            await client.interrupt()  # no turn playing: simply answered
            await client.query(_prompt("wait", prompt_uuid))
            messages: list[Message] = []
            async for message in client.receive_messages():
                messages.append(message)
                if isinstance(message, AssistantMessage):
                    await client.interrupt()
                if isinstance(message, ResultMessage):
                    break
            after = await _turn(client, "again")
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.is_error) == ("error_during_execution", True)
    assert result.errors == ["Request interrupted by user"]
    assert result.user_message_uuid == prompt_uuid
    assert after.summary == [INIT, TEXT, OK]


@pytest.mark.asyncio
@pytest.mark.parametrize("allow", [True, False], ids=["allow", "deny"])
async def test_permission_round_trip(tmp_path: Path, allow: bool) -> None:
    asked: list[tuple[str, dict[str, Any], str | None]] = []

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        asked.append((name, tool_input, context.tool_use_id))
        if allow:
            return PermissionResultAllow()
        return PermissionResultDeny(message="Not in this repository")

    options = _options(tmp_path, "permission", can_use_tool=can_use_tool)
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(options) as client:
            turn = await _turn(client, "clean up", str(uuid.uuid4()))
    tool_result = "user:tool_result" if allow else "user:tool_result!"
    assert turn.summary == [INIT, TOOL, tool_result, TEXT, OK]
    tool_use = turn.assistants()[0].content[0]
    assert isinstance(tool_use, ToolUseBlock)
    assert asked == [("Bash", dict(tool_use.input), tool_use.id)]
    expected = "Bash was allowed." if allow else "Bash was denied: Not in this repository"
    assert turn.assistants()[-1].content == [TextBlock(text=expected)]
    denials = [] if allow else [{"tool_name": "Bash", "tool_use_id": tool_use.id}]
    reported = turn.result.permission_denials or []
    assert [{k: d[k] for k in ("tool_name", "tool_use_id")} for d in reported] == denials


@pytest.mark.asyncio
async def test_interrupt_while_waiting_for_permission_cancels_the_request(tmp_path: Path) -> None:
    cancelled = anyio.Event()
    asked = anyio.Event()

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        asked.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()  # the SDK cancels this task on control_cancel_request
        raise AssertionError("unreachable")

    options = _options(tmp_path, "permission", can_use_tool=can_use_tool)
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(options) as client:
            await client.query("clean up")
            await asked.wait()
            await client.interrupt()
            messages = [m async for m in client.receive_response()]
            await cancelled.wait()
    assert [summary(m) for m in messages] == [
        INIT,
        TOOL,
        "result:error_during_execution:error:None:aborted_streaming:None",
    ]


@pytest.mark.asyncio
async def test_transcript_is_written_where_the_sdk_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompt_uuid = str(uuid.uuid4())
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(_options(tmp_path, "thinking_and_tools")) as client:
            first = await _turn(client, "what is here?", prompt_uuid)
        async with ClaudeSDKClient(
            _options(tmp_path, "rate_limit", resume=first.result.session_id)
        ) as client:
            # Turn 2 of the resumed session: rate_limit has one scripted turn, so success.
            second = await _turn(client, "and now?")
    session_id = first.result.session_id
    assert second.result.session_id == session_id
    work = tmp_path / "work"
    path = transcript_path({"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}, str(work), session_id)
    assert path.parent.name == sanitize_path(os.path.realpath(work))
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    # Turn 1: prompt, thinking, tool_use, tool_result, answer; turn 2: prompt, answer.
    kinds = ["user", "assistant", "assistant", "user", "assistant", "user", "assistant"]
    assert [e["type"] for e in entries] == kinds
    assert entries[0]["uuid"] == prompt_uuid
    assert entries[0]["parentUuid"] is None
    assert all(e["parentUuid"] == p["uuid"] for p, e in itertools.pairwise(entries))
    assert {e["sessionId"] for e in entries} == {session_id}
    assert entries[3]["message"]["content"][0]["type"] == "tool_result"
    # The SDK's own reader finds and chains the file.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    history = get_session_messages(session_id, directory=str(work))
    assert [m.uuid for m in history] == [e["uuid"] for e in entries]


@pytest.mark.asyncio
async def test_error_messages_are_marked_in_the_transcript(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(_options(tmp_path, "usage_limit")) as client:
            turn = await _turn(client)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    path = transcript_path(env, str(tmp_path / "work"), turn.result.session_id)
    _, error = [json.loads(line) for line in path.read_text().splitlines()]
    assert (error["error"], error["isApiErrorMessage"], error["apiErrorStatus"]) == (
        "rate_limit",
        True,
        429,
    )
    assert error["message"]["model"] == "<synthetic>"
    assert error["message"]["content"] == [{"type": "text", "text": TEXTS["usage_limit"]}]


@pytest.mark.asyncio
async def test_set_model_changes_the_reported_model(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(_options(tmp_path, "success")) as client:
            await client.set_model("claude-opus-4-5")
            await client.set_permission_mode("acceptEdits")
            turn = await _turn(client)
    assert turn.summary[1] == "assistant[claude-opus-4-5]:text"
    init = turn.messages[0]
    assert isinstance(init, SystemMessage)
    assert init.data["permissionMode"] == "acceptEdits"


@pytest.mark.asyncio
async def test_query_raises_result_error_after_an_error_result(tmp_path: Path) -> None:
    # Like the real CLI, the fake exits 1 at stdin EOF when the last result was an error.
    seen: list[str] = []
    with anyio.fail_after(TIMEOUT), pytest.raises(ResultError) as caught:
        async for message in query(prompt="hello", options=_options(tmp_path, "rate_limit")):
            seen.append(summary(message))
    assert seen == [INIT, synthetic_error("rate_limit"), api_result(429)]
    assert (caught.value.api_error_status, caught.value.exit_code) == (429, 1)
    with anyio.fail_after(TIMEOUT):
        ok = [summary(m) async for m in query(prompt="hi", options=_options(tmp_path, "success"))]
    assert ok == [INIT, TEXT, OK]


@pytest.mark.asyncio
async def test_garbage_raises_a_json_decode_error(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(_options(tmp_path, "garbage")) as client:
            turn = await _turn(client)
    assert isinstance(turn.error, CLIJSONDecodeError)
    assert turn.error.line == '{"type": "assistant", "message": {'


@pytest.mark.asyncio
async def test_unknown_scenario_exits_2(tmp_path: Path) -> None:
    launcher = write_launcher(tmp_path / "bin")
    env = {**os.environ, SCENARIO_ENV: "no_such_scenario"}
    done = subprocess.run(
        [str(launcher), "--input-format", "stream-json"],
        env=env,
        input=b"",
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    assert b"unknown scenario 'no_such_scenario'" in done.stderr
    assert done.stdout == b""
    with anyio.fail_after(TIMEOUT), pytest.raises(ClaudeSDKError) as caught:
        async with ClaudeSDKClient(_options(tmp_path, "no_such_scenario")):
            pass
    assert _startup_failure(caught.value) in ("connect:ProcessError:2", "connect:ProcessError:?")
