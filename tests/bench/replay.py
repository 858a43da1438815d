"""Replay: `session/load` of generated transcripts of growing length, end to end and in part.

End to end: a fresh agent process, `initialize` (opted in), then `session/load` of a transcript
of N lines; the time is from the request to its response, which both agents send after the
history has been streamed (so the client has read every replayed update by then). Peak memory
is the agent's own VmHWM after the load, next to its VmHWM right after `initialize`.

Both agents also start the scripted Claude with `--resume` inside `session/load`; the fake reads
the whole transcript to count its prompts. `fake_scan_s` times that read in this process, so it
can be told apart from the adapter's own cost.

`pure_s` is the part of ours that is pure: both passes of `fsm.claude.replay` (json.loads,
parse_entry, ActiveScan, ReplayPlanner) over the file, without building or sending any update.

`floor_s` is a yardstick, not ours: what the same replay costs in this Python when done the
cheap way: one pass (the active usage limit taken from a scan of the file's tail), updates built
as plain dicts (no pydantic model, no validation), serialized once, and written to a pipe in
64 KiB batches rather than one write per frame.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapter.scripted_claude.transcript import Transcript
from fsm import ActiveScan, EntryKind, PeerViolation, ReplayPlanner, TranscriptEntry, parse_entry
from tests.bench.agents import ROOT, AgentSpec
from tests.bench.procfs import cpu_seconds, load_average, status_kib
from tests.bench.rpc import spawn
from tests.bench.startup import OPT_IN
from tests.bench.transcripts import TranscriptFacts, write_transcript

__all__ = [
    "LoadSample",
    "PartSample",
    "measure_parts",
    "replay_floor",
    "replay_inprocess",
    "replay_pure",
    "run_load",
]


@dataclass(slots=True)
class LoadSample:
    agent: str
    lines: int
    seconds: float | None = None
    notifications: int = 0
    records: int = 0
    hwm_before_kib: int | None = None
    hwm_after_kib: int | None = None
    cpu_s: float | None = None  # the agent's CPU time spent in session/load
    load: float = 0.0
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PartSample:
    lines: int
    size_bytes: int
    pure_s: float
    fake_scan_s: float
    floor_s: float


async def run_load(
    spec: AgentSpec,
    facts: TranscriptFacts,
    config: Path,
    cwd: Path,
    launcher: Path,
    *,
    timeout: float = 300.0,
) -> LoadSample:
    sample = LoadSample(agent=spec.name, lines=facts.lines, load=load_average())
    with tempfile.TemporaryDirectory(prefix="claude-acp-bench-load-") as scratch:
        env = {
            "CLAUDE_CODE_EXECUTABLE": str(launcher),
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_ACP_SCENARIO": "success",
        }
        stderr = Path(scratch) / "stderr.log"
        agent = await spawn(spec.argv, env=env, cwd=ROOT, stderr_path=stderr)
        try:
            await agent.request(
                "initialize",
                {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}},
                timeout=60,
            )
            sample.hwm_before_kib = status_kib(agent.pid, "VmHWM")
            cpu_before = cpu_seconds(agent.pid)
            params = {"sessionId": facts.session_id, "cwd": str(cwd), "mcpServers": []}
            reply = await agent.request("session/load", params, timeout=timeout)
            sample.seconds = reply.seconds
            cpu_after = cpu_seconds(agent.pid)
            if cpu_before is not None and cpu_after is not None:
                sample.cpu_s = cpu_after - cpu_before
            sample.hwm_after_kib = status_kib(agent.pid, "VmHWM")
        except Exception as exc:  # reported, never fatal
            tail = stderr.read_text(encoding="utf-8", errors="replace")[-400:]
            sample.error = f"{type(exc).__name__}: {exc} | stderr: {tail}"
        finally:
            sample.notifications = agent.notifications
            sample.records = agent.records
            await agent.close()
    return sample


def measure_parts(facts: TranscriptFacts, cwd: Path) -> PartSample:
    path = facts.path
    started = time.perf_counter()
    scan = ActiveScan()
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            scan.feed(parse_entry(json.loads(line)))
    planner = ReplayPlanner(session_id=facts.session_id, capable=True, active_uuid=scan.active_uuid)
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            planner.plan(parse_entry(json.loads(line)))
    pure = time.perf_counter() - started
    started = time.perf_counter()
    Transcript(path, session_id=facts.session_id, cwd=str(cwd))
    fake = time.perf_counter() - started
    return PartSample(facts.lines, facts.size, pure, fake, replay_floor(path, facts.session_id))


def _tail_active(path: Path, window: int = 1 << 20) -> str | None:
    """The active usage limit's uuid from the file's last `window` bytes: the last top-level
    assistant entry decides (a usage limit: active; a real answer: none)."""
    with path.open("rb") as raw:
        raw.seek(0, 2)
        size = raw.tell()
        raw.seek(max(0, size - window))
        tail = raw.read().decode("utf-8", errors="replace").splitlines()[1:]
    for line in reversed(tail):
        try:
            entry = parse_entry(json.loads(line))
        except (ValueError, PeerViolation):
            continue
        if entry.is_usage_limit:
            return entry.uuid
        if entry.is_real_answer:
            return None
    return None


def _frames(entry: TranscriptEntry) -> Iterator[dict[str, Any]]:
    for block in entry.content:
        kind = block.get("type")
        if entry.kind is EntryKind.PROMPT and kind == "text":
            yield {"sessionUpdate": "user_message_chunk", "content": _text(block.get("text"))}
        elif entry.kind is EntryKind.ASSISTANT and kind == "text":
            yield {"sessionUpdate": "agent_message_chunk", "content": _text(block.get("text"))}
        elif entry.kind is EntryKind.ASSISTANT and kind == "thinking":
            yield {"sessionUpdate": "agent_thought_chunk", "content": _text(block.get("thinking"))}
        elif entry.kind is EntryKind.ASSISTANT and kind == "tool_use":
            yield {
                "sessionUpdate": "tool_call",
                "toolCallId": block.get("id"),
                "title": block.get("name"),
                "kind": "execute",
                "status": "completed",
                "rawInput": block.get("input"),
            }
        elif kind == "tool_result":
            content = {"type": "content", "content": _text(block.get("content"))}
            yield {
                "sessionUpdate": "tool_call_update",
                "toolCallId": block.get("tool_use_id"),
                "status": "completed",
                "content": [content],
            }


def _text(value: object) -> dict[str, Any]:
    return {"type": "text", "text": value if isinstance(value, str) else ""}


def replay_floor(path: Path, session_id: str) -> float:
    """Seconds for the cheap single-pass replay of `path` into a pipe (see the module doc)."""
    sink = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    assert sink.stdin is not None
    encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    started = time.perf_counter()
    planner = ReplayPlanner(session_id=session_id, capable=True, active_uuid=_tail_active(path))
    batch: list[str] = []
    size = 0

    def emit(update: dict[str, Any]) -> None:
        nonlocal size
        params = {"sessionId": session_id, "update": update}
        line = encode({"jsonrpc": "2.0", "method": "session/update", "params": params})
        batch.append(line)
        size += len(line)

    with path.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                entry = parse_entry(json.loads(line))
            except (ValueError, PeerViolation):
                continue
            action = planner.plan(entry)
            if action.restore:
                record = {
                    "id": action.failure_id,
                    "revision": 1,
                    "category": "limit",
                    "severity": "error",
                    "title": action.title,
                    "actions": [],
                }
                air = {"version": 1, "sessionFailure": record}
                emit({"sessionUpdate": "session_info_update", "_meta": {"jetbrains": {"air": air}}})
            elif action.replay:
                for update in _frames(entry):
                    emit(update)
            if size >= 65536:
                sink.stdin.write(("\n".join(batch) + "\n").encode())
                batch.clear()
                size = 0
    sink.stdin.write(("\n".join(batch) + "\n").encode())
    sink.stdin.close()
    sink.wait()
    return time.perf_counter() - started


def make_transcripts(root: Path, sizes: list[int]) -> tuple[Path, Path, list[TranscriptFacts]]:
    """(config dir, cwd, one transcript per size), all under `root`."""
    config = root / "claude-config"
    cwd = root / "project"
    cwd.mkdir(parents=True, exist_ok=True)
    return config, cwd, [write_transcript(config, cwd, n) for n in sizes]


class _CountingSession:
    """What `adapter.session.load_replay.replay_transcript` uses of a session, without a
    client: every update is serialized as the connection would send it (one JSON-RPC line) and
    counted."""

    def __init__(self, session_id: str, cwd: str) -> None:
        from types import SimpleNamespace

        self.session_id = session_id
        self.cwd = cwd
        self.core = SimpleNamespace(notices=True)
        self.view = SimpleNamespace(terminal=False, terminal_delta=False)
        self.updates = 0
        self.records = 0
        self.bytes = 0

    async def send_raw(self, update: dict[str, Any]) -> bool:
        from adapter.wire.json_codec import encode_frame  # what the stdout guard writes with

        params = {"sessionId": self.session_id, "update": update}
        line = encode_frame({"jsonrpc": "2.0", "method": "session/update", "params": params})
        self.bytes += len(line)
        self.updates += 1
        return True

    async def send_raws(self, updates: list[dict[str, Any]]) -> bool:
        for update in updates:
            await self.send_raw(update)
        return True

    async def feed(self, event: object, message: object = None) -> None:
        self.records += 1


def replay_inprocess(path: Path, session_id: str, cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, updates) of `adapter.session.load_replay.replay_transcript` over `path`
    in this process: reading, planning, building every update and serializing it as its JSON-RPC
    line, with no pipe, client or session core (those are in the end-to-end figure)."""
    import asyncio

    from adapter.session.load_replay import replay_transcript

    session = _CountingSession(session_id, str(cwd))
    cpu, started = time.process_time(), time.perf_counter()
    asyncio.run(replay_transcript(session, path))  # type: ignore[arg-type]
    return time.perf_counter() - started, time.process_time() - cpu, session.updates


def replay_pure(path: Path, session_id: str) -> float:
    """Seconds for the pure part of ours as `replay_transcript` now runs it: the backwards
    look for the active usage limit, then one pass (bytes lines, `decode_line`, parse_entry,
    ReplayPlanner), with no update built or sent. `measure_parts`' `pure_s` is the old two
    passes with json.loads, kept as the yardstick the report describes."""
    from adapter.claude.transcripts import ReplayStats, entries, entries_newest_first
    from fsm import active_from_newest

    started = time.perf_counter()
    planner = ReplayPlanner(
        session_id=session_id,
        capable=True,
        active_uuid=active_from_newest(entries_newest_first(path)),
    )
    for entry, _ in entries(path, ReplayStats()):
        planner.plan(entry)
    return time.perf_counter() - started
