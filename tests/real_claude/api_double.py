"""A stand-in for the Anthropic Messages API, for driving the real Claude Code CLI in tests.

The real CLI (bundled in `claude-agent-sdk`) is pointed at it with `ANTHROPIC_BASE_URL`. It
listens on 127.0.0.1 only, on a free port the OS picks, in a daemon thread, and stops when its
`with` block ends (stalled replies are released first, so nothing outlives the test).

Scripting: `double.script(reply, ...)` queues one reply per `POST /v1/messages`, served in
order. A request that finds the queue empty is recorded in `unscripted` and answered with a 400
`invalid_request_error` naming the problem, so a test that forgot a reply fails loudly instead
of hanging. The reply's wire form follows the request: `"stream": true` gets Server-Sent Events
in the real event order (`message_start`, `content_block_start`, `content_block_delta`…,
`content_block_stop`, `message_delta`, `message_stop`), `"stream": false` a plain JSON message.

Replies (the shapes are the real API's, https://docs.anthropic.com/en/api/messages-streaming and
/en/api/errors):
- `Answer(text)`: a text answer, streamed in several deltas.
- `ToolUse(name, input)`: a `tool_use` block (optionally after some text), `stop_reason:
  tool_use`; the CLI runs the tool for real and sends a `tool_result` in its next request.
- `ApiError(status, type, message, headers)`: the real error body
  `{"type": "error", "error": {"type", "message"}, "request_id"}` with a `request-id` header;
  helpers build the usual ones (`unauthorized`, `rate_limited`, `overloaded`, …).
- `CutStream(text)`: starts a streamed answer, then drops the connection mid-body.
- `StreamError(text)`: starts a streamed answer, then sends an `error` event
  (`overloaded_error` by default), as the API does when it fails mid-stream.
- `Reset()`: closes the connection without a byte (RST), as a dying proxy does.
- `Stall(then)`: holds the request without a byte until `double.release_stalls()` (or the
  double stops), then serves `then`.

Claude Code naming the session (`generate_session_title`: a request whose instructions begin
`TITLE_PROMPT`) is answered with `title` as the JSON the CLI asks for, or refused when none is
set; it never takes a scripted reply and is no conversation request (`is_messages`).

Recording: every request is kept in `requests` (method, path, headers, parsed JSON body), so a
test can assert what the CLI sent, e.g. that a `tool_result` carried the real file content.

Tripwire: `double.tripwire_url` is a second loopback listener meant for `HTTP(S)_PROXY`. Any
connection the CLI tries to make anywhere but the double (`NO_PROXY` exempts 127.0.0.1) lands
there, is recorded in `escapes` and refused, so a test can assert that nothing left loopback.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.real_claude.api_replies import (
    Answer,
    ApiError,
    CutStream,
    Reply,
    Reset,
    Stall,
    StreamError,
    ToolUse,
    bad_request,
    blocks,
    credit_balance_too_low,
    error_body,
    events,
    internal_error,
    message,
    overloaded,
    rate_limited,
    sse,
    stop_reason,
    subscription_limit,
    subscription_warning,
    unauthorized,
)

__all__ = [
    "Answer",
    "ApiError",
    "CutStream",
    "MessagesApiDouble",
    "Recorded",
    "Reply",
    "Reset",
    "Stall",
    "StreamError",
    "ToolUse",
    "bad_request",
    "credit_balance_too_low",
    "internal_error",
    "overloaded",
    "rate_limited",
    "subscription_limit",
    "subscription_warning",
    "tool_result_text",
    "unauthorized",
]

# How long a cut stream's first delta stays on the wire before the connection drops.
CUT_AFTER_SECONDS = 0.3
# How the bundled CLI (2.1.332) opens its instructions for naming a session.
TITLE_PROMPT = "You are naming a coding session"
# A stalled reply waits at most this long even if no one releases it: a bound on a hang.
STALL_LIMIT_SECONDS = 120.0


@dataclass(frozen=True, slots=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body, or None

    @property
    def is_messages(self) -> bool:
        """A request of the conversation (not Claude Code naming the session)."""
        return self._messages_path and not self.is_title

    @property
    def _messages_path(self) -> bool:
        return self.method == "POST" and self.path.split("?")[0] == "/v1/messages"

    @property
    def is_count(self) -> bool:
        """Claude Code counting its context's tokens (`count_tokens`), as it does on its own
        when asked for its context usage (a JetBrains AIR client's skill list): refused, so it
        falls back to its own estimate; never from the script."""
        return self.method == "POST" and self.path.split("?")[0] == "/v1/messages/count_tokens"

    @property
    def is_title(self) -> bool:
        """Claude Code asking its small model to name the session (`generate_session_title`):
        answered from `MessagesApiDouble.title`, never from the script."""
        system = self.body.get("system") if isinstance(self.body, dict) else None
        texts = (
            [b.get("text") for b in system if isinstance(b, dict)]
            if isinstance(system, list)
            else []
        )
        return self._messages_path and any(isinstance(t, str) and TITLE_PROMPT in t for t in texts)

    def tool_results(self) -> list[dict[str, Any]]:
        """The `tool_result` blocks of the request's last user message."""
        messages = self.body.get("messages", []) if isinstance(self.body, dict) else []
        users = [m for m in messages if m.get("role") == "user"]
        content = users[-1].get("content") if users else None
        if not isinstance(content, list):
            return []
        return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def tool_result_text(block: Mapping[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return  # stderr belongs to pytest's report

    def _any(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        record = Recorded(self.command, self.path, dict(self.headers.items()), body)
        double = self.server.double
        reply = double._take(record)
        model = body.get("model", "claude") if isinstance(body, dict) else "claude"
        stream = isinstance(body, dict) and body.get("stream") is True
        self._serve(reply, model, stream)

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = _any

    def _serve(self, reply: Reply, model: str, stream: bool) -> None:
        if isinstance(reply, Stall):
            self.server.double._stalled.wait(STALL_LIMIT_SECONDS)
            reply = reply.then
        if isinstance(reply, Reset):
            # SO_LINGER 0: close() sends RST, the reset a dropped connection shows.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if isinstance(reply, ApiError):
            self._error(reply)
        elif isinstance(reply, CutStream):
            self._stream(events(model, Answer(reply.text, pieces=2)), cut=True)
        elif isinstance(reply, StreamError):
            error = error_body(ApiError(0, reply.type, reply.message))
            error.pop("request_id")
            head = list(events(model, Answer(reply.text, pieces=2)))[:4]
            self._stream(iter([*head, sse("error", error)]), cut=False)
        elif stream:
            headers = reply.headers if isinstance(reply, Answer) else ()
            self._stream(events(model, reply), cut=False, headers=headers)
        else:
            headers = reply.headers if isinstance(reply, Answer) else ()
            size = reply.input_tokens if isinstance(reply, Answer) else 12
            self._json(200, message(model, blocks(reply), stop_reason(reply), size), headers)

    def _json(self, status: int, payload: Any, headers: tuple[tuple[str, str], ...]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, reply: ApiError) -> None:
        self._json(reply.status, error_body(reply), reply.headers)

    def _stream(
        self, frames: Iterator[bytes], *, cut: bool, headers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self.send_response(200)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for count, event in enumerate(frames):
            if cut and count == 4:  # after the first text delta: a stream cut mid-way
                self.wfile.flush()
                # The delta has been on the wire a while when the connection drops (as when a
                # proxy dies mid-answer), so the CLI has read it before it sees the cut.
                time.sleep(CUT_AFTER_SECONDS)
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, double: MessagesApiDouble) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.double = double

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The CLI hanging up on a reply (a cancelled or abandoned request) is its right.
        return


class _Tripwire(threading.Thread):
    """Records the first line of every connection (the proxy's `CONNECT host:443` or the
    absolute URL of a plain request), then drops it."""

    def __init__(self, escapes: list[str]) -> None:
        super().__init__(daemon=True, name="api-double-tripwire")
        self.escapes = escapes
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2.0)
                try:
                    first = conn.recv(4096).split(b"\r\n", 1)[0]
                except OSError:
                    first = b""
                self.escapes.append(first.decode("latin-1") or "<connection without a request>")
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")


class MessagesApiDouble:
    """The double; use it as a context manager (see the module docstring)."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.unscripted: list[Recorded] = []
        self.escapes: list[str] = []
        self._replies: deque[Reply] = deque()
        self._otherwise: Reply | None = None
        # The name Claude Code's small model gives the session when it asks (`is_title`);
        # None: the request fails, and Claude Code has no title.
        self.title: str | None = None
        self._lock = threading.Lock()
        self._stalled = threading.Event()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._tripwire = _Tripwire(self.escapes)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def tripwire_url(self) -> str:
        host, port = self._tripwire.sock.getsockname()[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> MessagesApiDouble:
        self._thread.start()
        self._tripwire.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stalled.set()
        self._server.shutdown()
        self._server.server_close()
        self._tripwire.stopping.set()
        self._tripwire.sock.close()
        self._thread.join(5)
        self._tripwire.join(5)

    def script(self, *replies: Reply, otherwise: Reply | None = None) -> None:
        """Queue `replies`; once they are used up, answer every request with `otherwise` (the
        CLI repeats some requests, e.g. a 400 is resent up to 6 times with betas removed)."""
        with self._lock:
            self._replies.extend(replies)
            self._otherwise = otherwise

    def reset(self) -> None:
        """Forget the script and the recordings (between tests sharing one double)."""
        with self._lock:
            self._replies.clear()
            self._otherwise = None
            self.title = None
            self.requests.clear()
            self.unscripted.clear()
            self._stalled = threading.Event()

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def release_stalls(self) -> None:
        self._stalled.set()

    def messages(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.is_messages]

    def _take(self, record: Recorded) -> Reply:
        with self._lock:
            self.requests.append(record)
            if record.is_title:
                if self.title is None:
                    return bad_request("messages API double: no session title scripted")
                return Answer(json.dumps({"title": self.title}))
            if record.is_messages and self._replies:
                return self._replies.popleft()
            if record.is_messages and self._otherwise is not None:
                return self._otherwise
            self.unscripted.append(record)
        return bad_request(
            f"messages API double: nothing scripted for {record.method} {record.path}"
        )
