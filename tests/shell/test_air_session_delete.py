"""`session/delete` from JetBrains AIR (docs/decisions.md#session-delete-from-air): AIR sends it
to mark a session done, so for an AIR client that has not negotiated the session index the
session is archived, as the reference adapter does: its transcript stays (with the two title
records AIR's own Claude provider writes), it can be loaded again, AIR's plain list leaves it
out, a client that means removal lists it with its archived title, and all of it survives a
restart of the agent. A plain client's delete still removes (tests/e2e/test_session_delete.py).

Played in process (`agent_in_process`). End to end, in tests/e2e/test_air_session_delete.py: an AIR
delete of a running session, whose Claude hangs.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from tests.support.archive_files import archived_records, last_records, transcript
from tests.support.harness import OPT_IN, TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process

# AIR with the whole set it may declare; the session index is not negotiated while the agent
# does not advertise it, so this client's delete archives too.
AIR_SET: dict[str, Any] = {
    "jetbrains": {
        "air": {"version": 1, "capabilities": ["sessionFailure", "diffPatch", "planFile"]}
    }
}
# An AIR client whose declaration is malformed: still AIR, no capability on.
AIR_MALFORMED: dict[str, Any] = {"jetbrains": {"air": {"version": "1", "capabilities": "all"}}}


async def load(adapter: Adapter, session_id: str) -> Any:
    return await asyncio.wait_for(
        adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session_id, mcp_servers=[]),
        TIMEOUT,
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("meta", [OPT_IN, AIR_SET, AIR_MALFORMED], ids=["sf", "set", "malformed"])
async def test_an_air_delete_archives_a_prompted_session(
    tmp_path: Path, meta: dict[str, Any]
) -> None:
    async with agent_in_process(tmp_path, "success", client_meta=meta) as adapter:
        kept, done = await adapter.new_session(), await adapter.new_session()
        for session in (kept, done):
            assert isinstance(await adapter.prompt(session, "hello"), PromptResponse)
        before = await adapter.listed_sessions()
        size = transcript(adapter, done).stat().st_size
        assert await adapter.delete_session(done) == {}
        after = await adapter.listed_sessions()
        records = last_records(transcript(adapter, done))
        # Twice is the same: nothing more is written.
        grown = transcript(adapter, done).stat().st_size
        assert await adapter.delete_session(done) == {}
        again = transcript(adapter, done).stat().st_size
        closed = await adapter.prompt(done, "still there?")
        loaded = await load(adapter, done)
        replayed = [u for u in adapter.updates("user_message_chunk")]
        resumed = await adapter.prompt(done, "back again")
    assert {kept, done} <= set(before) and before[done] == "hello"
    assert kept in after and done not in after  # AIR's list: as if it were gone
    assert records == archived_records(done, "hello")
    assert grown > size and again == grown
    assert isinstance(closed, acp.RequestError) and closed.code == -32602  # torn down
    assert loaded is not None and replayed  # the conversation came back
    assert isinstance(resumed, PromptResponse) and resumed.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_an_air_delete_keeps_a_never_prompted_session_loadable(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        marker = adapter.config_dir / "claude-acp" / "sessions" / f"{session}.json"
        assert await adapter.delete_session(session) == {}
        kept = marker.exists()
        loaded = await load(adapter, session)
        answer = await adapter.prompt(session, "hello")
    assert kept and loaded is not None
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_an_air_delete_of_unknown_and_malformed_ids(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        errors = []
        for session_id in ("00000000-0000-4000-8000-000000000000", "../../etc", "", 7):
            with pytest.raises(acp.RequestError) as caught:
                await adapter.delete_session(session_id)
            errors.append(caught.value.code)
        projects = list((adapter.config_dir / "projects").glob("*/*.jsonl"))
    assert errors == [-32002, -32002, -32602, -32602]
    assert not [p for p in projects if p.stem.startswith("00000000")]


@pytest.mark.asyncio
async def test_the_archive_survives_a_restart_and_a_plain_client_sees_it(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", client_meta=OPT_IN) as first:
        kept, done = await first.new_session(), await first.new_session()
        for session in (kept, done):
            assert isinstance(await first.prompt(session, "hello"), PromptResponse)
        assert await first.delete_session(done) == {}
    async with agent_in_process(tmp_path, "success", client_meta=OPT_IN) as air:
        air_list = await air.listed_sessions()
        loaded = await load(air, done)
    async with agent_in_process(tmp_path, "success", capable=False) as plain:
        plain_list = await plain.listed_sessions()
    assert kept in air_list and done not in air_list and loaded is not None
    assert plain_list[kept] == "hello"
    assert plain_list[done] == "[archived] hello"  # listed, and marked archived


@pytest.mark.asyncio
async def test_done_on_a_session_never_prompted_is_kept_until_its_transcript_is_written(
    tmp_path: Path,
) -> None:
    """docs/decisions.md#unwritten-titles: AIR's "Done" on a session with no transcript yet is
    kept, and once the session is loaded again and prompted its transcript is archived."""
    async with agent_in_process(tmp_path, "success", client_meta=OPT_IN) as adapter:
        session = await adapter.new_session()
        assert await adapter.delete_session(session) == {}
        assert adapter.transcripts_of(session) == []
        # Deleting it again is no error: it is known, and archived already.
        assert await adapter.delete_session(session) == {}
        await load(adapter, session)
        assert isinstance(await adapter.prompt(session, "hello there"), PromptResponse)
        path = transcript(adapter, session)
        assert last_records(path) == archived_records(session, f"Session {session[:8]}")
        listed = await asyncio.wait_for(
            adapter.conn.list_sessions(cwd=str(adapter.workdir)), TIMEOUT
        )
        assert session not in {s.session_id for s in listed.sessions}  # AIR's list hides it
        # Written once: a second prompt adds no records.
        assert isinstance(await adapter.prompt(session, "and again"), PromptResponse)
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert sum(r.get("type") == "agent-name" for r in records) == 1
