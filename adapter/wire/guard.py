"""The guard between stdin and the `acp` connection: every line gets the answer JSON-RPC 2.0
requires, and only well-formed messages reach the SDK.

The pinned `acp` connection (0.12.1) calls `.get` on whatever a line parsed to, so one `[]`,
`42` or `null` ended the agent; a line it could not parse was logged and never answered; a
non-string `method` got -32603 or -32601; and its line limit was not enforced. It accepts a
message-level `Transport` in place of byte streams, and `GuardedTransport` is one:

- lines are cut from stdin chunks by `LineSplitter`, which holds at most `limit` bytes of one
  line: a longer line is dropped as it streams in and answered -32600;
- a line that is not UTF-8 JSON (invalid bytes, a NUL, nesting too deep to parse) is answered
  -32700 with id null; a JSON value that is not a request (an array, a number, a string, null,
  a batch, a non-string `method`) -32600 (a batch gets one error per request in it, as the spec
  asks); before `initialize` has succeeded, every other request is answered -32600;
- a `$/cancel_request` for a running `session/prompt` becomes its session's `session/cancel`
  (`adapter.wire.cancel_requests`; `acp` does not route the method), any other is dropped;
- at end of input (or when `stop` is called, on a signal), the client's requests to us that are
  still running are answered before `receive` reports the end: `on_eof` (the agent's shutdown)
  cancels the prompts, and requests we sent the client that it can no longer answer fail
  (first, so their waiters move on). The shutdown runs inside that last `receive` call, not in
  a task of its own: nothing of it outlives the connection's receive loop, and its failures
  are logged there.

Each rejected line is one warning in the log, naming the reason and never the client's text.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from adapter.wire.cancel_requests import CANCEL_REQUEST, OpenPrompts
from adapter.wire.guard_rules import (
    INVALID_REQUEST,
    PARSE_ERROR,
    Line,
    LineSplitter,
    Reply,
    error_reply,
    judge,
    masked,
    parse,
    worded,
)
from adapter.wire.json_codec import encode_frame, encode_json
from adapter.wire.response_watch import ResponseWatch
from adapter.wire.stdio import ChunkReader
from adapter.wire.stdout_transports import GatheringTransport

__all__ = ["EOF_DRAIN_SECONDS", "GuardedTransport"]

log = logging.getLogger(__name__)

# At end of input, how long the requests still running may take to be answered (a bound on a
# hang: the agent's shutdown answers prompts within a few seconds).
EOF_DRAIN_SECONDS = 30.0


class GuardedTransport:
    """An `acp` message transport over the agent's stdin and stdout (see the module doc)."""

    def __init__(
        self,
        reader: ChunkReader,
        writer: asyncio.StreamWriter,
        *,
        limit: int,
        on_eof: Callable[[], Awaitable[None]],
        private: Callable[[], tuple[str, ...]] = tuple,
    ) -> None:
        # Read at each error (docs/decisions.md#secrets): a provider's header values join later.
        self._private = private
        self._reader = reader
        self._writer = writer
        self._limit = limit
        self._on_eof = on_eof
        self._splitter = LineSplitter(limit)
        self._lines: collections.deque[Line] = collections.deque()
        self._write_lock = asyncio.Lock()
        self._initialized = False
        self.initialized = asyncio.Event()  # set once an `initialize` is answered with a result
        self._initialize_ids: set[Any] = set()
        # Set while no initialize is being answered: requests read after an initialize wait
        # for its answer, so a client that sends everything at once (a request file) works.
        self._settled = asyncio.Event()
        self._settled.set()
        # The client's requests passed on and not yet answered, by id (ids may repeat).
        self._open: collections.Counter[Any] = collections.Counter()
        self._prompts = OpenPrompts()  # for the client's `$/cancel_request` (acp has none)
        self._answered = asyncio.Event()
        # Our requests to the client, not yet answered.
        self._asked: set[Any] = set()
        self._ended = False
        self._shut = False  # the shutdown after the end of input has run
        self._pending: collections.deque[dict[str, Any]] = collections.deque()
        # For frames that must follow an answer (a session's command list after its setup).
        self.responses = ResponseWatch()

    def quiet(self) -> bool:
        """Whether the client leaves the agent idle: `initialize` answered, none of its requests
        open, nothing read and not yet passed on, no input waiting."""
        return (
            self._initialized
            and not self._open
            and not self._lines
            and not self._pending
            and not self._reader.buffered()
        )

    def stop(self) -> None:
        """Read no more input: what was read is answered, then the connection ends."""
        self._lines.clear()
        self._reader.stop()

    # --- acp's Transport ------------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> None:
        answer = "method" not in message and "id" in message
        if "method" in message and "id" in message:
            if self._ended:
                raise ConnectionError("the client closed its input")
            self._asked.add(message["id"])
        elif answer:
            self._note_answer(message)
        if isinstance(message.get("error"), dict):
            message = {**message, "error": self._safe_error(message["error"])}
        written = False
        try:
            # A response goes out now, not gathered with what follows (`stdout_transports`): the
            # client waits for it, and what the agent imports after `initialize` (anyio's
            # backend, a first session's side) must not hold it back.
            await self._write(message, now=answer)
            written = True
        finally:
            if answer:
                self.responses.written(message["id"], ok=written and "result" in message)

    async def receive(self) -> dict[str, Any] | None:
        message = await self._receive()
        if message is not None:
            # acp starts the message's handler next, from this context (`response_watch`).
            self.responses.received(message)
        return message

    async def _receive(self) -> dict[str, Any] | None:
        while True:
            if self._pending:
                return self._pending.popleft()
            if self._ended:
                # Our questions' failures are delivered (above): now the agent shuts down, in
                # this call, so nothing of it outlives the connection's receive loop.
                if not self._shut:
                    self._shut = True
                    await self._shut_down()
                return None
            await self._settled.wait()
            line = await self._next_line()
            if line is _END:
                self._end()
                continue
            message = await self._admit(line)
            if message is not None:
                return message

    async def close(self) -> None:
        self.responses.ended()
        async with self._write_lock:
            self._writer.close()

    # --- input ----------------------------------------------------------------------------

    async def _next_line(self) -> Line | object:
        while not self._lines:
            chunk = await self._reader.read()
            if not chunk:
                self._lines.extend(self._splitter.finish())
                if not self._lines:
                    return _END
                break
            self._lines.extend(self._splitter.push(chunk))
        return self._lines.popleft()

    async def _admit(self, line: Line | object) -> dict[str, Any] | None:
        """The message to pass on, or None when the line was answered here (or was empty)."""
        if line is None:
            reason = f"longer than the limit of {self._limit} bytes (CLAUDE_ACP_MAX_LINE_BYTES)"
            await self._reject(error_reply(INVALID_REQUEST, None, reason), reason)
            return None
        assert isinstance(line, bytes | bytearray)
        if not line or line.isspace():
            return None
        try:
            value = parse(line)
        except ValueError:
            await self._reject(error_reply(PARSE_ERROR, None, "not UTF-8 JSON"), "not UTF-8 JSON")
            return None
        del line  # the text is no longer needed; only the parsed value is kept
        message, reply, warning = judge(value, initialized=self._initialized)
        if warning is not None:
            await self._reject(reply, warning)
        if message is None:
            return None
        if message.get("method") == CANCEL_REQUEST and "id" not in message:
            return self._prompts.translate(message)
        if "method" in message and "id" in message:
            self._open[message["id"]] += 1
            self._prompts.note_request(message)
            self._answered.clear()
            if message["method"] == "initialize":
                self._initialize_ids.add(message["id"])
                self._settled.clear()
        elif "method" not in message:
            self._asked.discard(message["id"])
        return message

    async def _reject(self, reply: Reply | None, why: str) -> None:
        log.warning("rejected a line from the client: %s", why)
        if reply is not None:
            await self._write(reply)

    # --- output ---------------------------------------------------------------------------

    def _note_answer(self, message: dict[str, Any]) -> None:
        request_id = message["id"]
        self._prompts.note_answer(request_id)
        if self._open[request_id] > 0:
            self._open[request_id] -= 1
            if self._open[request_id] == 0:
                del self._open[request_id]
        if request_id in self._initialize_ids:
            self._initialize_ids.discard(request_id)
            self._initialized = self._initialized or "result" in message
            if self._initialized:
                self.initialized.set()
            if not self._initialize_ids:
                self._settled.set()
        if not self._open:
            self._answered.set()

    def _safe_error(self, error: dict[str, Any]) -> dict[str, Any]:
        """A JSON-RPC error as it may leave the agent (docs/decisions.md#secrets): its texts masked,
        and the `acp` SDK's answer to an exception of ours (-32603 with the exception's text as
        `details`) without that text: it is in the log. A bare message names its cause
        (`worded`). A `data` of null is left out: the
        `acp` SDK writes one on every error it builds, and clients that read `error.data`
        (Neovim's CodeCompanion) fail on the null and never end the turn."""
        data = error.get("data")
        if error.get("code") == -32603 and isinstance(data, dict) and "details" in data:
            data = {"reason": "a fault in claude-acp (its log file has the details)"}
        safe = {key: value for key, value in error.items() if key != "data"}
        message = worded(str(error.get("message", "")), data)
        safe["message"] = masked(message, self._private())
        if data is not None:
            safe["data"] = masked(data, self._private())
        return safe

    async def _write(self, payload: Reply, *, now: bool = False) -> None:
        data = encode_frame(payload)
        async with self._write_lock:
            self._writer.write(data)
            gathering = getattr(self._writer, "transport", None) if now else None
            if isinstance(gathering, GatheringTransport):
                gathering.flush()
            await self._writer.drain()

    async def send_session_updates(
        self, session_id: str, updates: Iterable[dict[str, Any]]
    ) -> None:
        """`session/update` notifications of one session, in order, in one write: a replay's
        bulk, where acp's sender (a lock, a drain and three layers per frame) was most of the
        cost. The envelope is encoded once; each update is encoded into it."""
        head = b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%s,"update":' % (
            encode_json(session_id)
        )
        data = b"".join(b"%s%s}}\n" % (head, encode_json(update)) for update in updates)
        async with self._write_lock:
            if self._writer.is_closing():
                raise ConnectionResetError("the client closed its end of stdout")
            self._writer.write(data)
            await self._writer.drain()

    # --- the end of input -----------------------------------------------------------------

    def _end(self) -> None:
        """Answer what was read: our own questions to the client fail (it can no longer
        answer them); once those answers are passed on, `receive` shuts the agent's sessions
        down and waits, boundedly, for the requests still running (`_shut_down`)."""
        self._ended = True
        for request_id in sorted(self._asked, key=str):
            self._pending.append(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32603, "message": "the client closed its input"},
                }
            )
        self._asked.clear()

    async def _shut_down(self) -> None:
        try:
            await self._on_eof()
        except Exception:
            log.warning("shutting down after the end of input failed", exc_info=True)
        if self._open:
            import anyio

            with anyio.move_on_after(EOF_DRAIN_SECONDS):
                await self._answered.wait()
            if self._open:
                log.warning("%d request(s) still unanswered at exit", len(self._open))


_END = object()
