"""Pins for every private library touchpoint (`adapter/claude/sdk_compat.py`,
`adapter/wire/acp_compat.py`, `fsm/machine.py`).

Each test exercises the private API the way the adapter uses it, so an upgrade of
`claude-agent-sdk`, `acp` or `transitions` that moves or changes one fails here, by name,
instead of somewhere deep in an end-to-end run.
"""

from __future__ import annotations

import inspect
import os
import select
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, ClaudeAgentOptions, ClaudeSDKClient, ResultMessage
from claude_agent_sdk.types import PermissionResultAllow
from transitions import Machine

from adapter.claude import sdk_compat as compat
from adapter.wire import acp_compat
from fsm.machine import QuietMachine
from tests.support.fresh_python import printed_json


def test_the_pinned_versions_are_installed() -> None:
    # The touchpoints below were read against these releases (pyproject pins them).
    assert (
        version("claude-agent-sdk"),
        version("agent-client-protocol"),
        version("transitions"),
    ) == (
        "0.2.189",
        "0.12.1",
        "0.9.3",
    )


def test_parse_message_parses_a_frame_and_raises_on_a_bad_one() -> None:
    frame = {
        "type": "assistant",
        "message": {"model": "m", "content": [{"type": "text", "text": "hi"}]},
        "parent_tool_use_id": None,
    }
    message = compat.parse_message(frame)
    assert isinstance(message, AssistantMessage) and message.model == "m"
    with pytest.raises(Exception):  # noqa: B017 - any error: the adapter skips the frame
        compat.parse_message({"type": "assistant"})


def test_parsed_results_keep_their_origin() -> None:
    # translate.py reads `origin` to tell autonomous results from the user's (getattr).
    frame = {
        "type": "result",
        "subtype": "success",
        "duration_ms": 1,
        "duration_api_ms": 1,
        "is_error": False,
        "num_turns": 1,
        "session_id": "s",
        "origin": {"kind": "task-notification"},
    }
    message = compat.parse_message(frame)
    assert isinstance(message, ResultMessage)
    assert getattr(message, "origin", None) == {"kind": "task-notification"}


def test_parsed_results_keep_the_prompts_their_cycle_took_up() -> None:
    # translate.py reads them to tell a cycle that took the user's prompt up (getattr).
    frame = {
        "type": "result",
        "subtype": "success",
        "duration_ms": 1,
        "duration_api_ms": 1,
        "is_error": False,
        "num_turns": 1,
        "session_id": "s",
        "user_message_uuid": "n1",
        "user_message_uuids": ["n1", "t2"],
    }
    message = compat.parse_message(frame)
    assert isinstance(message, ResultMessage)
    assert getattr(message, "user_message_uuid", None) == "n1"
    assert getattr(message, "user_message_uuids", None) == ["n1", "t2"]


@pytest.mark.anyio
async def test_raw_frames_reads_the_clients_private_query() -> None:
    client = ClaudeSDKClient(options=ClaudeAgentOptions())
    assert client._query is None  # set by connect(); the adapter reads its message stream
    assert [frame async for frame in compat.raw_frames(client)] == []
    from claude_agent_sdk._internal.query import Query

    # The adapter reads the stream `receive_messages` reads, as that method reads it.
    source = inspect.getsource(Query.receive_messages)
    assert "async for message in self._message_receive" in source
    assert 'message.get("type") == "end"' in source
    assert 'message.get("type") == "error"' in source
    assert 'message.get("exception")' in source
    assert "self._message_send, self._message_receive = anyio.create_memory_object_stream" in (
        inspect.getsource(Query.__init__)
    )


def test_the_sdks_reader_routes_frames_through_its_private_send_stream() -> None:
    # `send_frames_without_turns` wraps `_message_send`: the reader must look it up per frame,
    # and use no more of it than the wrapper passes on (send, send_nowait, close).
    import re

    from claude_agent_sdk._internal.query import Query

    assert "await self._message_send.send(message)" in inspect.getsource(Query._read_messages)
    uses = set(re.findall(r"self\._message_send\.(\w+)", inspect.getsource(Query)))
    assert uses <= {"send", "send_nowait", "close"}


@pytest.mark.anyio
async def test_a_frame_goes_in_without_a_turn_while_the_buffer_has_room() -> None:
    import anyio

    class _Query:
        def __init__(self) -> None:
            self._message_send, self._message_receive = anyio.create_memory_object_stream[
                dict[str, Any]
            ](2)

    class _Client:
        _query = _Query()

    client: Any = _Client()
    assert compat.send_frames_without_turns(client) is True
    assert compat.send_frames_without_turns(client) is True  # wrapped once
    send, receive = client._query._message_send, client._query._message_receive
    others: list[str] = []

    async def other() -> None:
        others.append("ran")

    async with anyio.create_task_group() as tg:
        tg.start_soon(other)
        await send.send({"n": 1})
        await send.send({"n": 2})
        assert others == []  # no turn of the event loop was taken
        with anyio.fail_after(5):
            tg.start_soon(send.send, {"n": 3})  # the buffer is full: this one waits
            await anyio.sleep(0)
            assert [receive.receive_nowait()["n"] for _ in range(2)] == [1, 2]
            assert (await receive.receive())["n"] == 3
    send.close()
    with pytest.raises(anyio.ClosedResourceError):
        await send.send({"n": 4})
    assert compat.send_frames_without_turns(ClaudeSDKClient(options=ClaudeAgentOptions())) is False


@pytest.mark.anyio
async def test_raw_frames_end_at_the_end_frame_and_raise_an_error_frame() -> None:
    import anyio

    class _Query:
        def __init__(self, frames: list[dict[str, Any]]) -> None:
            send, self._message_receive = anyio.create_memory_object_stream[dict[str, Any]](10)
            for frame in frames:
                send.send_nowait(frame)
            send.close()

    class _Client:
        def __init__(self, frames: list[dict[str, Any]]) -> None:
            self._query = _Query(frames)

    one, two = {"type": "assistant", "n": 1}, {"type": "stream_event", "n": 2}
    ended = _Client([one, two, {"type": "end"}, {"type": "assistant", "n": 3}])
    assert [f async for f in compat.raw_frames(ended)] == [one, two]  # type: ignore[arg-type]
    closed = _Client([one])  # the stream closed without an end frame
    assert [f async for f in compat.raw_frames(closed)] == [one]  # type: ignore[arg-type]
    failed = _Client([one, {"type": "error", "exception": ValueError("boom")}])
    seen: list[dict[str, Any]] = []
    with pytest.raises(ValueError, match="boom"):
        async for frame in compat.raw_frames(failed):  # type: ignore[arg-type]
            seen.append(frame)
    assert seen == [one]
    worded = _Client([{"type": "error", "error": "it broke"}])
    with pytest.raises(Exception, match="it broke"):
        async for _ in compat.raw_frames(worded):  # type: ignore[arg-type]
            pass


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_transport_keeps_its_process_in_a_private_attribute() -> None:
    options = compat.configure_can_use_tool(ClaudeAgentOptions())
    transport = compat.ExitBoundedTransport(prompt="", options=options)
    assert transport._process is None  # connect() sets it; ExitBoundedTransport wraps it
    assert "prompt" in inspect.signature(compat.ExitBoundedTransport.__init__).parameters
    # connect() makes the strict text stream of Claude's stdout that ExitBoundedTransport swaps
    # for a replacing one, and the reader reads that attribute.
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    made = "self._stdout_stream = TextReceiveStream(self._process.stdout)"
    assert made in inspect.getsource(SubprocessCLITransport.connect)
    # Each line goes through the module's `_parse_stdout_line`, looked up at call time, which
    # ExitBoundedTransport wraps to read frames too deep for `json`.
    reader = inspect.getsource(SubprocessCLITransport._read_messages_impl)
    assert "_parse_stdout_line(line)" in reader
    assert "async for chunk in self._stdout_stream" in reader


def test_a_reaped_process_leaves_the_sdks_set_of_live_children() -> None:
    # The SDK adds the process it spawned to `_ACTIVE_CHILDREN` and, once reaped, discards
    # `self._process`, which is our wrapper by then: the wrapper must find what it wraps, or
    # every closed session's process (and its pipes) stayed in that set.
    from claude_agent_sdk._internal.transport import subprocess_cli

    assert "_ACTIVE_CHILDREN.add(self._process)" in inspect.getsource(
        subprocess_cli.SubprocessCLITransport.connect
    )
    assert "_ACTIVE_CHILDREN.discard(self._process)" in inspect.getsource(
        subprocess_cli.SubprocessCLITransport.close
    )
    process = object()
    children = {process}
    children.discard(compat._ExitBoundedProcess(process))
    assert children == set()
    assert compat._ExitBoundedProcess(process) != object()


def test_configure_can_use_tool_routes_permissions_over_stdio() -> None:
    async def allow(*_: object) -> PermissionResultAllow:
        return PermissionResultAllow()

    configured = compat.configure_can_use_tool(ClaudeAgentOptions(can_use_tool=allow))
    assert configured.permission_prompt_tool_name == "stdio"


def test_sanitize_path_is_the_sdks_project_folder_rule() -> None:
    assert compat.sanitize_path("/home/a/my.project") == "-home-a-my-project"


def test_the_sdks_session_listing_reads_regular_transcripts_only(tmp_path: Path) -> None:
    import os

    from claude_agent_sdk._internal import sessions

    # The SDK's own reader, which ours replaces: the same name, argument and result type.
    assert list(inspect.signature(sessions._read_session_lite).parameters) == ["file_path"]
    assert "_read_session_lite(entry)" in inspect.getsource(sessions._read_sessions_from_dir)
    compat.list_regular_transcripts_only()
    compat.list_regular_transcripts_only()  # idempotent
    regular, fifo = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    regular.write_bytes(b'{"type": "user"}\n' + b"x" * 70000 + b'\n{"last": 1}\n')
    os.mkfifo(fifo)
    lite = sessions._read_session_lite(regular)
    assert isinstance(lite, sessions._LiteSessionFile)
    assert lite.head.startswith('{"type": "user"}') and lite.tail.endswith('{"last": 1}\n')
    assert lite.size == regular.stat().st_size
    assert sessions._read_session_lite(fifo) is None  # skipped, not waited on


@pytest.mark.anyio
async def test_send_raw_notification_uses_the_acp_connections_private_sender() -> None:
    from acp.agent.connection import AgentSideConnection
    from acp.connection import Connection

    # AgentSideConnection keeps its JSON-RPC connection in `_conn`, which can send any method.
    assert "self._conn = Connection(" in inspect.getsource(AgentSideConnection.__init__)
    assert list(inspect.signature(Connection.send_notification).parameters) == [
        "self",
        "method",
        "params",
    ]

    sent: list[tuple[str, object]] = []

    class Raw:
        async def send_notification(self, method: str, params: object) -> None:
            sent.append((method, params))

    class Conn:
        _conn = Raw()

    assert await acp_compat.send_raw_notification(Conn(), "session/update", {"x": 1}) is True
    assert sent == [("session/update", {"x": 1})]
    assert await acp_compat.send_raw_notification(object(), "session/update", {}) is False


def test_transitions_binds_through_checked_assignment() -> None:
    # QuietMachine overrides this private method; its signature and use must not move.
    assert list(inspect.signature(Machine._checked_assignment).parameters) == [
        "self",
        "model",
        "name",
        "func",
    ]
    assert "_checked_assignment" in inspect.getsource(Machine._add_trigger_to_model)

    class Model:
        pass

    machine = QuietMachine(model=None, states=["a"], initial="a", auto_transitions=False)
    model = Model()
    machine.add_model(model)
    assert hasattr(model, "trigger") and hasattr(model, "state")
    machine.remove_model(model)


@pytest.mark.anyio
async def test_control_requests_go_through_the_private_query() -> None:
    from claude_agent_sdk import CLIConnectionError
    from claude_agent_sdk._internal.query import Query

    assert "request" in inspect.signature(Query._send_control_request).parameters
    with pytest.raises(CLIConnectionError):
        await compat.send_control_request(ClaudeSDKClient(options=ClaudeAgentOptions()), {})


def test_the_acp_connection_keeps_its_request_handler_in_a_private_attribute() -> None:
    from acp.connection import Connection

    assert "self._handler = handler" in inspect.getsource(Connection.__init__)

    class Raw:
        _handler = "original"

    class Conn:
        _conn = Raw()

    conn = Conn()
    assert acp_compat.wrap_request_handler(conn, lambda h: ("wrapped", h)) is True
    assert conn._conn._handler == ("wrapped", "original")  # type: ignore[comparison-overlap]
    assert acp_compat.wrap_request_handler(object(), lambda h: h) is False


def test_the_acp_connection_numbers_its_requests_in_a_private_attribute() -> None:
    # `next_request_id` reads the counter `send_request` takes the next id from and then bumps,
    # so a permission question's id is known before it is sent (to withdraw it later).
    from acp.connection import Connection

    source = inspect.getsource(Connection.send_request)
    assert "request_id = self._next_request_id" in source
    assert "self._next_request_id += 1" in source
    assert "self._next_request_id = 0" in inspect.getsource(Connection.__init__)

    class Raw:
        _next_request_id = 7

    class Conn:
        _conn = Raw()

    assert acp_compat.next_request_id(Conn()) == 7
    Raw._next_request_id = "7"  # type: ignore[assignment]
    assert acp_compat.next_request_id(Conn()) is None  # not an int: no id is claimed
    assert acp_compat.next_request_id(object()) is None


@pytest.mark.anyio
async def test_send_raw_request_uses_the_acp_connections_private_sender() -> None:
    from acp.connection import Connection

    assert list(inspect.signature(Connection.send_request).parameters)[:3] == [
        "self",
        "method",
        "params",
    ]

    class Raw:
        async def send_request(self, method: str, params: object) -> object:
            return {"method": method, "params": params}

    class Conn:
        _conn = Raw()

    answer = await acp_compat.send_raw_request(Conn(), "elicitation/create", {"x": 1})
    assert answer == {"method": "elicitation/create", "params": {"x": 1}}
    with pytest.raises(LookupError):
        await acp_compat.send_raw_request(object(), "elicitation/create", {})
    assert acp_compat.has_raw_sender(Conn())
    assert not acp_compat.has_raw_sender(object())  # a client double: the typed call is used


def test_a_permission_request_is_serialized_as_acp_serializes_it() -> None:
    # The permission question is sent raw (to add `name`); its params must be what `acp`'s own
    # `request_permission` would send, so the adapter uses the same serializer.
    from acp import utils
    from acp.agent import connection

    source = inspect.getsource(connection.AgentSideConnection.request_permission)
    assert "RequestPermissionRequest(" in source and "request_model(" in source
    assert "serialize_params(params)" in inspect.getsource(utils.request_model)


@pytest.mark.anyio
async def test_acp_starts_each_request_handler_from_the_context_receive_returned_in() -> None:
    # adapter.wire.response_watch: the guard's `receive` names the request in a context variable,
    # and the handler reads its own request's id there. That holds while acp's receive loop
    # starts each handler's task (a copy of its context) right after `receive` returns.
    import asyncio

    from acp.connection import Connection

    from adapter.wire.response_watch import CURRENT_REQUEST, ResponseWatch

    watch = ResponseWatch()
    inbox: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": i, "method": "m", "params": None} for i in ("a", 2)
    ]
    answers: list[dict[str, object]] = []
    done = asyncio.Event()

    class Transport:
        async def receive(self) -> dict[str, object] | None:
            if not inbox:
                await done.wait()
                return None
            message = inbox.pop(0)
            watch.received(message)
            return message

        async def send(self, message: dict[str, object]) -> None:
            answers.append(message)
            if len(answers) == 2:
                done.set()

        async def close(self) -> None:
            return None

    async def handler(method: str, params: object, notification: bool) -> object:
        await asyncio.sleep(0)  # the receive loop has read the next request meanwhile
        return repr(CURRENT_REQUEST.get())

    conn = Connection(handler, Transport(), listening=False)
    await asyncio.wait_for(conn.main_loop(), 30)
    assert {str(a["id"]): a["result"] for a in answers} == {
        "a": "('str', 'a')",
        "2": "('int', 2)",
    }


class _WrittenTransport:
    """What the SDK's control-request handler touches of a transport: `write`."""

    def __init__(self) -> None:
        self.written: list[dict[str, Any]] = []

    async def write(self, data: str) -> None:
        import json

        assert data.endswith("\n")  # one frame per line, as the CLI reads them
        self.written.append(json.loads(data))


@pytest.mark.anyio
async def test_claude_codes_elicitation_request_is_answered_through_the_query() -> None:
    # `answer_elicitations`: the SDK refuses the CLI's `elicitation` request; the query's
    # private `_handle_control_request`, wrapped, answers it and hands the rest on.
    import asyncio
    from types import SimpleNamespace

    from claude_agent_sdk._internal.query import Query

    transport = _WrittenTransport()
    query = Query(transport=transport, is_streaming_mode=True)  # type: ignore[arg-type]
    body = {"subtype": "elicitation", "mcp_server_name": "srv", "message": "m", "mode": "form"}
    request = {"type": "control_request", "request_id": "r1", "request": body}
    await query._handle_control_request(request)  # type: ignore[arg-type]
    assert transport.written[-1]["response"]["subtype"] == "error"  # unsupported, unwrapped

    asked: list[Any] = []
    gave_up: list[bool] = []

    async def answer(sent: Any) -> dict[str, Any]:
        asked.append(sent)
        if sent.get("message") == "never":
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                gave_up.append(True)
                raise
        return {"action": "accept", "content": {"a": 1}}

    assert compat.answer_elicitations(SimpleNamespace(_query=query), answer)  # type: ignore[arg-type]
    await query._handle_control_request(request)  # type: ignore[arg-type]
    assert asked == [body]
    assert transport.written[-1] == {
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": "r1",
            "response": {"action": "accept", "content": {"a": 1}},
        },
    }
    # Another subtype still reaches the SDK's own handling.
    other = {"type": "control_request", "request_id": "r2", "request": {"subtype": "nope"}}
    await query._handle_control_request(other)  # type: ignore[arg-type]
    assert transport.written[-1]["response"]["request_id"] == "r2"
    assert transport.written[-1]["response"]["subtype"] == "error"
    # The SDK runs each request through the wrapped method, in flight under its id: Claude
    # Code's `control_cancel_request` cancels it, and nothing is written for it.
    pending = {**request, "request_id": "r3", "request": {**body, "message": "never"}}
    count = len(transport.written)
    query._spawn_control_request_handler(pending)  # type: ignore[arg-type]
    while len(asked) < 2:
        await asyncio.sleep(0)
    query._inflight_requests["r3"].cancel()
    while not gave_up:
        await asyncio.sleep(0)
    await asyncio.sleep(0.05)
    assert len(transport.written) == count
    assert compat.answer_elicitations(SimpleNamespace(_query=None), answer) is False  # type: ignore[arg-type]


def test_the_sdk_passes_on_a_hook_event_its_type_does_not_list() -> None:
    # `adapter.claude.hooks` registers PostCompact, PostModelSwitch and the task hooks, which
    # `HookEvent` does not name: the SDK must still hand them to the CLI by name (the e2e
    # compaction and model-switch tests see them fire).
    from typing import get_args

    from claude_agent_sdk.types import HookEvent, _hooks_to_internal_format

    from adapter.claude.hooks import ClaudeHooks

    listed = {name for literal in get_args(HookEvent) for name in get_args(literal)}
    # When it is listed, drop the cast.
    assert "PreCompact" in listed and "PostCompact" not in listed
    internal = _hooks_to_internal_format(ClaudeHooks().options())
    # No `Elicitation` hook: the CLI ignores a callback's answer (adapter.claude.hooks).
    assert list(internal) == ["PostCompact", "TaskCreated", "TaskCompleted", "PostModelSwitch"]
    assert all(len(internal[name][0]["hooks"]) == 1 for name in internal)
    assert "TaskCreated" not in listed and "TaskCompleted" not in listed
    assert "PostModelSwitch" not in listed


# In a fresh interpreter (this one imported anyio's asyncio backend long ago): the SDK's
# transport module's `anyio`, as `spawn_before_the_backend` leaves it, starts `cat` before the
# backend is imported, and gives what `anyio.open_process` gives once it is.
EARLY_SPAWN = """
import asyncio, json, subprocess, sys

import anyio
from adapter.claude import sdk_compat
from claude_agent_sdk._internal.transport import subprocess_cli

BACKEND = sdk_compat.ASYNCIO_BACKEND
seen = {}
execute = subprocess.Popen._execute_child

def noting(self, *args, **kwargs):
    seen.setdefault("backend at the fork", BACKEND in sys.modules)
    return execute(self, *args, **kwargs)

subprocess.Popen._execute_child = noting

async def talk(open_process):
    process = await open_process(
        ["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, cwd=None, env=None
    )
    found = sdk_compat._stdout_fd(process) is not None
    await process.stdin.send(b"hi")
    await process.stdin.aclose()
    out = await process.stdout.receive()
    code = await process.wait()
    return {
        "types": [type(x).__qualname__ for x in (process, process.stdin, process.stdout)],
        "stderr": process.stderr is None,
        "pipe found": found,
        "out": out.decode(),
        "code": code,
    }

async def main():
    sdk_compat.spawn_before_the_backend()
    sdk_anyio = subprocess_cli.anyio
    lock = sdk_anyio.Lock()
    seen["lock"] = type(lock).__name__
    seen["backend after the lock"] = BACKEND in sys.modules
    seen["early"] = await talk(sdk_anyio.open_process)
    async with lock:  # the backend's lock, made now
        seen["locked"] = lock.locked()
    await lock.acquire()  # as the transport's close takes it
    seen["locked"] = seen["locked"] and lock.locked()
    lock.release()
    seen["locked"] = seen["locked"] and not lock.locked()
    seen["ordinary"] = await talk(anyio.open_process)
    seen["lock after"] = type(sdk_anyio.Lock()).__name__
    seen["same module"] = sdk_anyio.TASK_STATUS_IGNORED is anyio.TASK_STATUS_IGNORED

asyncio.run(main())
print(json.dumps(seen))
"""


def test_the_sdks_transport_spawns_before_anyios_backend_and_gets_what_anyio_gives() -> None:
    seen = printed_json(EARLY_SPAWN)
    assert seen["backend at the fork"] is False  # the first spawn came before the import
    assert seen["lock"] == "_LockOnFirstUse" and seen["backend after the lock"] is False
    assert seen["locked"] is True
    assert seen["early"] == seen["ordinary"]
    assert seen["early"]["out"] == "hi" and seen["early"]["code"] == 0
    assert seen["early"]["pipe found"] is True  # `ExitBoundedTransport.silent` can look
    assert seen["early"]["types"] == ["Process", "StreamWriterWrapper", "StreamReaderWrapper"]
    assert seen["lock after"] == "Lock" and seen["same module"] is True


def test_anyios_backend_builds_its_process_as_the_early_spawn_does() -> None:
    import ast
    import dataclasses
    import textwrap

    from anyio._backends import _asyncio as backend
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    fields = [field.name for field in dataclasses.fields(backend.Process)]
    assert fields == ["_process", "_stdin", "_stdout", "_stderr", "_exited", "_transport"]
    opened = inspect.getsource(backend.AsyncIOBackend.open_process)
    assert "loop.subprocess_exec(\n                _ProcessStreamProtocol," in opened
    assert "protocol.exited,\n            transport," in opened
    protocol = inspect.getsource(backend._ProcessStreamProtocol)
    assert "super().__init__(limit=2**16, loop=asyncio.get_running_loop())" in protocol
    assert "self.exited.set()" in protocol
    # What the transport calls on `anyio`: a lock made with it, one `open_process` (with the
    # keywords the early spawn takes; any other goes to anyio's own).
    tree = ast.parse(textwrap.dedent(inspect.getsource(SubprocessCLITransport)))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "anyio"
    ]
    names = sorted({call.func.attr for call in calls if isinstance(call.func, ast.Attribute)})
    assert {"Lock", "open_process"} <= set(names)
    spawns = [
        c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "open_process"
    ]
    assert len(spawns) == 1
    assert {k.arg for k in spawns[0].keywords} <= {
        "stdin",
        "stdout",
        "stderr",
        "cwd",
        "env",
        "user",
    }


def _looking(process: Any) -> Any:
    """An `ExitBoundedTransport` with only what `silent` uses, looking at `process`'s output
    pipe (found through anyio's process's private `_transport`, asyncio's subprocess
    transport, whichever way the process was opened) and hearing its reads."""
    transport: Any = compat.ExitBoundedTransport.__new__(compat.ExitBoundedTransport)
    transport._heard = False
    transport._stdout_fd = compat._stdout_fd(process, transport._hear)
    assert transport._stdout_fd is not None
    return transport


def test_a_look_at_claudes_output_pipe_reads_nothing_from_it() -> None:
    # A pipe the event loop does not read: what `silent` sees waiting is all still there after.
    read_end, write_end = os.pipe()
    transport: Any = compat.ExitBoundedTransport.__new__(compat.ExitBoundedTransport)
    transport._heard = False
    transport._stdout_fd = read_end
    try:
        assert transport.silent()  # nothing written yet
        os.write(write_end, b"hello\n")
        assert not transport.silent() and not transport.silent()
        assert os.read(read_end, 100) == b"hello\n"
    finally:
        os.close(read_end)
        os.close(write_end)


@pytest.mark.asyncio
async def test_claude_has_spoken_once_the_loop_read_its_bytes_though_nobody_took_them() -> None:
    # asyncio hands what it read from a subprocess's pipe to the stream a turn later, and the
    # SDK's reader takes it later still: the pipe is empty again by then, and Claude has spoken.
    import subprocess

    import anyio

    process = await anyio.open_process(
        ["sh", "-c", 'read line; echo "$line"; read line'],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    transport = _looking(process)
    assert process.stdin is not None and process.stdout is not None
    try:
        assert transport.silent()
        await process.stdin.send(b"hello\n")
        with anyio.fail_after(30):
            while not transport._heard:  # until the event loop has read the line
                await anyio.sleep(0.01)
        # Read by the loop, and by nobody else: the pipe is empty, the line waits for its reader.
        waiting, _, _ = select.select([transport._stdout_fd], [], [], 0)
        assert not waiting and not transport.silent()
        assert await process.stdout.receive() == b"hello\n"
        assert not transport.silent()
        await process.stdin.send(b"bye\n")
        with anyio.fail_after(30):
            assert await process.wait() == 0  # the pipe's end passed through, as before
    finally:
        await process.aclose()


@pytest.mark.asyncio
async def test_a_pipe_that_ends_unwritten_counts_as_heard() -> None:
    # Claude gone before writing anything: nothing more to wait for, and no later look at a
    # descriptor asyncio has closed (its number may be another file's by then).
    import subprocess

    import anyio

    process = await anyio.open_process(
        ["sh", "-c", "read line"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    transport = _looking(process)
    assert transport.silent()
    try:
        assert process.stdin is not None
        await process.stdin.aclose()  # it reads the end of its input and exits, silent
        with anyio.fail_after(30):
            await process.wait()
            while not transport._heard:
                await anyio.sleep(0.01)
        assert not transport.silent()
    finally:
        await process.aclose()


# In a fresh interpreter: the patch is applied where the spawn path is imported, once, and
# making a transport applies nothing.
PATCH_POINT = """
import json

import anyio
from adapter.claude import sdk_compat
from claude_agent_sdk import ClaudeAgentOptions
from claude_agent_sdk._internal.transport import subprocess_cli

seen = {}
options = sdk_compat.configure_can_use_tool(ClaudeAgentOptions())
sdk_compat.ExitBoundedTransport(prompt="", options=options)
seen["after a transport"] = subprocess_cli.anyio is anyio
from adapter.claude import claude_runtime

patched = subprocess_cli.anyio
seen["after the import"] = type(patched).__name__
sdk_compat.spawn_before_the_backend()
seen["again"] = subprocess_cli.anyio is patched
print(json.dumps(seen))
"""


def test_the_early_spawn_patch_is_applied_by_importing_the_spawn_path_not_by_a_constructor() -> (
    None
):
    seen = printed_json(PATCH_POINT)
    assert seen == {"after a transport": True, "after the import": "_TransportAnyio", "again": True}
