"""A seeded, varied Claude Code transcript for replay golden tests (`test_replay_golden.py`).

Deterministic for a seed: prompts (with and without uuids, meta and compact-summary ones),
text, thinking, tool calls of several kinds (Bash, Read, Edit, TodoWrite, Task) and their
results (string and block content, errors), subagent messages, sidechain entries, usage
limits (the CLI's `<synthetic>` message) followed or not by a real answer or by a synthetic
local-command answer, known non-message lines, corrupt lines (not JSON, an unknown type, a
bad shape, invalid UTF-8), blank lines, CRLF line ends, and lines long enough to cross any
read buffer.
"""

from __future__ import annotations

import json
import random
from typing import Any

__all__ = ["corpus_bytes"]

USAGE_LIMIT = "You've hit your usage limit \u00b7 resets 5pm"
_TOOLS = ("Bash", "Read", "Edit", "TodoWrite", "Task")


class _Writer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.lines: list[bytes] = []
        self.count = 0

    def uid(self) -> str:
        self.count += 1
        return f"00000000-0000-4000-8000-{self.count:012d}"

    def put(self, entry: dict[str, Any]) -> None:
        end = b"\r\n" if self.rng.random() < 0.05 else b"\n"
        self.lines.append(json.dumps(entry, ensure_ascii=self.rng.random() < 0.5).encode() + end)

    def message(self, kind: str, content: Any, **extra: Any) -> None:
        entry: dict[str, Any] = {"type": kind, "uuid": self.uid(), **extra}
        entry.setdefault("message", {"role": kind, "content": content})
        self.put(entry)

    def assistant(self, content: Any, model: str = "claude-sonnet-4-5", **extra: Any) -> None:
        message = {"id": f"msg_{self.uid()}", "role": "assistant", "model": model}
        self.message("assistant", content, message={**message, "content": content}, **extra)


def _tool_input(rng: random.Random, name: str) -> dict[str, Any]:
    if name == "Bash":
        return {"command": rng.choice(["ls", "pytest -q", "git status"]), "description": "run"}
    if name == "Read":
        return {"file_path": f"/tmp/p/f{rng.randrange(9)}.py"}
    if name == "Edit":
        return {"file_path": "/tmp/p/a.py", "old_string": "a\nb", "new_string": "a\nc"}
    if name == "TodoWrite":
        todos = [
            {"content": f"step {i}", "status": "pending", "activeForm": "doing"} for i in range(3)
        ]
        return {"todos": todos}
    return {"description": "explore", "prompt": "look around", "subagent_type": "general"}


def _tool_turn(w: _Writer, text: str) -> None:
    rng = w.rng
    name = rng.choice(_TOOLS)
    tool_id = f"toolu_{w.uid()}"
    thinking = {"type": "thinking", "thinking": "let me see " + text, "signature": "sig"}
    use = {"type": "tool_use", "id": tool_id, "name": name, "input": _tool_input(rng, name)}
    w.assistant([thinking, use] if rng.random() < 0.5 else [use])
    if name == "Task":
        w.assistant([{"type": "text", "text": "sub: " + text}], parent_tool_use_id=tool_id)
        w.assistant([{"type": "text", "text": "side"}], isSidechain=True)
    if rng.random() < 0.1:
        return  # left open: the next prompt closes it
    body: Any = (
        "ok " * rng.randrange(1, 4) if rng.random() < 0.5 else [{"type": "text", "text": "out"}]
    )
    result = {"type": "tool_result", "tool_use_id": tool_id, "content": body}
    if rng.random() < 0.2:
        result["is_error"] = True
    w.message("user", [result], toolUseResult={"stdout": "ok", "stderr": ""})


def _noise(w: _Writer) -> None:
    rng = w.rng
    pick = rng.randrange(9)
    if pick == 0:
        w.lines.append(b"{not json\n")
    elif pick == 1:
        w.lines.append(b'{"type": "mystery-entry", "uuid": "x"}\n')
    elif pick == 2:
        w.lines.append(b'{"type": "user", "message": 3}\n')
    elif pick == 3:
        w.lines.append(b'{"type": "assistant", "message": {"content": "caf\xe9 \xff"}}\n')
    elif pick == 4:
        w.lines.append(b"\n   \n")
    elif pick == 5:
        w.put({"type": "summary", "summary": "s", "leafUuid": "x"})
    elif pick == 6:
        w.put({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}})
    elif pick == 7:
        w.lines.append(b"[1, 2]\n")
    else:
        w.message("user", "caveat", isMeta=True)


def _turn(w: _Writer, n: int) -> None:
    rng = w.rng
    text = f"prompt {n} " + "x" * rng.choice([0, 10, 200, 70_000 if rng.random() < 0.02 else 5])
    if rng.random() < 0.05:
        w.put({"type": "user", "message": {"role": "user", "content": text}})  # no uuid
    else:
        w.message("user", [{"type": "text", "text": text}] if rng.random() < 0.5 else text)
    for _ in range(rng.randrange(3)):
        _tool_turn(w, text)
    if rng.random() < 0.3:
        _noise(w)
    ending = rng.random()
    if ending < 0.15:
        w.assistant(
            [{"type": "text", "text": USAGE_LIMIT}], model="<synthetic>", isApiErrorMessage=True
        )
        if rng.random() < 0.3:
            w.assistant([{"type": "text", "text": "No response requested."}], model="<synthetic>")
        if rng.random() < 0.2:
            w.assistant([{"type": "text", "text": USAGE_LIMIT}], model="<synthetic>")
    elif ending < 0.2:
        w.message("user", "summary of the conversation", isCompactSummary=True)
    else:
        w.assistant([{"type": "text", "text": f"answer {n}"}])


def corpus_bytes(seed: int, turns: int, *, end_with_limit: bool) -> bytes:
    """A transcript of `turns` turns (a few lines each), as the bytes of its file."""
    w = _Writer(seed)
    for n in range(turns):
        _turn(w, n)
    if end_with_limit:
        w.message("user", "last prompt")
        w.assistant([{"type": "text", "text": USAGE_LIMIT}], model="<synthetic>")
        w.assistant([{"type": "text", "text": "No response requested."}], model="<synthetic>")
        w.put({"type": "summary", "summary": "s", "leafUuid": "x"})
        w.lines.append(b"{torn line")
    return b"".join(w.lines)
