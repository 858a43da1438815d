"""The scripted Claude, driven through the real `claude_agent_sdk.ClaudeSDKClient`.

Each test spawns `python -m adapter.scripted_claude` through `write_launcher` as the SDK's
`cli_path`, so what is asserted here is what the adapter will see: the SDK's parsed messages and
the exceptions it raises when the process misbehaves. Messages are compared as short summaries
(`_summary`) so one table states every scenario's whole turn.
"""

from __future__ import annotations

import itertools
import json
import os
import stat
import subprocess
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
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
    ThinkingBlock,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    get_session_messages,
    query,
)

from adapter.scripted_claude import (
    DEFAULT_SCENARIO,
    SCENARIO_ENV,
    SCENARIOS,
    TEXTS,
    scenario_names,
    write_launcher,
)
from adapter.scripted_claude.faults import hostile_text
from adapter.scripted_claude.runtime import parse_argv
from adapter.scripted_claude.transcript import sanitize_path, transcript_path

TIMEOUT = 60
SONNET = "claude-sonnet-4-5"
INIT = "system:init"
TEXT = f"assistant[{SONNET}]:text"
OK = "result:success:ok:None:completed:end_turn"
EMIT_STATES = {"CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1"}


def _retry(status: int | None, kind: str) -> str:
    return f"api_retry:{status}/{kind}"


def _error(kind: str) -> str:
    return f"assistant[<synthetic>]!{kind}:text"


def _api_result(status: int | None) -> str:
    return f"result:success:error:{status}:api_error:stop_sequence"


def _summary(message: Message) -> str:
    # One line per message with the fields the adapter keys on.
    if isinstance(message, SystemMessage):
        data = message.data
        if message.subtype == "api_retry":
            return _retry(data["error_status"], data["error"])
        if message.subtype == "session_state_changed":
            return f"state:{data['state']}"
        return f"system:{message.subtype}"
    if isinstance(message, AssistantMessage):
        kinds = []
        for block in message.content:
            if isinstance(block, TextBlock):
                kinds.append("text")
            elif isinstance(block, ThinkingBlock):
                kinds.append("thinking")
            elif isinstance(block, ToolUseBlock):
                kinds.append(f"tool_use:{block.name}")
        error = f"!{message.error}" if message.error else ""
        refusal = "/refusal" if message.stop_reason == "refusal" else ""
        return f"assistant[{message.model}]{error}:{','.join(kinds)}{refusal}"
    if isinstance(message, UserMessage):
        assert isinstance(message.content, list)
        block = message.content[0]
        assert isinstance(block, ToolResultBlock)
        return "user:tool_result!" if block.is_error else "user:tool_result"
    if isinstance(message, RateLimitEvent):
        return f"rate_limit_event:{message.rate_limit_info.status}"
    if isinstance(message, ResultMessage):
        outcome = "error" if message.is_error else "ok"
        return (
            f"result:{message.subtype}:{outcome}:{message.api_error_status}:"
            f"{message.terminal_reason}:{message.stop_reason}"
        )
    return type(message).__name__


@dataclass(frozen=True, slots=True, kw_only=True)
class Expect:
    """What one scenario's first turn yields through the SDK."""

    turn: tuple[str, ...]
    # "result" / "idle": stopped there, "eof": the stream ended, else an exception's
    # "<class>:<exit code>"; "connect:..." when `connect()` itself raised.
    ending: str = "result"
    text: str | None = None  # Claude's text on the last assistant message and in the result
    env: dict[str, str] = field(default_factory=dict)
    interrupt: bool = False  # interrupt after the first assistant message


def _api_failure(kind: str, text_key: str, status: int | None, *retries: str) -> Expect:
    return Expect(turn=(INIT, *retries, _error(kind), _api_result(status)), text=TEXTS[text_key])


def _limit(subtype: str, reason: str, text_key: str, *before: str) -> Expect:
    return Expect(
        turn=(INIT, *before, f"result:{subtype}:error:None:{reason}:None"), text=TEXTS[text_key]
    )


_TOOL = f"assistant[{SONNET}]:tool_use:Bash"
R429 = _retry(429, "rate_limit")

EXPECTED: dict[str, Expect] = {
    "success": Expect(turn=(INIT, TEXT, OK)),
    "thinking_and_tools": Expect(
        turn=(INIT, f"assistant[{SONNET}]:thinking", _TOOL, "user:tool_result", TEXT, OK)
    ),
    # No can_use_tool callback, so no --permission-prompt-tool: the fake denies by itself.
    "permission": Expect(turn=(INIT, _TOOL, "user:tool_result!", TEXT, OK)),
    "retry_then_success": Expect(turn=(INIT, R429, R429, TEXT, OK)),
    "retry_then_rate_limit": _api_failure("rate_limit", "rate_limit", 429, R429, R429),
    "reconnect_then_transport_loss": Expect(
        turn=(INIT, _retry(None, "unknown")), ending="ProcessError:1"
    ),
    "authentication_failed": _api_failure(
        "authentication_failed",
        "authentication_failed",
        401,
        _retry(401, "authentication_failed"),
        _retry(401, "authentication_failed"),
    ),
    "oauth_org_not_allowed": _api_failure("oauth_org_not_allowed", "oauth_org_not_allowed", 403),
    "synthetic_login": Expect(
        turn=(INIT, "assistant[<synthetic>]:text", _api_result(None)),
        text=TEXTS["synthetic_login"],
    ),
    "verification_required": _api_failure("verification_required", "verification_required", 403),
    "cloud_credential_error": _api_failure(
        "cloud_credential_error", "cloud_credential_error", None
    ),
    "billing_error": _api_failure("billing_error", "billing_error", 400),
    "rate_limit": _api_failure("rate_limit", "rate_limit", 429),
    "max_output_tokens": _api_failure("max_output_tokens", "max_output_tokens", None, TEXT),
    "usage_limit": _api_failure("rate_limit", "usage_limit", 429, "rate_limit_event:rejected"),
    "budget_limit": _limit("error_max_budget_usd", "budget_exhausted", "budget_limit", TEXT),
    "turn_limit": _limit("error_max_turns", "max_turns", "turn_limit", _TOOL, "user:tool_result"),
    "structured_output_retries": _limit(
        "error_max_structured_output_retries",
        "structured_output_retry_exhausted",
        "structured_output_retries",
    ),
    "invalid_request": _api_failure("invalid_request", "invalid_request", 400),
    "model_not_found": _api_failure("model_not_found", "model_not_found", 404),
    "overloaded": _api_failure(
        "server_error", "overloaded", 529, _retry(529, "overloaded"), _retry(529, "overloaded")
    ),
    "server_error": _api_failure("server_error", "server_error", 500, _retry(500, "server_error")),
    "unknown_error": _api_failure("quantum_flux", "unknown_error", None),
    "worker_shutdown": Expect(turn=(INIT, "system:worker_shutting_down"), ending="eof"),
    "crash_mid_turn": Expect(turn=(INIT, TEXT), ending="ProcessError:-9"),
    "model_fallback": Expect(turn=(INIT, "system:model_refusal_fallback", TEXT, OK)),
    "refusal": Expect(
        turn=(
            INIT,
            f"assistant[{SONNET}]:text/refusal",
            "result:success:ok:None:completed:refusal",
        ),
        text=TEXTS["refusal"],
    ),
    "no_result": Expect(turn=(INIT, TEXT), ending="eof"),
    "garbage": Expect(turn=(INIT,), ending="CLIJSONDecodeError:None"),
    "hang": Expect(
        turn=(INIT, TEXT, "result:error_during_execution:error:None:aborted_streaming:None"),
        text=TEXTS["interrupted"],
        interrupt=True,
    ),
    "exit_before_handshake": Expect(turn=(), ending="connect:ProcessError:1"),
    "idle_without_result": Expect(
        turn=("state:running", INIT, TEXT, "state:idle"), ending="idle", env=EMIT_STATES
    ),
    # The SDK only notices closed stdout once the process exits (2 s later, status 0).
    "close_stdout": Expect(turn=(INIT, TEXT), ending="eof"),
}


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
        return [_summary(m) for m in self.messages]

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


@pytest.mark.e2e
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


# The fault scenarios (scripted_claude/faults.py), through the bare SDK: what it does with each
# death and each broken line or frame, which is what the adapter then has to handle.
EXPECTED.update(
    {
        "die_after_error": Expect(turn=(INIT, TEXT, _error("rate_limit")), ending="ProcessError:1"),
        "idle_at_prompt": Expect(
            turn=("state:running", INIT, "state:idle"), ending="idle", env=EMIT_STATES
        ),
        # A non-JSON line is skipped; the turn goes on.
        "non_json_line": Expect(turn=(INIT, TEXT, TEXT, OK)),
        # A JSON line cut off mid-object ends the stream: nothing later could complete it.
        "truncated_json_line": Expect(turn=(INIT, TEXT), ending="CLIJSONDecodeError:None"),
        # A frame of a type it does not know is skipped.
        "unknown_frame_type": Expect(turn=(INIT, TEXT, TEXT, OK)),
        # A known type missing a required field raises from the bare SDK's iterator (the
        # adapter parses frames itself so that it can skip them instead).
        "assistant_content_not_a_list": Expect(turn=(INIT, TEXT), ending="MessageParseError:None"),
        "rate_limit_event_without_info": Expect(turn=(INIT, TEXT), ending="MessageParseError:None"),
        "result_missing_subtype": Expect(turn=(INIT, TEXT), ending="MessageParseError:None"),
        "hostile_error": Expect(
            turn=(INIT, _error("server_error"), _api_result(500)),
            text=hostile_text(os.environ.get("HOME", "/root")),
        ),
    }
)

# Through the bare SDK this one never ends (it waits for the process to exit); the adapter's
# bounded wait is what ends it, so it is tested there (test_adapter_faults.py). The others are
# fault scenarios whose frames carry no session id of this test's session (they are written
# verbatim, `RawFrame`), whose parse raises outside the SDK's error types (a TypeError the bare
# iterator does not wrap), whose process is gone before a second turn, or whose later turns are
# not the success turn: each is asserted through the adapter (test_adapter_faults.py,
# test_memory.py). The two that die at the prompt write no frame at all (nothing to compare).
ADAPTER_ONLY = {
    "close_stdout_and_linger",
    "die_at_prompt",
    "exit_zero_at_prompt",
    "die_after_result",
    "text_block_not_a_string",
    "retry_attempt_not_a_number",
    "retry_delay_out_of_range",
    "assistant_message_not_an_object",
    "rate_limit_info_not_an_object",
    "tool_use_with_wrong_types",
    "tool_use_without_name",
    "tool_result_with_wrong_types",
    "rate_limit_every_turn",
    # Everyday coding turns (issue 13): tests/e2e/test_turn.py and the benchmark.
    "coding_turn",
    "every_tool",
    "broken_stream",
    "stream_then_overloaded",
    "bad_stream",
    "long_stream",
    "streamed_answer",
    "large_message",  # test_large_messages.py (over the SDK's default 1 MiB buffer)
    "ignore_sigterm",  # test_signals.py (stopped only by SIGKILL)
    # The session-feature scenarios are driven through the adapter (test_adapter_session.py).
    "plan_mode",
    "permission_rules",
    "commands_changed",
    "edit_permission",
    # Usage limits that reset (issue 24): test_usage_limits.py, through the adapter.
    "usage_limit_resets",
}


def test_every_scenario_has_an_expectation() -> None:
    assert set(EXPECTED) | ADAPTER_ONLY == set(scenario_names())
    assert DEFAULT_SCENARIO in SCENARIOS


@pytest.mark.e2e
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


@pytest.mark.e2e
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


@pytest.mark.e2e
@pytest.mark.asyncio
async def test_resume_of_an_unknown_session_fails_connect(tmp_path: Path) -> None:
    missing = str(uuid.uuid4())
    with anyio.fail_after(TIMEOUT):
        client = ClaudeSDKClient(_options(tmp_path, "success", resume=missing))
        with pytest.raises(ResultError) as caught:
            await client.connect()
    assert caught.value.errors == [f"No conversation found with session ID: {missing}"]
    assert caught.value.exit_code == 1


@pytest.mark.e2e
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


@pytest.mark.e2e
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


@pytest.mark.e2e
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
    assert turn.summary == [INIT, _TOOL, tool_result, TEXT, OK]
    tool_use = turn.assistants()[0].content[0]
    assert isinstance(tool_use, ToolUseBlock)
    assert asked == [("Bash", dict(tool_use.input), tool_use.id)]
    expected = "Bash was allowed." if allow else "Bash was denied: Not in this repository"
    assert turn.assistants()[-1].content == [TextBlock(text=expected)]
    denials = [] if allow else [{"tool_name": "Bash", "tool_use_id": tool_use.id}]
    reported = turn.result.permission_denials or []
    assert [{k: d[k] for k in ("tool_name", "tool_use_id")} for d in reported] == denials


@pytest.mark.e2e
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
    assert [_summary(m) for m in messages] == [
        INIT,
        _TOOL,
        "result:error_during_execution:error:None:aborted_streaming:None",
    ]


@pytest.mark.e2e
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


@pytest.mark.e2e
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


@pytest.mark.e2e
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


@pytest.mark.e2e
@pytest.mark.asyncio
async def test_query_raises_result_error_after_an_error_result(tmp_path: Path) -> None:
    # Like the real CLI, the fake exits 1 at stdin EOF when the last result was an error.
    seen: list[str] = []
    with anyio.fail_after(TIMEOUT), pytest.raises(ResultError) as caught:
        async for message in query(prompt="hello", options=_options(tmp_path, "rate_limit")):
            seen.append(_summary(message))
    assert seen == [INIT, _error("rate_limit"), _api_result(429)]
    assert (caught.value.api_error_status, caught.value.exit_code) == (429, 1)
    with anyio.fail_after(TIMEOUT):
        ok = [_summary(m) async for m in query(prompt="hi", options=_options(tmp_path, "success"))]
    assert ok == [INIT, TEXT, OK]


@pytest.mark.e2e
@pytest.mark.asyncio
async def test_garbage_raises_a_json_decode_error(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with ClaudeSDKClient(_options(tmp_path, "garbage")) as client:
            turn = await _turn(client)
    assert isinstance(turn.error, CLIJSONDecodeError)
    assert turn.error.line == '{"type": "assistant", "message": {'


@pytest.mark.e2e
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


def test_write_launcher(tmp_path: Path) -> None:
    path = write_launcher(tmp_path / "with space", scenario="hang")
    assert path.name == "claude"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    script = path.read_text()
    assert script.startswith("#!/bin/sh\n")
    assert '-m adapter.scripted_claude "$@"' in script
    assert 'CLAUDE_ACP_SCENARIO="${CLAUDE_ACP_SCENARIO:-hang}"' in script
    with pytest.raises(KeyError):
        write_launcher(tmp_path, scenario="nope")


def test_parse_argv_accepts_both_flag_forms_and_unknown_flags() -> None:
    args = parse_argv(
        [
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--session-id=abc",
            "--resume",
            "def",
            "--permission-prompt-tool",
            "stdio",
            "--brand-new-flag",
            "value",
            "--another-new-switch",
            "--extra=x=y",
            "--input-format",
            "stream-json",
        ]
    )
    assert args.value("--session-id") == "abc"
    assert args.value("--resume") == "def"
    assert args.value("--system-prompt") == ""
    assert args.value("--permission-prompt-tool") == "stdio"
    assert args.value("--brand-new-flag") == "value"
    assert args.has("--another-new-switch") and args.value("--another-new-switch") is None
    assert args.value("--extra") == "x=y"
    assert args.value("--input-format") == "stream-json"
