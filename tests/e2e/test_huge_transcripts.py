"""Huge and broken transcripts in Claude's `projects/` folder: a
40 MiB single line, a file of 200,000 small lines, a first line longer than the SDK's head
read, a half-written tail with bad bytes. `session/list` answers once and lists them all (the
long first line under its start: `adapter.claude.transcript_heads`), `session/load` of each
gets exactly one answer and replays what is readable, and the agent's peak memory stays a
bounded amount over its baseline (a line over the reader's limit is skipped as it is read,
never held whole). Through the real stdio agent and the real SDK.

How each line is cut and skipped is pinned in `tests/shell/test_transcript_reading.py`;
FIFOs and links among transcripts in `tests/e2e/test_hostile_disk.py`.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from acp.schema import LoadSessionResponse

from adapter.claude.transcripts import MAX_TRANSCRIPT_LINE
from adapter.scripted_claude.transcript import sanitize_path
from tests.support.harness import Adapter, spawn_adapter

MIB = 1024 * 1024
HUGE_LINE = 40 * MIB  # over the reader's limit (32 MiB)
MANY_LINES = 200_000
# One line in so many of the many is a message to replay; the rest are `progress` entries,
# as Claude Code writes plenty of: read and skipped, not sent (the client's side of 200,000
# updates would cost the suite more than the agent's reading does).
SHOWN_EVERY = 200
LONG_FIRST_LINE = 4 * MIB  # far over the SDK's 64 KiB head read for `session/list`
TIMEOUT = 180.0  # a bound on a hang under load, never a speed assertion
# What the loads may add to the agent's peak: the reader holds at most its limit of one line
# (32 MiB) and a block; reading the 40 MiB line whole, decoding it and sending it would cost
# several times its size.
PEAK_BOUND = 96 * MIB

assert HUGE_LINE > MAX_TRANSCRIPT_LINE > LONG_FIRST_LINE


def _user(text: str) -> bytes:
    entry = {
        "type": "user",
        "uuid": str(uuid.uuid4()),
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    return json.dumps(entry).encode() + b"\n"


def _assistant(text: str) -> bytes:
    entry = {
        "type": "assistant",
        "uuid": str(uuid.uuid4()),
        "message": {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
        },
    }
    return json.dumps(entry).encode() + b"\n"


def _write_transcripts(adapter: Adapter) -> dict[str, str]:
    """The four transcripts, by kind -> session id."""
    folder = adapter.config_dir / "projects" / sanitize_path(str(adapter.workdir))
    folder.mkdir(parents=True, exist_ok=True)
    ids = {kind: str(uuid.uuid4()) for kind in ("huge", "many", "long_first", "corrupt")}
    with (folder / f"{ids['huge']}.jsonl").open("wb") as out:
        out.write(_user("before the huge line") + _assistant("BEFORE"))
        head, _, tail = _assistant("@").partition(b"@")
        out.write(head + b"x" * HUGE_LINE + tail)
        out.write(_assistant("AFTER"))
    with (folder / f"{ids['many']}.jsonl").open("wb") as out:
        out.write(_user("the first of many lines"))
        shown = _assistant("line NUMBER")
        progress = b'{"type":"progress","uuid":"%d","data":{"type":"hook_progress"}}\n'
        out.writelines(
            shown.replace(b"NUMBER", b"%d" % n) if n % SHOWN_EVERY == 0 else progress % n
            for n in range(1, MANY_LINES)
        )
    with (folder / f"{ids['long_first']}.jsonl").open("wb") as out:
        out.write(_user("L" * LONG_FIRST_LINE) + _assistant("LONG ANSWERED"))
        out.write(_user("the second prompt") + _assistant("SECOND ANSWERED"))
    with (folder / f"{ids['corrupt']}.jsonl").open("wb") as out:
        out.write(_user("before the corrupt tail") + _assistant("INTACT"))
        out.write(b'{"type":"assistant","message":{"content":[{"type":"text","text":"cut \xff\x00')
    return ids


def _peak(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def _texts(updates: list[dict[str, Any]], kind: str) -> list[str]:
    return [
        u["content"]["text"]
        for u in updates
        if u.get("sessionUpdate") == kind and isinstance(u.get("content"), dict)
    ]


def _answers(adapter: Adapter, method: str) -> dict[Any, int]:
    """How many answers each request of `method` got."""
    asked = {
        f.message["id"]
        for f in adapter.frames
        if f.direction == "outgoing" and f.message.get("method") == method
    }
    counts = dict.fromkeys(asked, 0)
    for message in adapter.incoming():
        if "method" not in message and message.get("id") in counts:
            counts[message["id"]] += 1
    return counts


@pytest.mark.asyncio
async def test_session_list_answers_with_the_readable_among_huge_transcripts(
    tmp_path: Path,
) -> None:
    env = {"CLAUDE_ACP_LOG": "WARNING"}
    async with spawn_adapter(tmp_path, env=env) as adapter:
        ids = _write_transcripts(adapter)
        for cwd in (str(adapter.workdir), None):
            listed = await asyncio.wait_for(adapter.conn.list_sessions(cwd=cwd), TIMEOUT)
            titles = {s.session_id: s.title for s in listed.sessions}
            assert set(titles) == set(ids.values())
            assert titles[ids["huge"]] == "before the huge line"
            assert titles[ids["many"]] == "the first of many lines"
            assert titles[ids["corrupt"]] == "before the corrupt tail"
            # Its first line runs far past the head the listing reads: listed under its start.
            long_title = titles[ids["long_first"]]
            assert long_title is not None and long_title.startswith("LLLL"), long_title
            assert len(long_title) <= 201
    assert set(_answers(adapter, "session/list").values()) == {1}


@pytest.mark.asyncio
async def test_loading_huge_transcripts_replays_what_is_readable_within_bounded_memory(
    tmp_path: Path,
) -> None:
    env = {"CLAUDE_ACP_LOG": "WARNING"}
    async with spawn_adapter(tmp_path, env=env) as adapter:
        ids = _write_transcripts(adapter)
        baseline = _peak(adapter.process.pid)
        replayed: dict[str, list[dict[str, Any]]] = {}
        for kind, session_id in ids.items():
            before = len(adapter.updates())
            answer = await asyncio.wait_for(
                adapter.conn.load_session(
                    cwd=str(adapter.workdir), session_id=session_id, mcp_servers=[]
                ),
                TIMEOUT,
            )
            assert isinstance(answer, LoadSessionResponse), kind
            replayed[kind] = adapter.updates()[before:]
        grown = _peak(adapter.process.pid) - baseline
        # Still serving: a prompt on the session whose huge line was skipped is answered.
        after = await adapter.prompt(ids["huge"], "and now?")
    print(f"\nagent peak grew {grown / MIB:.0f} MiB over the loads")
    assert _texts(replayed["huge"], "agent_message_chunk") == ["BEFORE", "AFTER"]
    assert "skipped a transcript line over 32 MiB" in adapter.stderr()
    many = _texts(replayed["many"], "agent_message_chunk")
    assert many == [f"line {n}" for n in range(SHOWN_EVERY, MANY_LINES, SHOWN_EVERY)]
    long_prompts = _texts(replayed["long_first"], "user_message_chunk")
    assert long_prompts == ["L" * LONG_FIRST_LINE, "the second prompt"]
    assert _texts(replayed["long_first"], "agent_message_chunk") == [
        "LONG ANSWERED",
        "SECOND ANSWERED",
    ]
    assert _texts(replayed["corrupt"], "agent_message_chunk") == ["INTACT"]
    assert set(_answers(adapter, "session/load").values()) == {1}
    assert getattr(after, "stop_reason", None) == "end_turn", after
    assert grown < PEAK_BOUND, f"{grown / MIB:.0f} MiB"
