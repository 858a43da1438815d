"""Every place the adapter reaches past `claude-agent-sdk`'s public API, in one module.

Each touchpoint is pinned by `tests/shell/test_compat.py`, which fails when an upgrade of
`claude-agent-sdk` (0.2.189) moves or changes it. `acp`'s touchpoints are in
`adapter/wire/acp_compat.py`; the core's one `transitions` touchpoint lives in `fsm/machine.py`,
since `fsm/` may not import the adapter; the same test file pins all three.

- `parse_message`: the SDK's frame parser, so that one frame it cannot parse is skipped instead
  of ending `receive_messages` (it raises inside that generator).
- `raw_frames`: the client's private `_query`, whose private `_message_receive` stream holds
  the raw dicts its `receive_messages` yields; read as that method reads it (`end` ends it,
  `error` raises), a buffered frame taken without a turn of the event loop.
- `ExitBoundedTransport`: the SDK's subprocess transport with its private `_process` wrapped so
  that waiting for a Claude that closed its output but stays alive is bounded, and its private
  `_stdout_stream` decoding invalid UTF-8 as U+FFFD instead of failing; and the module's
  private `_parse_stdout_line` wrapped so that a frame nested too deeply for `json` is read
  with its deepest values truncated (`adapter/wire/deep_json.py`) instead of ending the reader.
- `ExitBoundedTransport.silent`: anyio's process's private `_transport` (asyncio's subprocess
  transport), to look at Claude's output pipe without reading it: work done ahead while a
  session's Claude starts stops once Claude has written (`adapter/agent/work_ahead.py`). The
  pipe's own transport (public: `get_pipe_transport`, `get_protocol`, `set_protocol`) gets a
  protocol that notes each read before passing it on, so that bytes read and not yet handed to
  the SDK's reader count as written too.
- `configure_can_use_tool`: the SDK's private option check `ClaudeSDKClient.connect` applies;
  a custom transport must get the options configured the same way.
- `send_control_request`: the client's private `_query._send_control_request`, for a control
  request the pinned SDK has no wrapper for (`apply_flag_settings`, the effort picker).
- `sanitize_path`: the SDK's rule for a project folder's name (where transcripts live).
- `list_regular_transcripts_only`: the private `sessions._read_session_lite` (`list_sessions`'
  head and tail reads) through `open_regular` (a FIFO hung it), a cut head made listable.
- Two import-time touchpoints must run before `acp` and the SDK are first imported, so they
  live in `adapter/lean_imports.py` (pinned by `tests/shell/test_lean_imports.py`): pydantic's
  private `ConfigWrapper.for_model`, to build `acp.schema`'s models on first use, and the SDK
  package registered without its `__init__` (which imports `mcp`), its names loaded from submodules.
  A third stands in for `opentelemetry.propagate`, which the SDK's transport imports at each
  spawn to pass on a trace context, until there is one to pass on (or anything else is used).
- `ExitBoundedTransport.take_hints`, `with_hints`: the SDK builds a `can_use_tool` callback's
  context without the CLI's permission hints (`default_to_no`, `suppress_always_allow_rule`,
  `matched_ask_rule`) and the MCP server of the tool (`mcp_server`); the transport notes them
  from the raw request as it reads it, and the context handed on is a `HintedContext` that
  carries them.
- `answer_elicitations`: the private `_query._handle_control_request`, wrapped to answer the
  `elicitation` request the SDK refuses (CLI 2.1.332 ignores an `Elicitation` hook's answer).
- `send_frames_without_turns`: the private `_query._message_send`, the sending side of the
  stream its reader task routes frames through, wrapped so that a frame goes in without a turn
  of the event loop while the buffer has room.
- `spawn_before_the_backend`: the `anyio` the SDK's transport module calls, replaced by one
  whose `Lock` is anyio's, made on first use (as anyio's own `LockAdapter`), and whose
  `open_process` starts the process first and imports anyio's asyncio backend after, to wrap
  it in the backend's private `Process` exactly as `anyio.open_process` does; once the backend
  is imported, both are anyio's. A fresh process's first Claude starts about 9 ms sooner: the
  import runs while Claude starts up (`serving.LateTaskGroup`). Applied at one point, when the
  spawn path is imported (`adapter/claude/claude_runtime.py`, the one maker of this transport),
  not by constructing anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import select
import sys
import types
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import anyio
from anyio.streams.text import TextReceiveStream
from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient
from claude_agent_sdk._internal.message_parser import parse_message
from claude_agent_sdk._internal.transport import subprocess_cli
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport
from claude_agent_sdk.types import ToolPermissionContext, _configure_can_use_tool

from adapter.wire.deep_json import MAX_DEPTH, loads_shallow, too_deep
from adapter.wire.json_codec import decode_object_fast
from adapter.wire.private_files import open_regular

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream

__all__ = [
    "ExitBoundedTransport",
    "HintedContext",
    "PermissionHints",
    "answer_elicitations",
    "configure_can_use_tool",
    "list_regular_transcripts_only",
    "parse_message",
    "raw_frames",
    "sanitize_path",
    "send_control_request",
    "send_frames_without_turns",
    "spawn_before_the_backend",
    "with_hints",
]

log = logging.getLogger(__name__)

# After Claude closes its output, how long its process may linger before it is killed.
EXIT_GRACE_SECONDS = 5.0


def configure_can_use_tool(options: ClaudeAgentOptions) -> ClaudeAgentOptions:
    return _configure_can_use_tool(options)


def answer_elicitations(client: ClaudeSDKClient, answer: Callable[[Any], Awaitable[Any]]) -> bool:
    """Once connected, `answer` gives the response (`{action, content?}`) to each `elicitation`
    request (False: no query yet); the SDK tracks each in flight, a cancel request cancels it."""
    if (query := client._query) is None:
        return False
    handle = query._handle_control_request

    async def routed(request: Any) -> Any:
        body, ident = request.get("request"), request.get("request_id")
        if not isinstance(body, dict) or body.get("subtype") != "elicitation":
            return await handle(request)
        try:
            reply = {"subtype": "success", "request_id": ident, "response": await answer(body)}
        except Exception as exc:  # our fault: Claude Code hears an error, the server `cancel`
            log.exception("an MCP elicitation could not be answered")
            reply = {"subtype": "error", "request_id": ident, "error": type(exc).__name__}
        frame = json.dumps({"type": "control_response", "response": reply}) + "\n"
        with contextlib.suppress(Exception):  # Claude is gone: nobody is left to answer
            await query.transport.write(frame)

    query._handle_control_request = routed
    return True


def sanitize_path(path: str) -> str:
    # Imported here, not with the module: a session's spawn needs this module, a new
    # session never this rule (docs/performance.md).
    from claude_agent_sdk._internal.sessions import _sanitize_path

    return _sanitize_path(path)


def _read_deep_frames_shallow() -> None:
    """From now on a frame from Claude nested too deeply for `json` is read with its deepest
    values shown truncated, instead of raising `RecursionError` out of the SDK's reader (which
    failed the turn as a lost connection). Idempotent."""
    from claude_agent_sdk import CLIJSONDecodeError
    from claude_agent_sdk._internal.transport import subprocess_cli

    strict = subprocess_cli._parse_stdout_line
    if getattr(strict, "reads_deep_frames", False):
        return

    def parse(line: str) -> dict[str, Any] | None:
        # Bounded before parsing (adapter.wire.deep_json): Python 3.13's parser takes 5,000
        # levels that 3.11 refuses, and every walk downstream would fail on them later.
        if not too_deep(line):
            # orjson where it reads the same value: a streamed answer is one frame per delta,
            # and the standard library's parse was a twentieth of the agent's CPU per delta.
            fast = decode_object_fast(line)
            if fast is not None:
                return fast
            try:
                return strict(line)
            except RecursionError:  # not reachable past the scan; read shallow all the same
                pass
        try:
            data: dict[str, Any] = loads_shallow(line.strip())
        except ValueError as exc:
            raise CLIJSONDecodeError(line, exc) from exc
        log.warning("a frame from Claude nested over %d levels: shown truncated", MAX_DEPTH)
        return data

    parse.reads_deep_frames = True  # type: ignore[attr-defined]
    subprocess_cli._parse_stdout_line = parse


def list_regular_transcripts_only() -> None:
    """From now on the SDK's session listing reads only regular files (idempotent)."""
    from claude_agent_sdk._internal import sessions

    if sessions._read_session_lite is _read_regular_session_lite:
        return
    sessions._read_session_lite = _read_regular_session_lite


def _read_regular_session_lite(file_path: Any) -> Any:
    """The SDK's `_read_session_lite` (0.2.189) opened by `open_regular` (a FIFO, device or
    socket named `<uuid>.jsonl` is skipped, never waited on), a cut head made listable."""
    from claude_agent_sdk._internal import sessions

    from adapter.claude.transcript_heads import with_cut_first_prompt

    block = sessions.LITE_READ_BUF_SIZE
    try:
        with open_regular(file_path) as file:
            found = os.fstat(file.fileno())
            head_bytes = file.read(block)
            if not head_bytes:
                return None
            head = head_bytes.decode("utf-8", errors="replace")
            head = with_cut_first_prompt(head, cut=found.st_size > len(head_bytes))
            tail_offset = max(0, found.st_size - block)
            if tail_offset == 0:
                tail = head
            else:
                file.seek(tail_offset)
                tail = file.read(block).decode("utf-8", errors="replace")
            return sessions._LiteSessionFile(
                mtime=int(found.st_mtime * 1000), size=found.st_size, head=head, tail=tail
            )
    except OSError:
        return None


class _SendWithoutTurns:
    """The sending side of the SDK's message stream, except that a frame its reader task routes
    to the client while the buffer has room goes in without `send`'s turn of the event loop:
    the reader then routes the frames of one read of Claude's output together, and the
    adapter's reader takes them together (`_drained`), where before each frame cost both tasks
    a turn. A full buffer waits as before, so the buffer's bound and the reader's pauses stay
    the SDK's; a closed stream raises as before."""

    __slots__ = ("_stream",)

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def send(self, item: Any) -> None:
        try:
            self._stream.send_nowait(item)
        except anyio.WouldBlock:
            await self._stream.send(item)

    def send_nowait(self, item: Any) -> None:
        self._stream.send_nowait(item)

    def close(self) -> None:
        self._stream.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def send_frames_without_turns(client: ClaudeSDKClient) -> bool:
    """Once connected, the SDK's reader hands on Claude's frames without a turn of the event
    loop each while its buffer has room (`_SendWithoutTurns`); False: no query yet."""
    query = client._query
    if query is None:
        return False
    if not isinstance(query._message_send, _SendWithoutTurns):
        query._message_send = _SendWithoutTurns(query._message_send)
    return True


def raw_frames(client: ClaudeSDKClient) -> AsyncIterator[dict[str, Any]]:
    """Claude's frames as the SDK read them, before parsing (nothing before `connect`)."""
    query = client._query
    if query is None:
        return _no_frames()
    return _drained(query._message_receive)


async def _drained(
    stream: MemoryObjectReceiveStream[dict[str, Any]],
) -> AsyncIterator[dict[str, Any]]:
    """The SDK's `Query.receive_messages` (the frames its reader task routed to the client,
    ended by its `end` frame, its `error` frame raised), except that a frame already waiting in
    the stream's buffer is taken without the receive's turn of the event loop (every streamed
    delta passes through here). The wait for the next frame when none is buffered is the
    stream's own, and so is its end."""
    while True:
        try:
            message = stream.receive_nowait()
        except anyio.WouldBlock:
            try:
                message = await stream.receive()
            except anyio.EndOfStream:
                return
        except anyio.EndOfStream:
            return
        kind = message.get("type")
        if kind == "end":
            return
        if kind == "error":
            exc = message.get("exception")
            if isinstance(exc, Exception):
                raise exc
            raise Exception(message.get("error", "Unknown error"))
        yield message


async def _no_frames() -> AsyncIterator[dict[str, Any]]:
    return
    yield  # an async generator that yields nothing


async def send_control_request(client: ClaudeSDKClient, request: dict[str, Any]) -> Any:
    """Send a control request to Claude Code; raises `CLIConnectionError` before `connect`."""
    from claude_agent_sdk import CLIConnectionError

    query = client._query
    if query is None:
        raise CLIConnectionError("Not connected.")
    return await query._send_control_request(request)


class _ExitBoundedProcess:
    """The Claude process, except that waiting for its exit is bounded.

    After Claude's stdout reaches EOF the SDK waits for the process to exit before it ends the
    stream; a process that closed its output but stays alive would hold the turn forever. Past
    the grace period the process is killed, which ends the stream like any other exit.
    """

    def __init__(self, process: Any) -> None:
        self._process = process

    def __getattr__(self, name: str) -> Any:
        return getattr(self._process, name)

    # Once Claude is reaped the SDK discards `self._process` (this wrapper) from its private
    # `_ACTIVE_CHILDREN`: equal to what it wraps, or every closed process stayed in that set.
    def __hash__(self) -> int:
        return hash(self._process)

    def __eq__(self, other: object) -> bool:
        return other is self or other is self._process

    async def wait(self) -> Any:
        with anyio.move_on_after(EXIT_GRACE_SECONDS):
            return await self._process.wait()
        log.warning("Claude closed its output but did not exit; stopping it")
        self._process.kill()
        return await self._process.wait()


@dataclasses.dataclass(frozen=True, slots=True)
class PermissionHints:
    """What the CLI says about how to ask."""

    default_to_no: bool = False  # `default_to_no`: the reject option goes first
    # `suppress_always_allow_rule`, or a `matched_ask_rule` (a user's ask rule forced the
    # question): no "always" option.
    no_always: bool = False
    # `mcp_server`, as the CLI wrote it: which MCP server serves an `mcp__*` tool, and where its
    # definition came from (`{name, source}`; `fsm.permission_card` reads it).
    mcp_server: object = None


def _hints_in(frame: object) -> tuple[str, PermissionHints] | None:
    """The tool call and hints of a raw `can_use_tool` control request that has any."""
    if not isinstance(frame, Mapping) or frame.get("type") != "control_request":
        return None
    request = frame.get("request")
    if not isinstance(request, Mapping) or request.get("subtype") != "can_use_tool":
        return None
    tool_use_id = request.get("tool_use_id")
    hints = PermissionHints(
        default_to_no=request.get("default_to_no") is True,
        no_always=request.get("suppress_always_allow_rule") is True
        or bool(request.get("matched_ask_rule")),
        mcp_server=request.get("mcp_server"),
    )
    if not isinstance(tool_use_id, str) or hints == PermissionHints():
        return None
    return tool_use_id, hints


@dataclasses.dataclass
class HintedContext(ToolPermissionContext):
    """The SDK's permission context plus the CLI's hints it drops."""

    hints: PermissionHints = dataclasses.field(default_factory=PermissionHints)


def with_hints(context: ToolPermissionContext, hints: PermissionHints) -> HintedContext:
    fields = {f.name: getattr(context, f.name) for f in dataclasses.fields(context)}
    return HintedContext(**{**fields, "hints": hints})


ASYNCIO_BACKEND = "anyio._backends._asyncio"


def spawn_before_the_backend() -> None:
    """Have the SDK's transport start Claude before anyio's asyncio backend is imported, when it
    is not yet (see the module doc); idempotent."""
    if not isinstance(vars(subprocess_cli)["anyio"], _TransportAnyio):
        vars(subprocess_cli)["anyio"] = _TransportAnyio()


class _TransportAnyio(types.ModuleType):
    """`anyio` for the SDK's transport module: its own names, but for `Lock` and `open_process`
    while the asyncio backend is not imported."""

    def __init__(self) -> None:
        super().__init__(anyio.__name__, self.__doc__)

    def __getattr__(self, name: str) -> Any:
        return getattr(anyio, name)

    @staticmethod
    def Lock(*, fast_acquire: bool = False) -> Any:
        if ASYNCIO_BACKEND in sys.modules:
            return anyio.Lock(fast_acquire=fast_acquire)
        return _LockOnFirstUse(fast_acquire)

    @staticmethod
    async def open_process(
        command: Any,
        *,
        stdin: Any,
        stdout: Any,
        stderr: Any,
        cwd: Any = None,
        env: Any = None,
        user: Any = None,
        **more: Any,
    ) -> Any:
        if ASYNCIO_BACKEND in sys.modules or more or isinstance(command, str | bytes):
            return await anyio.open_process(
                command,
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                cwd=cwd,
                env=env,
                user=user,
                **more,
            )
        # What anyio's asyncio backend does (`open_process`), with the backend imported once
        # the process runs.
        loop = asyncio.get_running_loop()
        transport, protocol = await loop.subprocess_exec(
            _ProcessStreamProtocol,
            *command,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            cwd=cwd,
            env=env,
            startupinfo=None,
            creationflags=0,
            start_new_session=False,
            pass_fds=(),
            **({} if user is None else {"user": user}),
        )
        from anyio._backends import _asyncio as backend

        process = asyncio.subprocess.Process(transport, protocol, loop)
        return backend.Process(
            process,
            backend.StreamWriterWrapper(process.stdin) if process.stdin else None,
            backend.StreamReaderWrapper(process.stdout) if process.stdout else None,
            backend.StreamReaderWrapper(process.stderr) if process.stderr else None,
            protocol.exited,
            transport,
        )


class _NotingReads(asyncio.Protocol):
    """A read pipe's protocol in front of asyncio's own: `heard` is called when the loop has
    read bytes, before they go on (which asyncio's subprocess transport defers a turn), and when
    the pipe ends."""

    def __init__(self, inner: asyncio.BaseProtocol, heard: Callable[[], None]) -> None:
        self._inner = inner
        self._heard = heard

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self._heard()
        cast(asyncio.Protocol, self._inner).data_received(data)

    def eof_received(self) -> bool | None:
        self._heard()  # Claude closed its output: nothing more to wait for
        return cast(asyncio.Protocol, self._inner).eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._heard()  # and the pipe's descriptor is closed: no look at it after this
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()


def _stdout_fd(process: Any, heard: Callable[[], None] | None = None) -> int | None:
    """The file descriptor of the output pipe of anyio's process (its private `_transport`,
    asyncio's subprocess transport, pinned), or None where it has none; `heard`, when given, is
    called each time the event loop reads from that pipe (`_NotingReads`)."""
    transport = getattr(process, "_transport", None)
    if not isinstance(transport, asyncio.SubprocessTransport):
        return None
    pipe = transport.get_pipe_transport(1)
    if pipe is None:
        return None
    source = pipe.get_extra_info("pipe")
    try:
        fd = int(source.fileno()) if source is not None else None
    except (OSError, ValueError):
        return None
    if fd is not None and heard is not None:
        pipe.set_protocol(_NotingReads(pipe.get_protocol(), heard))
    return fd


class _LockOnFirstUse:
    """anyio's lock, made when first used (as anyio's own `LockAdapter`, made outside an event
    loop, does; importing that module costs about 1 ms more before the spawn)."""

    def __init__(self, fast_acquire: bool) -> None:
        self._fast_acquire = fast_acquire
        self._lock: anyio.Lock | None = None

    def _real(self) -> anyio.Lock:
        if self._lock is None:
            self._lock = anyio.Lock(fast_acquire=self._fast_acquire)
        return self._lock

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real(), name)

    async def __aenter__(self) -> None:
        await self._real().acquire()

    async def __aexit__(self, *exc: object) -> None:
        self._real().release()


class _ProcessStreamProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """anyio's asyncio backend's protocol of the same name: asyncio's, noting the exit."""

    def __init__(self) -> None:
        super().__init__(limit=2**16, loop=asyncio.get_running_loop())
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


class ExitBoundedTransport(SubprocessCLITransport):
    # When given, set after each write to Claude (`ClaudeRuntime.spawn` waits for the first).
    written: anyio.Event | None = None

    def __init__(
        self, prompt: str | AsyncIterable[dict[str, Any]], options: ClaudeAgentOptions
    ) -> None:
        super().__init__(prompt=prompt, options=options)
        # The hints of `can_use_tool` requests read and not yet asked, by tool call.
        self._hints: dict[str, PermissionHints] = {}
        # The result Claude Code writes when it will not start and says why
        # (`startup_failure_reason`), as read: the handshake may fail before it sees it.
        self.startup_failure: dict[str, Any] | None = None
        self._stdout_fd: int | None = None  # Claude's output pipe, for `silent`
        self._heard = False  # the event loop has read something from that pipe, for `silent`

    def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        return self._noting_hints(super().read_messages())

    async def _noting_hints(
        self, frames: AsyncIterator[dict[str, Any]]
    ) -> AsyncIterator[dict[str, Any]]:
        async for frame in frames:
            found = _hints_in(frame)
            if found is not None:
                self._hints[found[0]] = found[1]
            elif isinstance(frame, dict) and "startup_failure_reason" in frame:
                self.startup_failure = frame
            yield frame

    def take_hints(self, tool_use_id: str | None) -> PermissionHints:
        """The hints of the `can_use_tool` request for this tool call (once)."""
        return self._hints.pop(tool_use_id or "", PermissionHints())

    async def write(self, data: str) -> None:
        await super().write(data)
        if self.written is not None:
            self.written.set()

    async def connect(self) -> None:
        if self.process is not None:
            return  # spawned already (`ClaudeRuntime.spawn`): the client's connect goes on
        _read_deep_frames_shallow()
        await super().connect()
        if self._process is not None:
            self._stdout_fd = _stdout_fd(self._process, self._hear)
            if self._process.stdout is not None and self._stdout_stream is not None:
                # The SDK decodes Claude's stdout strictly: one invalid UTF-8 byte raised out
                # of its reader and the text around it never arrived. Nothing is read yet, so
                # the stream is swapped for one that shows bad bytes as U+FFFD.
                self._stdout_stream = TextReceiveStream(self._process.stdout, errors="replace")
            self._process = _ExitBoundedProcess(self._process)  # type: ignore[assignment]

    @property
    def process(self) -> Any:
        """Claude's process (the SDK's private attribute, pinned), or None before connect."""
        return self._process

    def _hear(self) -> None:
        self._heard = True

    def silent(self) -> bool:
        """Whether Claude has written nothing yet: the event loop has read nothing from its
        output pipe, and the pipe holds nothing (a look that reads nothing). False when there
        is no pipe to look at, or it ended. Bytes the loop has read count though the pipe is
        empty again: asyncio hands them to the SDK's reader a turn later, and the reader's
        frame ends the handshake turns after that (measured: work begun in those turns held a
        fresh process's resume answer up by about 6 ms)."""
        if self._stdout_fd is None or self._heard:
            return False
        try:
            waiting, _, _ = select.select([self._stdout_fd], [], [], 0)
        except (OSError, ValueError):  # closed meanwhile
            return False
        return not waiting

    async def close(self) -> None:
        process = self._process
        await super().close()
        # The SDK leaves Claude's stdout pipe open when it stopped reading mid-line (a message
        # over the limit): asyncio's transport (our wrapper, then anyio's, then asyncio's
        # process) is closed here, or it complains at exit about a transport left open.
        inner = getattr(getattr(process, "_process", None), "_process", None)
        transport = getattr(inner, "_transport", None)
        if isinstance(transport, asyncio.SubprocessTransport):
            transport.close()
