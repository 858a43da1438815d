"""Reading wire logs: one frame per line, in whichever common spelling the recorder used.

Theory of operation: every line becomes either a `LogFrame` (a direction and a parsed JSON-RPC
frame) or a `LogProblem` (why the line could not be read), both carrying the 1-based line
number, which is the frame number every report uses. Directions are normalized to the client's
point of view, the one the rest of the package (and `tests/support/harness.py`) uses: "outgoing" is
client to agent, "incoming" agent to client. Relative spellings ("send", "->", ...) describe
the recorder's point of view, so `agent_side=True` flips them; absolute spellings
("client_to_agent", "a2c", ...) never flip. A bad line never stops the reading: the checker
reports it and goes on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "DIRECTION_KEYS",
    "MESSAGE_KEYS",
    "Direction",
    "LogFrame",
    "LogLine",
    "LogProblem",
    "parse_line",
    "read_log",
    "read_log_file",
]

Direction = Literal["outgoing", "incoming"]

DIRECTION_KEYS = ("direction", "dir")
MESSAGE_KEYS = ("message", "frame", "payload", "msg")

# Spellings relative to the recorder: "sent by the recorder" and "received by the recorder".
_SENT = frozenset({"outgoing", "out", "send", "sent", ">", "->", ">>>"})
_RECEIVED = frozenset({"incoming", "in", "recv", "received", "receive", "<", "<-", "<<<"})
# Spellings that name the peers, so they mean the same whoever recorded the log.
_CLIENT_TO_AGENT = frozenset({"client_to_agent", "c2a", "client->agent"})
_AGENT_TO_CLIENT = frozenset({"agent_to_client", "a2c", "agent->client"})

# `-> {...}`, `<- {...}`, `>>> {...}`, `<<< {...}` (longest first, so `>>>` is not read as `>`).
_PREFIX = re.compile(r"^(>>>|<<<|->|<-|>|<)\s*(?=[\[{])")


@dataclass(frozen=True, slots=True)
class LogFrame:
    line: int
    direction: Direction
    message: Any  # parsed JSON; normally a JSON-RPC object, checked later


@dataclass(frozen=True, slots=True)
class LogProblem:
    line: int
    reason: str


LogLine = LogFrame | LogProblem


def _direction(raw: object, *, agent_side: bool) -> Direction | None:
    if not isinstance(raw, str):
        return None
    word = raw.strip().lower()
    if word in _CLIENT_TO_AGENT or word.replace("-", "_") in _CLIENT_TO_AGENT:
        return "outgoing"
    if word in _AGENT_TO_CLIENT or word.replace("-", "_") in _AGENT_TO_CLIENT:
        return "incoming"
    if word in _SENT:
        return "incoming" if agent_side else "outgoing"
    if word in _RECEIVED:
        return "outgoing" if agent_side else "incoming"
    return None


def _decode(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except ValueError as exc:
        return None, f"not JSON: {exc}"


def parse_line(text: str, *, agent_side: bool = False) -> tuple[Direction, Any] | str | None:
    """One log line: `(direction, frame)`, an error string, or None for a blank or comment."""
    text = text.strip()
    if not text or text.startswith("#"):
        return None
    prefix = _PREFIX.match(text)
    if prefix is not None:
        direction = _direction(prefix.group(1), agent_side=agent_side)
        assert direction is not None  # the pattern only matches known arrows
        frame, error = _decode(text[prefix.end() :])
        return error if error is not None else (direction, frame)
    entry, error = _decode(text)
    if error is not None:
        return error
    if not isinstance(entry, dict):
        return "a log line must be a JSON object or an arrow followed by a JSON frame"
    dir_key = next((k for k in DIRECTION_KEYS if k in entry), None)
    msg_key = next((k for k in MESSAGE_KEYS if k in entry), None)
    if dir_key is None or msg_key is None:
        if "jsonrpc" in entry:
            return "a bare JSON-RPC frame: its direction is unknown"
        return (
            f"expected a direction ({' | '.join(DIRECTION_KEYS)}) and a frame "
            f"({' | '.join(MESSAGE_KEYS)})"
        )
    direction = _direction(entry[dir_key], agent_side=agent_side)
    if direction is None:
        return f"unknown direction {json.dumps(entry[dir_key])}"
    frame = entry[msg_key]
    if isinstance(frame, str):
        # Some recorders keep the raw wire text; decode it rather than reject the line.
        frame, error = _decode(frame)
        if error is not None:
            return f"the {msg_key} string is {error}"
    return direction, frame


def read_log(lines: Iterable[bytes | str], *, agent_side: bool = False) -> list[LogLine]:
    """Every frame and every unreadable line, in order, numbered from 1."""
    found: list[LogLine] = []
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                found.append(LogProblem(number, f"not UTF-8: {exc}"))
                continue
        parsed = parse_line(raw, agent_side=agent_side)
        if isinstance(parsed, str):
            found.append(LogProblem(number, parsed))
        elif parsed is not None:
            found.append(LogFrame(number, parsed[0], parsed[1]))
    return found


def read_log_file(path: Path, *, agent_side: bool = False) -> list[LogLine]:
    """`read_log` over a file's lines; OSError propagates (the caller's usage error)."""
    data = path.read_bytes()
    # splitlines() would also split on \x0b, \x1c, U+2028...; a log's lines end in \n.
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return read_log([line.rstrip(b"\r") for line in lines], agent_side=agent_side)
