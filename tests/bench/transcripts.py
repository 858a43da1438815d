"""Generated Claude Code transcripts for the replay benchmark, in the scripted Claude's layout.

Every line is an entry like `adapter.scripted_claude.transcript.Transcript` writes (parentUuid,
isSidechain, userType, cwd, sessionId, version, type, message, uuid, timestamp). One turn is a
prompt, a thinking + Bash tool_use assistant message, its tool_result, and the answer; every
`LIMIT_EVERY`-th turn ends instead in the CLI's synthetic usage-limit message (model
`<synthetic>`, `error`, `isApiErrorMessage`), which a capable client gets back as a typed
record. The last turn is a usage limit, so one record is still active after the load.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from adapter.scripted_claude.frames import CLI_VERSION
from adapter.scripted_claude.texts import TEXTS
from adapter.scripted_claude.transcript import transcript_path

__all__ = ["LIMIT_EVERY", "TranscriptFacts", "write_transcript"]

LIMIT_EVERY = 25
_MODEL = "claude-sonnet-4-5"


class TranscriptFacts:
    def __init__(self, path: Path, session_id: str, lines: int, limits: int, size: int) -> None:
        self.path = path
        self.session_id = session_id
        self.lines = lines
        self.limits = limits
        self.size = size


def _usage(inp: int, out: int) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": out,
        "service_tier": "standard",
    }


def _assistant(content: list[dict[str, Any]], *, model: str, stop: str | None) -> dict[str, Any]:
    return {
        "id": f"msg_01{uuid.uuid4().hex[:22]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _usage(0, 0) if model == "<synthetic>" else _usage(1200, 80),
    }


def _turn(n: int, limit: bool) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(type, message, extra entry fields) for each line of turn `n`."""
    tool = f"toolu_01{uuid.uuid4().hex[:22]}"
    lines: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        (
            "user",
            {"role": "user", "content": [{"type": "text", "text": f"Prompt {n}: list the files."}]},
            {},
        ),
        (
            "assistant",
            _assistant(
                [
                    {"type": "thinking", "thinking": "I'll list them.", "signature": "sig"},
                    {
                        "type": "tool_use",
                        "id": tool,
                        "name": "Bash",
                        "input": {"command": "ls", "description": "List files"},
                    },
                ],
                model=_MODEL,
                stop="tool_use",
            ),
            {},
        ),
        (
            "user",
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": tool, "content": "README.md\nsrc"}
                ],
            },
            {"toolUseResult": {"stdout": "README.md\nsrc", "stderr": "", "interrupted": False}},
        ),
    ]
    if limit:
        message = _assistant(
            [{"type": "text", "text": TEXTS["usage_limit"]}],
            model="<synthetic>",
            stop="stop_sequence",
        )
        extra = {"error": "rate_limit", "isApiErrorMessage": True, "apiErrorStatus": 429}
        lines.append(("assistant", message, extra))
    else:
        text = f"Turn {n}: the directory holds README.md and src. " + "Details. " * 8
        lines.append(
            (
                "assistant",
                _assistant([{"type": "text", "text": text}], model=_MODEL, stop="end_turn"),
                {},
            )
        )
    return lines


def write_transcript(config_dir: Path, cwd: Path, lines: int) -> TranscriptFacts:
    """Write a transcript of exactly `lines` lines where Claude keeps it for `cwd`."""
    session_id = str(uuid.uuid4())
    path = transcript_path({"CLAUDE_CONFIG_DIR": str(config_dir)}, str(cwd), session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = limits = 0
    parent: str | None = None
    turn = 0
    with path.open("w", encoding="utf-8") as out:
        while written < lines:
            turn += 1
            remaining_turns = (lines - written + 3) // 4
            limit = turn % LIMIT_EVERY == 0 or remaining_turns == 1
            for kind, message, extra in _turn(turn, limit):
                if written == lines:
                    break
                entry_uuid = str(uuid.uuid4())
                entry: dict[str, Any] = {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "userType": "external",
                    "cwd": str(cwd),
                    "sessionId": session_id,
                    "version": CLI_VERSION,
                    "type": kind,
                    "message": message,
                    "uuid": entry_uuid,
                    "timestamp": "2026-01-01T00:00:00.000Z",
                    **extra,
                }
                out.write(json.dumps(entry, ensure_ascii=False) + "\n")
                if extra.get("isApiErrorMessage"):
                    limits += 1
                parent = entry_uuid
                written += 1
    return TranscriptFacts(path, session_id, written, limits, path.stat().st_size)
