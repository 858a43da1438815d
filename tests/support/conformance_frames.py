"""Wire logs built frame by frame for the conformance checker's tests (`adapter/conformance/`),
written in every spelling its reader accepts, so that each test also checks that frame numbers are
log line numbers whatever the format.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adapter.conformance import check_file
from fsm.air.client import air_client
from tests.support.harness import OPT_IN

Frames = list[tuple[str, dict[str, Any]]]
OUT, IN = "outgoing", "incoming"
SID = "s1"
TITLE = "You've hit your limit."
ADVERT = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}

# -- frame builders ------------------------------------------------------------------------


def record(rid: str = "t1:error", revision: int = 1, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": rid,
        "revision": revision,
        "category": "limit",
        "severity": "error",
        "title": TITLE,
        "actions": [],
    }
    return {**base, **fields}


def air(rec: object, version: object = 1) -> dict[str, Any]:
    return {"jetbrains": {"air": {"version": version, "sessionFailure": rec}}}


def update(kind: str, session: str = SID, **fields: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session, "update": {"sessionUpdate": kind, **fields}},
    }


def info(rec: object, session: str = SID, version: object = 1) -> dict[str, Any]:
    return update("session_info_update", session, _meta=air(rec, version))


def chunk(text: str, kind: str = "agent_message_chunk", **fields: Any) -> dict[str, Any]:
    return update(kind, content={"type": "text", "text": text}, **fields)


def prompt(rid: int, text: str = "hello", session: str = SID) -> dict[str, Any]:
    params = {"sessionId": session, "prompt": [{"type": "text", "text": text}]}
    return {"jsonrpc": "2.0", "id": rid, "method": "session/prompt", "params": params}


def answer(rid: int, rec: object = None, stop: str = "end_turn") -> dict[str, Any]:
    result: dict[str, Any] = {"stopReason": stop}
    if rec is not None:
        result["_meta"] = air(rec)
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def handshake(meta: object = OPT_IN, session: str = SID) -> Frames:
    caps = {} if meta is None else {"_meta": meta}
    init = {"protocolVersion": 1, "clientCapabilities": caps}
    # The advertisement goes to a JetBrains AIR client only (docs/decisions.md#advertising).
    answer = {"protocolVersion": 1, **({"_meta": ADVERT} if air_client(meta).air else {})}
    return [
        (OUT, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}),
        (IN, {"jsonrpc": "2.0", "id": 0, "result": answer}),
        (OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/p"}}),
        (IN, {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": session}}),
    ]


# -- writing logs in the accepted spellings -------------------------------------------------


def log_line(variant: str, direction: str, frame: dict[str, Any]) -> str:
    sent = direction == OUT  # the client recorded it, except in the agent-side variant
    body = json.dumps(frame)
    if variant == "direction/message":
        return json.dumps({"direction": direction, "message": frame})
    if variant == "send/recv payload":
        return json.dumps({"direction": "send" if sent else "recv", "payload": frame})
    if variant == "dir/msg":
        return json.dumps({"dir": ">" if sent else "<", "msg": frame})
    if variant == "arrows":
        return f"{'->' if sent else '<-'} {body}"
    if variant == "chevrons":
        return f"{'>>>' if sent else '<<<'} {body}"
    if variant == "absolute":
        return json.dumps({"direction": "c2a" if sent else "agent_to_client", "frame": frame})
    assert variant == "agent-side"
    return json.dumps({"direction": "incoming" if sent else "outgoing", "message": frame})


VARIANTS = (
    "direction/message",
    "send/recv payload",
    "dir/msg",
    "arrows",
    "chevrons",
    "absolute",
    "agent-side",
)


def write_log(path: Path, frames: Frames, variant: str) -> list[int]:
    """Write `frames` with a comment header and a blank line every third frame; return the
    line number of every frame."""
    lines = ["# a test log", ""]
    numbers: list[int] = []
    for index, (direction, frame) in enumerate(frames):
        if index % 3 == 2:
            lines.append("")
        lines.append(log_line(variant, direction, frame))
        numbers.append(len(lines))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return numbers


def check(tmp_path: Path, frames: Frames, variant: str) -> tuple[list[tuple[int, str]], list[int]]:
    path = tmp_path / "wire.log"
    numbers = write_log(path, frames, variant)
    report = check_file(path, agent_side=variant == "agent-side")
    assert report.frames == len(frames)
    return [(v.frame, v.rule) for v in report.violations], numbers
