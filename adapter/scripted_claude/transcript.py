"""The session transcript the scripted Claude keeps, in the real CLI's JSONL layout.

Theory of operation: like Claude Code, the fake appends every prompt, tool result and assistant
message of a session to `<config>/projects/<sanitized cwd>/<session_id>.jsonl`, where config is
`$CLAUDE_CONFIG_DIR` or `~/.claude`. Each entry links to the previous one by `parentUuid`, so
`claude_agent_sdk.get_session_messages` rebuilds the conversation from it. The sanitizing rule
is the SDK's own (`_internal/sessions.py::_sanitize_path`), copied rather than imported because
the fake must not import the SDK. On `--resume` the fake counts the prompts already in the file
to know which turn script comes next, and takes the model of the last real answer (as the real
CLI does unless `--model` or `ANTHROPIC_MODEL` names one). Prompt entries record the permission
mode they ran in (`permissionMode`), as the real CLI's do.
"""

from __future__ import annotations

import json
import os
import re
import time
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from adapter.scripted_claude.frames import CLI_VERSION, Frame, new_uuid

__all__ = [
    "INTERRUPT_MARKER",
    "Transcript",
    "config_dir",
    "project_dir",
    "sanitize_path",
    "transcript_path",
]

# What the real CLI records as a user entry when a turn is interrupted.
INTERRUPT_MARKER = "[Request interrupted by user]"
_MAX_SANITIZED_LENGTH = 200
_SANITIZE_RE = re.compile(r"[^a-zA-Z0-9]")


def _simple_hash(s: str) -> str:
    # JS `hash = (hash << 5) - hash + code; hash |= 0`, then abs(...).toString(36).
    h = 0
    for ch in s:
        h = ((h << 5) - h + ord(ch)) & 0xFFFFFFFF
        if h >= 0x80000000:
            h -= 0x100000000
    h = abs(h)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while h > 0:
        out = digits[h % 36] + out
        h //= 36
    return out or "0"


def sanitize_path(name: str) -> str:
    """The project directory name for a cwd: non-alphanumerics become "-"; long names are
    truncated to 200 characters plus "-<hash>"."""
    sanitized = _SANITIZE_RE.sub("-", name)
    if len(sanitized) <= _MAX_SANITIZED_LENGTH:
        return sanitized
    return f"{sanitized[:_MAX_SANITIZED_LENGTH]}-{_simple_hash(name)}"


def config_dir(env: Mapping[str, str]) -> Path:
    """`$CLAUDE_CONFIG_DIR`, or `~/.claude`."""
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(unicodedata.normalize("NFC", configured))
    return Path(unicodedata.normalize("NFC", str(Path.home() / ".claude")))


def project_dir(env: Mapping[str, str], cwd: str) -> Path:
    # The SDK canonicalizes the directory with realpath + NFC before sanitizing it.
    canonical = unicodedata.normalize("NFC", os.path.realpath(cwd))
    return config_dir(env) / "projects" / sanitize_path(canonical)


def transcript_path(env: Mapping[str, str], cwd: str, session_id: str) -> Path:
    return project_dir(env, cwd) / f"{session_id}.jsonl"


def _now() -> str:
    # UTC with milliseconds, "2026-01-02T03:04:05.678Z" (not `datetime`: a few ms of every start).
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def _is_prompt(entry: Mapping[str, Any]) -> bool:
    # A user entry that opened a turn: not a tool result, not meta, not an interrupt marker.
    if entry.get("type") != "user" or entry.get("isMeta"):
        return False
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        # A local command's output is no prompt (its command's entry was).
        return not content.startswith((INTERRUPT_MARKER, "<local-command-"))
    if not isinstance(content, list) or not content:
        return False
    first = content[0]
    if not isinstance(first, dict) or first.get("type") == "tool_result":
        return False
    return not str(first.get("text", "")).startswith(INTERRUPT_MARKER)


_MODEL_COMMAND = re.compile(r"^/model(?:\s+(.*))?$", re.S)


# What Claude Code 2.1.332 keeps before a local command's markers, as a meta entry.
_CAVEAT = (
    "<local-command-caveat>The command below was run directly in Claude Code, not sent to you "
    "as a request, and its output goes straight to the user. It's recorded here as context for "
    "later messages.</local-command-caveat>"
)


def _model_command(blocks: object) -> tuple[str, str] | None:
    """(the markers, the output entry's text) Claude Code keeps for a typed `/model ARGS`,
    spaced as 2.1.332 writes them."""
    if not isinstance(blocks, list) or len(blocks) != 1 or not isinstance(blocks[0], dict):
        return None
    text = blocks[0].get("text")
    match = _MODEL_COMMAND.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        return None
    args = (match.group(1) or "").strip()
    markers = (
        "<command-name>/model</command-name>\n            <command-message>model"
        f"</command-message>\n            <command-args>{args}</command-args>"
    )
    said = f"Set model to {args}" if args else "Kept model as Default"
    return markers, f"<local-command-stdout>{said}</local-command-stdout>"


class Transcript:
    """An append-only session transcript. Every append is flushed at once, so a crash right
    after a frame keeps it (the resume logic depends on that)."""

    def __init__(self, path: Path, *, session_id: str, cwd: str) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.prompt_count = 0
        # The model of the last real answer: the real CLI resumes a session on it.
        self.last_model: str | None = None
        self._last_uuid: str | None = None
        self._file: IO[str] | None = None
        # Subagents by the Agent call that launched them: their id, and their last entry.
        self._agents: dict[str, str] = {}
        self._agent_last: dict[str, str | None] = {}
        if path.exists():
            self._scan()

    def _scan(self) -> None:
        # orjson (the adapter's own dependency): the real CLI parses the file natively, and a
        # resume scan of 100,000 lines in the standard library took a second of CPU beside
        # the adapter's replay, on a machine of 2 cores. Imported here, for resumed sessions
        # only: importing orjson imports `dataclasses` (and `inspect`), about 9 ms of every
        # start of a process that never reads a transcript.
        import orjson

        with self.path.open("rb") as file:
            lines = file.read().splitlines()
        for line in lines:
            try:
                entry = orjson.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict) or not isinstance(entry.get("uuid"), str):
                continue
            self._last_uuid = entry["uuid"]
            if _is_prompt(entry):
                self.prompt_count += 1
            message = entry.get("message")
            model = message.get("model") if isinstance(message, dict) else None
            answer = entry.get("type") == "assistant" and not entry.get("isSidechain")
            if answer and isinstance(model, str) and not model.startswith("<"):
                self.last_model = model

    def fork_from(self, source: Path) -> None:
        """Start this (new) transcript as a copy of `source`, re-stamped with our session id."""
        lines: list[str] = []
        for line in source.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                entry["sessionId"] = self.session_id
                lines.append(json.dumps(entry, ensure_ascii=False))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        self.prompt_count = 0
        self._last_uuid = None
        self._scan()

    def _append(self, entry: Frame) -> None:
        self._write(json.dumps(entry, ensure_ascii=False))
        self._last_uuid = entry["uuid"]

    def _write(self, line: str) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8", errors="surrogateescape")
        self._file.write(line + "\n")
        self._file.flush()

    def append_title(self, title: str) -> None:
        """What Claude Code writes for a `rename_session` (as for `/rename`): the custom title
        and the agent name, compact as JavaScript writes them. A session never prompted has no
        transcript yet, and gets none for a title alone."""
        if self._file is None and not self.path.exists():
            return
        for key, kind in (("customTitle", "custom-title"), ("agentName", "agent-name")):
            record = {"type": kind, key: title, "sessionId": self.session_id}
            self._write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))

    def append_ai_title(self, title: str) -> None:
        """What Claude Code writes for a `generate_session_title` asked to `persist` (2.1.332):
        one `ai-title` record, which a custom title outranks where the session is listed."""
        if self._file is None and not self.path.exists():
            return
        record = {"type": "ai-title", "aiTitle": title, "sessionId": self.session_id}
        self._write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))

    def _entry(self, kind: str, uuid: str, message: Frame) -> Frame:
        return {
            "parentUuid": self._last_uuid,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": CLI_VERSION,
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": _now(),
        }

    def append_prompt(self, uuid: str, content: object, permission_mode: str = "default") -> None:
        """A prompt entry; like the real CLI, it records the permission mode it ran in, and
        keeps a typed `/model` as 2.1.332 does: a meta caveat, the command's markers in place of
        the prompt's text, then its output as a `system/local_command` entry."""
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        typed = _model_command(blocks)
        message: dict[str, Any] = {"role": "user", "content": blocks}
        if typed is not None:
            caveat = self._entry("user", new_uuid(), {"role": "user", "content": _CAVEAT})
            caveat["isMeta"] = True
            self._append(caveat)
            message = {"role": "user", "content": typed[0]}
        entry = self._entry("user", uuid, message)
        entry["permissionMode"] = permission_mode
        self._append(entry)
        self.prompt_count += 1
        if typed is not None:
            output = self._entry("system", new_uuid(), {})
            del output["message"]
            output.update(subtype="local_command", content=typed[1], level="info", isMeta=False)
            self._append(output)

    def append_interrupt_marker(self, uuid: str) -> None:
        message = {"role": "user", "content": [{"type": "text", "text": INTERRUPT_MARKER}]}
        self._append(self._entry("user", uuid, message))

    def append_frame(self, frame: Frame) -> None:
        """Record an `assistant` or tool-result `user` frame the fake just wrote."""
        entry = self._entry(frame["type"], frame["uuid"], frame["message"])
        if "error" in frame:
            entry["error"] = frame["error"]
            entry["isApiErrorMessage"] = True
            if frame.get("api_error_status") is not None:
                entry["apiErrorStatus"] = frame["api_error_status"]
        if frame.get("tool_use_result") is not None:
            entry["toolUseResult"] = frame["tool_use_result"]
        parent = frame.get("parent_tool_use_id")
        if parent is not None:
            # A subagent's message (the real CLI keeps these in a sidechain file).
            entry["isSidechain"] = True
            entry["parent_tool_use_id"] = parent
            if parent in self._agents:
                self._append_agent(self._agents[parent], entry)
                return
        self._append(entry)

    def start_agent(self, frame: Mapping[str, Any]) -> None:
        """A `task_started` of a subagent: from here its messages go to its own transcript,
        `<project>/<session>/subagents/agent-<id>.jsonl`, beside the `.meta.json` that names
        the Agent call that launched it, as Claude Code keeps them."""
        agent, launch = frame.get("task_id"), frame.get("tool_use_id")
        if not (isinstance(agent, str) and isinstance(launch, str) and frame.get("subagent_type")):
            return
        meta = {"agentType": frame["subagent_type"], "toolUseId": launch}
        if isinstance(frame.get("description"), str):
            meta["description"] = frame["description"]
        folder = self._agents_folder()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"agent-{agent}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
        self._agents[launch] = agent
        self._agent_last.setdefault(agent, None)

    def _agents_folder(self) -> Path:
        return self.path.parent / self.session_id / "subagents"

    def _append_agent(self, agent: str, entry: Frame) -> None:
        entry = {**entry, "parentUuid": self._agent_last.get(agent), "agentId": agent}
        with (self._agents_folder() / f"agent-{agent}.jsonl").open("a", encoding="utf-8") as file:
            file.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._agent_last[agent] = entry["uuid"]

    def append_entry(self, fields: Mapping[str, Any]) -> None:
        """An entry of the CLI's own (no message of the conversation's): `fields` over the
        session's common ones."""
        entry = self._entry(str(fields.get("type", "system")), str(fields["uuid"]), {})
        del entry["message"]
        self._append({**entry, **fields})

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
