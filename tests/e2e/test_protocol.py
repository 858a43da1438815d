"""The adapter's ACP surface end to end, where it needs the real process: the rule that stdout
carries nothing but JSON-RPC frames, an opt-in only raw text can carry, a Claude that cannot
start, the cancel of a Claude that hangs, and authentication. Negotiation, session errors,
content and permission are played in process: tests/shell/test_protocol.py.

Most tests drive the adapter through `tests/support/harness.py` (the `acp` client over real stdio).
The negotiation and raw-stdout tests speak JSON-RPC by hand (`RawAdapter`): only raw text can
carry a value no JSON encoder writes, and only the raw byte stream shows whether anything but
frames reaches stdout.
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
from tests.support.frame_check import check_frame
from tests.support.harness import (
    OPT_IN,
    ROOT,
    TIMEOUT,
    Adapter,
    AdapterPool,
    spawn_adapter,
    until,
)
from tests.support.negotiation import (
    advertisement_problem,
    initialize_json,
    mode_chosen,
    opt_in_json,
)

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


# --- negotiation (docs/decisions.md#negotiation and #advertising) ---------------------------------


# Raw JSON for `clientCapabilities` that only raw text can carry: `1e400` is valid JSON that
# overflows to Infinity, which a client library's encoder writes as `Infinity` (not JSON). It must
# silently mean legacy (docs/decisions.md#negotiation). Every other malformed opt-in, and the
# well-formed control, are sent in process: tests/shell/test_protocol.py.
RAW_ONLY_LEGACY_CAPABILITIES: dict[str, str] = {
    "version Infinity": opt_in_json("1e400"),
}


async def _negotiate(tmp_path: Path, capabilities_json: str) -> str:
    """Initialize with raw capabilities, then fail one turn; say which mode the adapter chose."""
    async with raw_adapter(tmp_path, "rate_limit") as raw:
        init = await raw.call("initialize", initialize_json(capabilities_json))
        problem = advertisement_problem(init, capabilities_json)
        if problem is not None:
            return problem
        created = await raw.call("session/new", {"cwd": str(raw.workdir), "mcpServers": []})
        session = created["result"]["sessionId"]
        answer = await raw.call(
            "session/prompt",
            {"sessionId": session, "prompt": [{"type": "text", "text": "hello"}]},
        )
        await raw.finish()
    return mode_chosen(answer, raw.frames)


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
async def test_an_opt_in_only_raw_text_can_carry_means_legacy(tmp_path: Path) -> None:
    # docs/decisions.md#negotiation; and docs/decisions.md#advertising: the initialize response
    # carries the advertisement.
    outcomes = await _negotiate_all(tmp_path, RAW_ONLY_LEGACY_CAPABILITIES)
    assert outcomes == dict.fromkeys(RAW_ONLY_LEGACY_CAPABILITIES, "legacy")


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


# --- session/new without Claude ----------------------------------------------------------------


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
        init = await raw.call("initialize", initialize_json(json.dumps({"_meta": OPT_IN})))
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
