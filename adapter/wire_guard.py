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
- at end of input (or when `stop` is called, on a signal), the client's requests to us that are
  still running are answered before `receive` reports the end: `on_eof` (the agent's shutdown)
  cancels the prompts, and requests we sent the client that it can no longer answer fail.

Each rejected line is one warning in the log, naming the reason and never the client's text.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from adapter.stdio import ChunkReader
from fsm.records import redact

__all__ = ["EOF_DRAIN_SECONDS", "GuardedTransport", "LineSplitter", "judge"]

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# At end of input, how long the requests still running may take to be answered (a bound on a
# hang: the agent's shutdown answers prompts within a few seconds).
EOF_DRAIN_SECONDS = 30.0

Line = bytes | bytearray | None  # None: a line longer than the limit, already dropped


class LineSplitter:
    """Newline-delimited lines out of chunks, keeping at most `limit` bytes of one line."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._skipping = False  # inside a line that is already over the limit

    def push(self, chunk: bytes) -> list[Line]:
        lines: list[Line] = []
        view = memoryview(chunk)
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            lines.append(self._complete(view[start:end]))
            start = end + 1
        self._keep(view[start:])
        return lines

    def finish(self) -> list[Line]:
        """The last line, when the input did not end with a newline."""
        if self._skipping or self._buffer:
            return [self._complete(memoryview(b""))]
        return []

    def _complete(self, piece: memoryview) -> Line:
        if self._skipping or len(self._buffer) + len(piece) > self._limit:
            self._skipping = False
            self._buffer = bytearray()
            return None
        if not self._buffer:
            return piece.tobytes()
        line = self._buffer
        line += piece
        self._buffer = bytearray()
        return line

    def _keep(self, piece: memoryview) -> None:
        if self._skipping or not piece:
            return
        if len(self._buffer) + len(piece) > self._limit:
            # Over the limit: what was kept is released now, the rest skipped as it arrives.
            self._skipping = True
            self._buffer = bytearray()
        else:
            self._buffer += piece


def _error(code: int, request_id: Any, reason: str) -> dict[str, Any]:
    message = "Parse error" if code == PARSE_ERROR else "Invalid Request"
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message, "data": {"reason": reason}},
    }


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse(line: bytes | bytearray) -> Any:
    """The JSON value of one line; raises ValueError when it is not UTF-8 JSON."""
    try:
        text = line.decode("utf-8")
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc


Reply = dict[str, Any] | list[dict[str, Any]]
Verdict = tuple[dict[str, Any] | None, Reply | None, str | None]


def judge(value: Any, *, initialized: bool) -> Verdict:
    """What to do with one parsed line: `(message to pass on, reply to send, why it was not
    passed on)`. The reason is also the reply's `data.reason`: fixed text, never the client's."""
    if isinstance(value, list):
        return None, _batch_reply(value), "batches are not supported"
    reason, request_id = _fault(value, initialized=initialized)
    if reason is None:
        return value, None, None
    if reason == _EARLY_NOTIFICATION:
        return None, None, reason  # a notification is never answered
    return None, _error(INVALID_REQUEST, request_id, reason), reason


_EARLY_NOTIFICATION = "a notification before initialize is dropped"


def _fault(value: Any, *, initialized: bool) -> tuple[str | None, Any]:
    """Why `value` is not a message to pass on (None if it is one), and the id to answer."""
    if not isinstance(value, dict):
        return "not a JSON-RPC object", None
    has_id = "id" in value
    request_id = value["id"] if has_id and _is_id(value["id"]) else None
    if "method" not in value:
        if request_id is not None and ("result" in value or "error" in value):
            return None, None  # a response to a request of ours
        return "neither a request nor a response", None
    if value.get("jsonrpc", "2.0") != "2.0":
        return 'jsonrpc must be "2.0"', request_id
    if not isinstance(value["method"], str):
        return "method must be a string", request_id
    if has_id and request_id is None:
        return "id must be a string or an integer", None
    if "params" in value and not isinstance(value["params"], dict | list):
        return "params must be an object or an array", request_id
    if not initialized and value["method"] != "initialize":
        return ("call initialize first" if has_id else _EARLY_NOTIFICATION), request_id
    return None, None


def _batch_reply(batch: list[Any]) -> dict[str, Any] | list[dict[str, Any]] | None:
    if not batch:
        return _error(INVALID_REQUEST, None, "an empty batch")
    replies = []
    for item in batch:
        is_dict = isinstance(item, dict)
        if is_dict and isinstance(item.get("method"), str) and "id" not in item:
            continue  # a notification: nothing to answer
        item_id = item.get("id") if is_dict and _is_id(item.get("id")) else None
        if item_id is not None and not (is_dict and "method" in item):
            item_id = None  # a response is not answered under its id
        replies.append(_error(INVALID_REQUEST, item_id, "batches are not supported"))
    return replies or None


class GuardedTransport:
    """An `acp` message transport over the agent's stdin and stdout (see the module doc)."""

    def __init__(
        self,
        reader: ChunkReader,
        writer: asyncio.StreamWriter,
        *,
        limit: int,
        on_eof: Callable[[], Awaitable[None]],
        private: tuple[str, ...] = (),
    ) -> None:
        self._private = private
        self._reader = reader
        self._writer = writer
        self._limit = limit
        self._on_eof = on_eof
        self._splitter = LineSplitter(limit)
        self._lines: collections.deque[Line] = collections.deque()
        self._write_lock = asyncio.Lock()
        self._initialized = False
        self._initialize_ids: set[Any] = set()
        # Set while no initialize is being answered: requests read after an initialize wait
        # for its answer, so a client that sends everything at once (a request file) works.
        self._settled = asyncio.Event()
        self._settled.set()
        # The client's requests passed on and not yet answered, by id (ids may repeat).
        self._open: collections.Counter[Any] = collections.Counter()
        self._answered = asyncio.Event()
        # Our requests to the client, not yet answered.
        self._asked: set[Any] = set()
        self._ended = False
        self._shutdown: asyncio.Task[None] | None = None
        self._pending: collections.deque[dict[str, Any]] = collections.deque()

    def stop(self) -> None:
        """Read no more input: what was read is answered, then the connection ends."""
        self._lines.clear()
        self._reader.stop()

    # --- acp's Transport ------------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            if self._ended:
                raise ConnectionError("the client closed its input")
            self._asked.add(message["id"])
        elif "method" not in message and "id" in message:
            self._note_answer(message)
            if isinstance(message.get("error"), dict):
                message = {**message, "error": self._safe_error(message["error"])}
        await self._write(message)

    async def receive(self) -> dict[str, Any] | None:
        while True:
            if self._pending:
                return self._pending.popleft()
            if self._shutdown is not None:
                await self._shutdown
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
            await self._reject(_error(INVALID_REQUEST, None, reason), reason)
            return None
        assert isinstance(line, bytes | bytearray)
        if not line or line.isspace():
            return None
        try:
            value = parse(line)
        except ValueError:
            await self._reject(_error(PARSE_ERROR, None, "not UTF-8 JSON"), "not UTF-8 JSON")
            return None
        del line  # the text is no longer needed; only the parsed value is kept
        message, reply, warning = judge(value, initialized=self._initialized)
        if warning is not None:
            await self._reject(reply, warning)
        if message is None:
            return None
        if "method" in message and "id" in message:
            self._open[message["id"]] += 1
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
        if self._open[request_id] > 0:
            self._open[request_id] -= 1
            if self._open[request_id] == 0:
                del self._open[request_id]
        if request_id in self._initialize_ids:
            self._initialize_ids.discard(request_id)
            self._initialized = self._initialized or "result" in message
            if not self._initialize_ids:
                self._settled.set()
        if not self._open:
            self._answered.set()

    def _safe_error(self, error: dict[str, Any]) -> dict[str, Any]:
        """A JSON-RPC error as it may leave the agent (DECISIONS row 31): its texts masked, and
        the `acp` SDK's answer to an exception of ours (-32603 with the exception's text as
        `details`) without that text: it is in the log."""
        data = error.get("data")
        if error.get("code") == -32603 and isinstance(data, dict) and "details" in data:
            data = {"reason": "an internal error in the adapter"}
        safe = {**error, "message": redact(str(error.get("message", "")), self._private)}
        if data is not None:
            safe["data"] = _masked(data, self._private)
        return safe

    async def _write(self, payload: Reply) -> None:
        data = (json.dumps(payload, separators=(",", ":")) + "\n").encode("utf-8")
        async with self._write_lock:
            self._writer.write(data)
            await self._writer.drain()

    # --- the end of input -----------------------------------------------------------------

    def _end(self) -> None:
        """Answer what was read: our own questions to the client fail (it can no longer
        answer them), the agent shuts its sessions down, and the requests still running are
        waited for, boundedly."""
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
        # The answers above reach the connection while the agent shuts down.
        self._shutdown = asyncio.get_running_loop().create_task(self._shut_down())

    async def _shut_down(self) -> None:
        try:
            await self._on_eof()
        except Exception:
            log.warning("shutting down after the end of input failed", exc_info=True)
        if self._open:
            try:
                await asyncio.wait_for(self._answered.wait(), EOF_DRAIN_SECONDS)
            except TimeoutError:
                log.warning("%d request(s) still unanswered at exit", len(self._open))


_END = object()


def _masked(value: Any, private: tuple[str, ...]) -> Any:
    """`value` with every string in it masked (keys too)."""
    if isinstance(value, str):
        return redact(value, private)
    if isinstance(value, dict):
        return {_masked(k, private): _masked(v, private) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, private) for v in value]
    return value
