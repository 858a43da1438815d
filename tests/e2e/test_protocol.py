"""The adapter's ACP surface end to end: negotiation, session errors, content, permission,
cancellation, authentication, and the rule that stdout carries nothing but JSON-RPC frames.

Most tests drive the adapter through `tests/support/harness.py` (the `acp` client over real stdio).
The negotiation and raw-stdout tests speak JSON-RPC by hand (`RawAdapter`): only raw text can
carry a malformed `_meta` the `acp` client's models would refuse to build, and only the raw
byte stream shows whether anything but frames reaches stdout.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import (
    PromptResponse,
)
from acp.transports import default_environment

from adapter.scripted_claude import SCENARIO_ENV, TEXTS, write_launcher
from fsm.air.client import ADVERTISED, air_client
from tests.support.choosing_client import KindClient
from tests.support.frame_check import check_frame
from tests.support.harness import (
    OPT_IN,
    ROOT,
    TIMEOUT,
    Adapter,
    AdapterPool,
    script_launcher,
    spawn_adapter,
    until,
)

ADVERTISEMENT = {
    "version": 1,
    "capabilities": list(ADVERTISED),
    # Every AIR client is told how to set a goal (docs/client-authors.md).
    "goal": {"version": 1, "controlMethod": "_session/goal", "actions": ["set", "clear"]},
}


# --- a hand-written JSON-RPC client -----------------------------------------------------------


@dataclass
class RawAdapter:
    """`python -m adapter` with JSON-RPC written and read by hand. Every stdout line is kept in
    `lines` and checked with `check_frame` as it is read."""

    process: asyncio.subprocess.Process
    workdir: Path
    lines: list[str] = field(default_factory=list)
    frames: list[dict[str, Any]] = field(default_factory=list)
    next_id: int = 0

    async def write(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode("utf-8") + b"\n")
        await self.process.stdin.drain()

    async def request(self, method: str, params: dict[str, Any] | str) -> int:
        """Send a request; `params` as a dict, or as raw JSON text (for malformed values)."""
        self.next_id += 1
        raw = params if isinstance(params, str) else json.dumps(params)
        await self.write(
            f'{{"jsonrpc":"2.0","id":{self.next_id},"method":"{method}","params":{raw}}}'
        )
        return self.next_id

    async def _read_frame(self) -> dict[str, Any] | None:
        assert self.process.stdout is not None
        data = await asyncio.wait_for(self.process.stdout.readline(), TIMEOUT)
        if not data:
            return None
        line = data.decode("utf-8")
        assert line.endswith("\n"), line
        self.lines.append(line)
        message = check_frame(line)
        self.frames.append(message)
        if "method" in message and "id" in message:
            await self._answer_agent_request(message)
        return message

    async def _answer_agent_request(self, message: dict[str, Any]) -> None:
        if message["method"] == "session/request_permission":
            options = message["params"]["options"]
            outcome = {"outcome": "selected", "optionId": options[0]["optionId"]}
            reply: dict[str, Any] = {"result": {"outcome": outcome}}
        else:
            reply = {"error": {"code": -32601, "message": "Method not found"}}
        await self.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], **reply}))

    async def response(self, request_id: int) -> dict[str, Any]:
        """Read frames until the response to `request_id` arrives."""
        for earlier in self.frames:
            if "method" not in earlier and earlier.get("id") == request_id:
                return earlier
        while True:
            message = await self._read_frame()
            assert message is not None, f"stdout closed before response {request_id}"
            if "method" not in message and message.get("id") == request_id:
                return message

    async def call(self, method: str, params: dict[str, Any] | str) -> dict[str, Any]:
        return await self.response(await self.request(method, params))

    async def finish(self) -> None:
        """Close stdin, read stdout to its end (every line is still checked), reap."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        while await self._read_frame() is not None:
            pass
        await asyncio.wait_for(self.process.wait(), TIMEOUT)


@asynccontextmanager
async def raw_adapter(tmp_path: Path, scenario: str = "success") -> AsyncIterator[RawAdapter]:
    workdir = tmp_path / "project"
    config_dir = tmp_path / "claude-config"
    workdir.mkdir(parents=True, exist_ok=True)
    config_dir.mkdir(exist_ok=True)
    env = {
        **default_environment(),
        "CLAUDE_CODE_EXECUTABLE": str(write_launcher(tmp_path / "bin")),
        SCENARIO_ENV: scenario,
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "CLAUDE_ACP_LOG": "DEBUG",  # chatty logs must all go to stderr
        "PYTHONPATH": str(ROOT),
    }
    with (tmp_path / "adapter-stderr.log").open("wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "adapter",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=env,
            cwd=str(ROOT),
            limit=16 * 1024 * 1024,
        )
        raw = RawAdapter(process, workdir)
        try:
            yield raw
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()


def _initialize_params(capabilities_json: str) -> str:
    return f'{{"protocolVersion":{acp.PROTOCOL_VERSION},"clientCapabilities":{capabilities_json}}}'


def _has_key(value: object, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(_has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(_has_key(v, key) for v in value)
    return False


# --- negotiation (docs/decisions.md#negotiation and #advertising) ---------------------------------


def _air(air_json: str) -> str:
    return f'{{"_meta":{{"jetbrains":{{"air":{air_json}}}}}}}'


def _opt_in(version_json: str, capabilities_json: str = '["sessionFailure"]') -> str:
    return _air(f'{{"version":{version_json},"capabilities":{capabilities_json}}}')


# Raw JSON for `clientCapabilities`: everything here must silently mean legacy
# (docs/decisions.md#negotiation). One variant per layer of the envelope; the pure check itself is
# table-tested in the core's tests. (No `_meta` at all is every legacy run of
# the failure matrix, tests/shell/test_failure_matrix.py and tests/e2e/test_failure_matrix.py.)
LEGACY_CAPABILITIES: dict[str, str] = {
    "_meta a list": '{"_meta":[]}',
    "_meta null": '{"_meta":null}',
    "jetbrains a list": '{"_meta":{"jetbrains":[]}}',
    "air a string": _air('"sessionFailure"'),
    "version true": _opt_in("true"),
    'version "1"': _opt_in('"1"'),
    "version 1.5": _opt_in("1.5"),
    "version 0": _opt_in("0"),
    "version Infinity": _opt_in("1e400"),  # valid JSON that overflows to Infinity
    "capabilities a string": _opt_in("1", '"sessionFailure"'),
    "capabilities wrong case": _opt_in("1", '["sessionfailure"]'),
    "old nested form": _air('{"sessionFailure":{"version":1}}'),
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
    """Initialize with raw capabilities, then fail one turn; say which mode the adapter chose."""
    async with raw_adapter(tmp_path, "rate_limit") as raw:
        init = await raw.call("initialize", _initialize_params(capabilities_json))
        if "error" in init:
            return f"initialize failed: {init['error']}"
        advertised = (init["result"].get("_meta") or {}).get("jetbrains", {}).get("air")
        declared = json.loads(capabilities_json).get("_meta")
        # docs/decisions.md#advertising: the advertisement to an AIR client only
        # (`_meta.jetbrains.air` an object).
        if advertised != (ADVERTISEMENT if air_client(declared).air else None):
            return f"wrong advertisement: {init['result'].get('_meta')}"
        created = await raw.call("session/new", {"cwd": str(raw.workdir), "mcpServers": []})
        session = created["result"]["sessionId"]
        answer = await raw.call(
            "session/prompt",
            {"sessionId": session, "prompt": [{"type": "text", "text": "hello"}]},
        )
        await raw.finish()
    records = any(_has_key(frame, "sessionFailure") for frame in raw.frames)
    if "error" in answer and not records:
        error = answer["error"]
        if error["code"] == -32603 and error.get("data") == {"errorKind": "rate_limit"}:
            return "legacy"
        return f"legacy with an unexpected error: {error}"
    meta = answer.get("result", {}).get("_meta") or {}
    record = meta.get("jetbrains", {}).get("air", {}).get("sessionFailure")
    if record is not None and record["category"] == "limit":
        return "capable"
    return f"neither: {answer}"


async def _negotiate_all(tmp_path: Path, variants: dict[str, str]) -> dict[str, str]:
    # Independent adapter processes, a few at a time (each costs about a second to start).
    gate = asyncio.Semaphore(4)

    async def one(index: int, name: str, capabilities_json: str) -> tuple[str, str]:
        async with gate:
            return name, await _negotiate(tmp_path / f"v{index}", capabilities_json)

    results = await asyncio.gather(
        *(one(i, name, caps) for i, (name, caps) in enumerate(variants.items()))
    )
    return dict(results)


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


def _initialize_result(adapter: Adapter) -> dict[str, Any]:
    [request_id] = [
        f.message["id"]
        for f in adapter.frames
        if f.direction == "outgoing" and f.message.get("method") == "initialize"
    ]
    [result] = [
        m["result"] for m in adapter.incoming() if "method" not in m and m.get("id") == request_id
    ]
    assert isinstance(result, dict)
    return result


# --- session/new and unknown sessions ------------------------------------------------------------


@pytest.mark.asyncio
async def test_session_new_rejects_a_missing_or_relative_cwd(tmp_path: Path) -> None:
    async with raw_adapter(tmp_path) as raw:
        await raw.call("initialize", _initialize_params(json.dumps({"_meta": OPT_IN})))
        missing = await raw.call("session/new", {"mcpServers": []})
        relative = await raw.call("session/new", {"cwd": "project", "mcpServers": []})
        dotted = await raw.call("session/new", {"cwd": "./project", "mcpServers": []})
        # The adapter is still serving: a good request still works.
        good = await raw.call("session/new", {"cwd": str(raw.workdir), "mcpServers": []})
        await raw.finish()
    for answer in (missing, relative, dotted):
        assert answer.get("error", {}).get("code") == -32602, answer
    assert isinstance(good.get("result", {}).get("sessionId"), str), good


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("scenario", "executable"),
    [("success", "/nonexistent/claude"), ("exit_before_handshake", None)],
    ids=["missing-executable", "exit-before-handshake"],
)
async def test_session_new_without_claude_is_a_clear_error_that_leaks_no_path(
    tmp_path: Path, scenario: str, executable: str | None
) -> None:
    env = {"CLAUDE_CODE_EXECUTABLE": executable} if executable else {}
    async with spawn_adapter(tmp_path, scenario, env=env) as adapter:
        with pytest.raises(acp.RequestError) as caught:
            await adapter.new_session()
        # Still serving: the next request gets the same clear answer, not a hang.
        with pytest.raises(acp.RequestError):
            await adapter.new_session()
    error = caught.value
    shown = f"{error} {json.dumps(error.data)}"
    assert error.code in (-32603, -32000), shown
    assert "Claude" in shown, shown
    leaks = ("nonexistent", str(tmp_path), "/tmp", "Traceback", "Errno", "scripted start-up")
    for leak in leaks:
        assert leak not in shown, shown
    assert adapter.records() == []


@pytest.mark.asyncio(loop_scope="module")
async def test_prompt_for_an_unknown_session_is_an_error(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(tmp_path) as adapter:
        await adapter.conn.cancel(session_id="no-such-session")  # a notification: ignored
        answer = await adapter.prompt("no-such-session", "hello")
        # The adapter is unharmed: a real session still works.
        session = await adapter.new_session()
        ok = await adapter.prompt(session, "hello")
    assert isinstance(answer, acp.RequestError)
    assert answer.code in (-32602, -32002), answer
    assert isinstance(ok, PromptResponse) and ok.stop_reason == "end_turn"
    assert all(count == 1 for count in adapter.answers().values())


# --- content -----------------------------------------------------------------------------------


@pytest.mark.asyncio(loop_scope="module")
async def test_thinking_tools_and_text_arrive_in_order(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(tmp_path, "thinking_and_tools") as adapter:
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
    assert (refined["title"], refined["rawInput"]) == ("ls", {"command": "ls"})
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


@pytest.mark.asyncio(loop_scope="module")
async def test_resource_links_and_embedded_resources_reach_claude(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    link_uri = "file:///workspace/notes.md"
    embedded_uri = "file:///workspace/tool.py"
    embedded_text = "print('embedded context')"
    async with adapters.session_adapter(tmp_path, "success") as adapter:
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


@pytest.mark.asyncio(loop_scope="module")
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
    adapters: AdapterPool, tmp_path: Path, kind: str, fail: bool, expected: str
) -> None:
    client = KindClient(kind=kind, fail=fail)
    async with adapters.session_adapter(tmp_path, "permission", client=client) as adapter:
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


_PERMISSION_TWICE = """
import os, sys
from adapter.scripted_claude import runtime
from adapter.scripted_claude.scenarios import SCENARIOS
from adapter.scripted_claude.steps import Permission, Result, Scenario

step = Permission(tool_name="Bash", input={"command": "rm -rf build"}, result="")
twice = Scenario(
    name="permission_twice",
    description="The same tool needs permission in two turns.",
    turns=((step, Result()), (step, Result())),
)
runtime.SCENARIOS = {**SCENARIOS, twice.name: twice}
code = runtime.main(sys.argv[1:], os.environ)
sys.stderr.flush()
os._exit(code)
"""


def _permission_twice_launcher(directory: Path) -> Path:
    # No shipped scenario asks twice, so this test plays its own two-turn script through the
    # scripted Claude's runtime.
    return script_launcher(directory, "permission_twice", _PERMISSION_TWICE)


@pytest.mark.asyncio(loop_scope="module")
async def test_allow_always_is_not_asked_again(adapters: AdapterPool, tmp_path: Path) -> None:
    client = KindClient(kind="allow_always")
    launcher = adapters.launcher("permission_twice", _permission_twice_launcher)
    async with adapters.session_adapter(
        tmp_path,
        "permission_twice",
        client=client,
        env={"CLAUDE_CODE_EXECUTABLE": str(launcher)},
    ) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "clean up")
        asked_once = len(client.offered)
        second = await adapter.prompt(session, "clean up again")
    assert isinstance(first, PromptResponse) and isinstance(second, PromptResponse)
    assert asked_once == 1
    assert len(client.offered) == 1  # the second call was allowed without asking
    assert adapter.agent_texts().count("Bash was allowed.") == 2


# --- cancellation (docs/decisions.md#refusal-and-cancellation) ------------------------------------


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_cancel_answers_cancelled_without_a_record(
    adapters: AdapterPool, tmp_path: Path, capable: bool
) -> None:
    async with adapters.session_adapter(tmp_path, "hang", capable=capable) as adapter:
        session = await adapter.new_session()
        pending = asyncio.create_task(adapter.prompt(session, "think hard"))
        await until(
            lambda: "Let me think about this for a while." in adapter.agent_texts(),
            "the hanging turn to start",
        )
        await adapter.conn.cancel(session_id=session)
        answer = await pending
        # The session goes on: the next turn of the scenario succeeds.
        after = await adapter.prompt(session, "never mind")
    assert isinstance(answer, PromptResponse), answer
    assert answer.stop_reason == "cancelled"
    assert answer.field_meta is None or "jetbrains" not in answer.field_meta
    assert adapter.records() == []
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"
    assert all(count == 1 for count in adapter.answers().values())
    # The interruption is not an error: Claude's "interrupted" text is no agent prose either.
    assert TEXTS["interrupted"] not in " ".join(adapter.agent_texts())


# --- authenticate ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_authenticate_with_the_advertised_method_only(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "success") as adapter:
        methods = _initialize_result(adapter)["authMethods"]
        assert methods, "no authentication method advertised"
        session = await adapter.new_session()
        await asyncio.wait_for(adapter.conn.authenticate(method_id=methods[0]["id"]), TIMEOUT)
        with pytest.raises(acp.RequestError) as unknown:
            await asyncio.wait_for(adapter.conn.authenticate(method_id="no-such-method"), TIMEOUT)
        # After signing in, prompts go to a fresh Claude process and still succeed.
        answer = await adapter.prompt(session, "hello")
    assert unknown.value.code in (-32602, -32000), unknown.value
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"


# --- stdout carries JSON-RPC frames only -------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("scenario", ["success", "retry_then_rate_limit", "crash_mid_turn"])
async def test_every_stdout_line_is_a_json_rpc_frame(tmp_path: Path, scenario: str) -> None:
    # With DEBUG logging on (raw_adapter sets it): every log line must go to stderr.
    async with raw_adapter(tmp_path, scenario) as raw:
        init = await raw.call("initialize", _initialize_params(json.dumps({"_meta": OPT_IN})))
        created = await raw.call("session/new", {"cwd": str(raw.workdir), "mcpServers": []})
        session = created["result"]["sessionId"]
        answers = []
        for text in ("first", "second"):
            answers.append(
                await raw.call(
                    "session/prompt",
                    {"sessionId": session, "prompt": [{"type": "text", "text": text}]},
                )
            )
        # Close stdin and read stdout to its end: what the adapter writes while it shuts
        # down is checked too.
        await raw.finish()
    assert "result" in init
    # Every line was checked with `check_frame` as it was read.
    assert len(raw.lines) == len(raw.frames) >= 4
    responses = [f for f in raw.frames if "method" not in f]
    assert sorted(f["id"] for f in responses) == [1, 2, 3, 4]  # each request answered once
    first, second = (answer["result"] for answer in answers)
    assert first["stopReason"] == second["stopReason"] == "end_turn"
    if scenario != "success":
        assert first["_meta"]["jetbrains"]["air"]["sessionFailure"]["severity"] == "error"
    assert "_meta" not in second or "jetbrains" not in second["_meta"]
