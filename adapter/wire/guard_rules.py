"""The rules of the stdin guard (`adapter.wire.guard`), free of I/O: how lines are cut from
chunks within a limit, how a line is parsed, and what JSON-RPC 2.0 requires for each value
that is not a request the agent can take.
"""

from __future__ import annotations

import json
from typing import Any

from adapter.wire.deep_json import too_deep

__all__ = [
    "INVALID_REQUEST",
    "MALFORMED_RESPONSES",
    "PARSE_ERROR",
    "Line",
    "LineSplitter",
    "Reply",
    "Verdict",
    "error_reply",
    "judge",
    "masked",
    "parse",
    "worded",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

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


def error_reply(code: int, request_id: Any, reason: str) -> dict[str, Any]:
    kind = "Parse error" if code == PARSE_ERROR else "Invalid Request"
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": f"{kind}: {reason}", "data": {"reason": reason}},
    }


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse(line: bytes | bytearray) -> Any:
    """The JSON value of one line; raises ValueError when it is not UTF-8 JSON."""
    text = line.decode("utf-8")
    # Bounded before parsing: whether the parser itself gives up depends on the Python version
    # (adapter.wire.deep_json); a frame deeper than the adapter walks is not one it takes.
    if too_deep(text):
        raise ValueError("nested too deeply")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError as exc:  # not reachable past the scan; kept as the same answer
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
        return _well_formed_response(value), None, None
    if reason == _EARLY_NOTIFICATION:
        return None, None, reason  # a notification is never answered
    return None, error_reply(INVALID_REQUEST, request_id, reason), reason


_EARLY_NOTIFICATION = "a notification before initialize is dropped"


def _fault(value: Any, *, initialized: bool) -> tuple[str | None, Any]:
    """Why `value` is not a message to pass on (None if it is one), and the id to answer."""
    if not isinstance(value, dict):
        return "not a JSON-RPC object", None
    has_id = "id" in value
    request_id = value["id"] if has_id and _is_id(value["id"]) else None
    if "method" not in value:
        if request_id is not None:
            return None, None  # a response to a request of ours (`_well_formed_response`)
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


def _well_formed_response(message: dict[str, Any]) -> dict[str, Any]:
    """A response to one of our requests as the `acp` connection may see it: exactly a `result`
    or an `error` object, else an error in its place (JSON-RPC 2.0: "Either the result member
    or error member MUST be included, but both members MUST NOT be included").

    The pinned `acp` takes `result` whenever it is there, so a reply with both was read as its
    result (a permission answer carrying an error was an "allow"); a reply with neither left
    our request waiting for good, and a non-object `error` ended its receive loop. Whatever
    waits for the answer logs the failure, once, with the reason in `data.reason`.
    """
    if "method" in message:
        return message
    has_result, error = "result" in message, message.get("error")
    if has_result != ("error" in message):
        if has_result or (isinstance(error, dict) and _is_error_code(error.get("code"))):
            return message
        reason = _NOT_AN_ERROR
    else:
        reason = _BOTH if has_result else _NEITHER
    return error_reply(INVALID_REQUEST, message["id"], reason)


_BOTH = "a response with both a result and an error"
_NEITHER = "a response with neither a result nor an error"
_NOT_AN_ERROR = "an error that is not a JSON-RPC error object"
MALFORMED_RESPONSES = frozenset({_BOTH, _NEITHER, _NOT_AN_ERROR})


def _is_error_code(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _batch_reply(batch: list[Any]) -> dict[str, Any] | list[dict[str, Any]] | None:
    if not batch:
        return error_reply(INVALID_REQUEST, None, "an empty batch")
    replies = []
    for item in batch:
        is_dict = isinstance(item, dict)
        if is_dict and isinstance(item.get("method"), str) and "id" not in item:
            continue  # a notification: nothing to answer
        item_id = item.get("id") if is_dict and _is_id(item.get("id")) else None
        if item_id is not None and not (is_dict and "method" in item):
            item_id = None  # a response is not answered under its id
        replies.append(error_reply(INVALID_REQUEST, item_id, "batches are not supported"))
    return replies or None


# The `acp` SDK's messages, which say what kind of error it is and not what went wrong.
_BARE = frozenset(
    {"Internal error", "Invalid params", "Method not found", "Invalid request", "Parse error"}
)
_MESSAGE_CHARS = 300


def worded(message: str, data: Any) -> str:
    """`message`, with the cause `data` names when the message is one of the SDK's bare ones:
    most editors show only `message`, so "Invalid params" becomes "Invalid params:
    cwd: must be an absolute path" and "Internal error" says what failed."""
    if message not in _BARE or not isinstance(data, dict):
        return message
    cause: str | None = None
    if isinstance(data.get("reason"), str):
        cause = data["reason"]
    elif isinstance(data.get("method"), str):
        cause = data["method"]
    elif isinstance(data.get("errors"), list) and data["errors"]:
        cause = _schema_error(data["errors"][0])
    else:
        said = [f"{key}: {value}" for key, value in data.items() if isinstance(value, str)]
        cause = "; ".join(said) or None
    if not cause:
        return message
    text = f"{message}: {cause}"
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "\u2026"


def _schema_error(error: Any) -> str | None:
    """One of pydantic's validation errors (what `acp` sends as `data.errors`) in words."""
    if not isinstance(error, dict) or not isinstance(error.get("msg"), str):
        return None
    where = ".".join(str(part) for part in error.get("loc", ()) if isinstance(part, str | int))
    return f"{where}: {error['msg']}" if where else error["msg"]


def masked(value: Any, private: tuple[str, ...]) -> Any:
    """`value` with every string in it masked (keys too)."""
    if isinstance(value, str):
        # Here, not at the top: answering `initialize` needs none of the core's records.
        from fsm import redact

        return redact(value, private)
    if isinstance(value, dict):
        return {masked(k, private): masked(v, private) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v, private) for v in value]
    return value
