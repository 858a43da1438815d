"""Trouble reaching the API with the real Claude Code CLI: a refused connection, and a request
the API holds without a byte (a stall).

A refused connection is retried without an HTTP status (the warnings say "Reconnecting…",
category connection) and ends as the CLI's `server_error` (service, `["retry"]`) in its own words.
A stall produces nothing from the CLI at all; the adapter's silence watch (here
`CLAUDE_ACP_STALL_SECONDS=1`) warns a capable client under the turn's id, and the turn then ends
normally once the API answers.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.real_claude.api_double import Answer, MessagesApiDouble, Stall
from tests.real_claude.support import (
    prompt_uuids,
    real_adapter,
    run_turn,
    session_frames,
    wait_until,
)
from tests.support.harness import Adapter

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio(loop_scope="module")]

STALL_SECONDS = 1


@pytest.fixture(scope="module")
def refusing_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound (so no one else takes it), never
    listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        yield port


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def adapter(
    mode: str, double: MessagesApiDouble, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Adapter]:
    async with real_adapter(
        tmp_path_factory.mktemp(f"stall-{mode}"),
        double,
        capable=mode == "capable",
        CLAUDE_ACP_STALL_SECONDS=str(STALL_SECONDS),
    ) as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def unreachable(
    mode: str,
    double: MessagesApiDouble,
    refusing_port: int,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[Adapter]:
    async with real_adapter(
        tmp_path_factory.mktemp(f"refused-{mode}"),
        double,
        capable=mode == "capable",
        ANTHROPIC_BASE_URL=f"http://127.0.0.1:{refusing_port}",
    ) as running:
        yield running


def _transcript_text(adapter: Adapter, session_id: str) -> str:
    for path in Path(adapter.config_dir).rglob(f"{session_id}.jsonl"):
        return path.read_text(encoding="utf-8")
    return ""


async def test_refused_connection(unreachable: Adapter, mode: str) -> None:
    turn = await run_turn(unreachable, "Anyone there?")
    words = "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)"
    assert words in _transcript_text(unreachable, turn.session_id)
    (turn_id,) = prompt_uuids(unreachable, turn.session_id)
    if mode == "legacy":
        assert turn.error.code == -32603
        assert turn.error.data == {"errorKind": "server_error"}
        assert words in "".join(turn.texts())
        assert turn.records() == []
        return
    warnings: list[tuple[str, dict[str, Any]]] = [
        (
            "session_info_update",
            {
                "id": f"{turn_id}:error",
                "revision": attempt,
                "category": "connection",
                "severity": "warning",
                "title": f"Reconnecting to Claude, attempt {attempt} of 2.",
                "actions": [],
            },
        )
        for attempt in (1, 2)
    ]
    terminal = {
        "id": f"{turn_id}:error",
        "revision": 3,
        "category": "service",
        "severity": "error",
        "title": words,
        "actions": ["retry"],
    }
    assert turn.response.stop_reason == "end_turn"
    assert turn.records() == [*warnings, ("prompt_response", terminal)]
    assert words not in "".join(turn.texts())


async def test_stall_warns_a_capable_client_and_the_turn_goes_on(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    answer = "Sorry, I was thinking."
    double.script(Stall(then=Answer(answer)))
    project = adapter.workdir.parent / "stalled"
    project.mkdir()
    session_id = await adapter.new_session(cwd=project)
    start = len(adapter.frames)
    prompt = asyncio.create_task(adapter.prompt(session_id, "Take your time"))
    try:
        await wait_until(lambda: len(double.messages()) == 1)
        if mode == "capable":
            await wait_until(lambda: any(_warned(adapter, start, session_id)))
        else:
            # Nothing tells when a legacy client's stall has lasted long enough: let it last
            # well past the threshold (the assertion below is on the answer, not on the wait).
            await asyncio.sleep(STALL_SECONDS * 3)
        double.release_stalls()
        response = await prompt
    finally:
        double.release_stalls()
        if not prompt.done():
            prompt.cancel()
    frames = session_frames(adapter, start, session_id)
    texts = [
        u["params"]["update"]["content"]["text"]
        for u in frames
        if u["params"]["update"].get("sessionUpdate") == "agent_message_chunk"
    ]
    assert "".join(texts) == answer
    assert not isinstance(response, Exception) and response.stop_reason == "end_turn"
    records = list(_warned(adapter, start, session_id))
    if mode == "legacy":
        assert records == []
        return
    (turn_id,) = prompt_uuids(adapter, session_id)
    assert records, "no stall warning"
    for revision, record in enumerate(records, start=1):
        assert record["id"] == f"{turn_id}:error"
        assert record["revision"] == revision
        assert (record["category"], record["severity"], record["actions"]) == (
            "connection",
            "warning",
            [],
        )
        assert record["title"].startswith("Claude has not responded for ")
    assert response.field_meta is None or "jetbrains" not in response.field_meta


def _warned(adapter: Adapter, start: int, session_id: str) -> list[dict[str, Any]]:
    found = []
    for frame in session_frames(adapter, start, session_id):
        meta = frame["params"]["update"].get("_meta") or {}
        record = meta.get("jetbrains", {}).get("air", {}).get("sessionFailure")
        if isinstance(record, dict):
            found.append(record)
    return found


async def test_cancel_while_the_api_stalls(
    adapter: Adapter, double: MessagesApiDouble, mode: str
) -> None:
    double.script(Stall(then=Answer("Too late.")))
    project = adapter.workdir.parent / "cancelled"
    project.mkdir()
    session_id = await adapter.new_session(cwd=project)
    start = len(adapter.frames)
    prompt = asyncio.create_task(adapter.prompt(session_id, "Never mind"))
    try:
        await wait_until(lambda: len(double.messages()) == 1)
        await adapter.conn.cancel(session_id=session_id)
        response = await prompt
    finally:
        double.release_stalls()
        if not prompt.done():
            prompt.cancel()
    # docs/decisions.md#refusal-and-cancellation: a cancelled turn is never a failure (a stall
    # warning may precede the cancel).
    assert not isinstance(response, Exception) and response.stop_reason == "cancelled"
    assert response.field_meta is None or "jetbrains" not in response.field_meta
    assert all(r["severity"] == "warning" for r in _warned(adapter, start, session_id))
    if mode == "legacy":
        assert _warned(adapter, start, session_id) == []

    # The real CLI keeps serving the session after the interrupt.
    double.script(Answer("Fresh start."))
    after = await run_turn(adapter, "Hello again", session_id)
    assert after.response.stop_reason == "end_turn"
    assert "".join(after.texts()) == "Fresh start."
