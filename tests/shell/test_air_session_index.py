"""JetBrains AIR's session index in process (`agent_in_process`) with the scripted Claude
(docs/decisions.md#session-index): a client that declares `sessionIndex` gets the six names in
the agent's declaration, lists with row fields, renames (through Claude Code's own
`rename_session` while it runs), archives and unarchives, and hears of each change on a list
subscription, and of none after it unsubscribed; all of it survives a restart of the agent.
A client without the capability gets -32601 for every index method.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from tests.support.air_index_calls import air, call, changes, index_list, until
from tests.support.harness import Adapter
from tests.support.shell_harness import agent_in_process

INDEX_CLIENT: dict[str, Any] = {
    "jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure", "sessionIndex"]}}
}


def last_records(adapter: Adapter, session_id: str) -> list[dict[str, Any]]:
    (path,) = (adapter.config_dir / "projects").glob(f"*/{session_id}.jsonl")
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [json.loads(line) for line in lines[-2:]]


@pytest.mark.asyncio
async def test_rename_archive_and_list_changes(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", client_meta=INDEX_CLIENT) as adapter:
        declared = adapter.incoming()[0]["result"]["_meta"]["jetbrains"]["air"]["capabilities"]
        subscribed = await call(adapter, "_session/list/subscribe", {"cwd": str(adapter.workdir)})
        subscription = subscribed["subscriptionId"]
        first, second = await adapter.new_session(), await adapter.new_session()
        for session in (first, second):
            assert isinstance(await adapter.prompt(session, "hello there"), PromptResponse)
        await until(
            lambda: (
                {first, second}
                <= {s["sessionId"] for c in changes(adapter, subscription) for s in c["sessions"]}
            ),
            "both new sessions on the subscription",
        )
        listed = await index_list(adapter)
        # A rename while its Claude runs: Claude Code takes it, and the client hears it.
        renamed = await call(
            adapter, "_session/rename", {"sessionId": first, "title": "  Fix\n the  bug "}
        )
        records_after_rename = last_records(adapter, first)
        title_updates = [
            u for u in adapter.updates("session_info_update") if u.get("title") == "Fix the bug"
        ]
        await until(
            lambda: any(
                s["sessionId"] == first and s["title"] == "Fix the bug"
                for c in changes(adapter, subscription)
                for s in c["sessions"]
            ),
            "the rename on the subscription",
        )
        archived = await call(adapter, "_session/archive", {"sessionId": first})
        again = await call(adapter, "_session/archive", {"sessionId": first})
        await until(
            lambda: any(
                s["sessionId"] == first and air(s)["archived"] is True
                for c in changes(adapter, subscription)
                for s in c["sessions"]
            ),
            "the archive on the subscription",
        )
        closed = await adapter.prompt(first, "still there?")
        after_archive = await index_list(adapter)
        archived_list = await index_list(adapter, "archived")
        batch = await call(
            adapter,
            "_session/batch_get",
            {"sessionIds": [first, "00000000-0000-4000-8000-000000000000", second]},
        )
        assert (
            await call(adapter, "_session/list/unsubscribe", {"subscriptionId": subscription}) == {}
        )
        heard = len(adapter.incoming())
        unarchived = await call(adapter, "_session/unarchive", {"sessionId": first})
        await asyncio.sleep(2.5)  # more than two looks of the poll: nothing may come now
        late = [m for m in adapter.incoming()[heard:] if m.get("method") == "_session/list/changes"]
    async with agent_in_process(tmp_path, "success", client_meta=INDEX_CLIENT) as restarted:
        after_restart = await index_list(restarted, "all")
    assert declared[-6:] == [
        "sessionIndex",
        "sessionBatchGet",
        "sessionArchive",
        "sessionRename",
        "sessionListSubscribe",
        "sessionWorktrees",
    ]
    row = listed[first]
    assert row["title"] == "hello there" and row["cwd"] == str(adapter.workdir)
    assert air(row)["archived"] is False and air(row)["state"] == "idle"
    assert air(row)["version"] == 1 and "lastPromptAt" in air(row) and "model" in air(row)
    assert renamed == {} and title_updates
    assert records_after_rename == [
        {"type": "custom-title", "customTitle": "Fix the bug", "sessionId": first},
        {"type": "agent-name", "agentName": "Fix the bug", "sessionId": first},
    ]
    assert archived == {} and again == {}
    assert isinstance(closed, acp.RequestError)  # archiving closed it
    assert first not in after_archive and second in after_archive
    assert archived_list[first]["title"] == "Fix the bug"  # shown without the prefix
    assert [s["sessionId"] for s in batch["sessions"]] == [first, second]
    assert air(batch["sessions"][0])["archived"] is True
    assert unarchived == {} and late == []
    assert air(after_restart[first])["archived"] is False
    assert after_restart[first]["title"] == "Fix the bug"


@pytest.mark.asyncio
async def test_bad_index_requests_change_nothing(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", client_meta=INDEX_CLIENT) as adapter:
        session = await adapter.new_session()
        assert isinstance(await adapter.prompt(session, "hello"), PromptResponse)
        (path,) = (adapter.config_dir / "projects").glob(f"*/{session}.jsonl")
        before = path.read_bytes()
        unknown = "00000000-0000-4000-8000-000000000000"
        cases: list[tuple[str, dict[str, Any]]] = [
            ("_session/rename", {"sessionId": unknown, "title": "x"}),
            ("_session/rename", {"sessionId": session, "title": "  \n "}),
            ("_session/rename", {"sessionId": "", "title": "x"}),
            ("_session/archive", {"sessionId": unknown}),
            ("_session/archive", {"sessionId": "../../etc/passwd"}),
            ("_session/unarchive", {}),
            ("_session/batch_get", {"sessionIds": [session, session]}),
            ("_session/batch_get", {"sessionIds": [session], "_meta": {}}),
            ("_session/list/subscribe", {"cwd": "relative/path"}),
            ("_session/list/unsubscribe", {}),
            ("session/list", {"cwd": "relative"}),
            ("session/list", {"_meta": {"jetbrains": {"air": {"list": {"limit": 0}}}}}),
            ("session/list", {"_meta": {"jetbrains": {"air": {"list": {"archived": "x"}}}}}),
            ("session/list", {"cursor": "not-a-cursor"}),
        ]
        codes = [getattr(await call(adapter, m, p), "code", None) for m, p in cases]
        long_title = await call(
            adapter, "_session/rename", {"sessionId": session, "title": "y" * 10_000}
        )
        unsubscribe_unknown = await call(
            adapter, "_session/list/unsubscribe", {"subscriptionId": "nope"}
        )
        stored = last_records(adapter, session)
        untouched = path.read_bytes()[: len(before)] == before
    assert codes == [
        -32002,
        -32602,
        -32602,
        -32002,
        -32002,
        -32602,
        -32602,
        -32602,
        -32602,
        -32602,
        -32602,
        -32602,
        -32602,
        -32602,
    ]
    assert long_title == {} and unsubscribe_unknown == {}
    assert stored[0]["customTitle"] == "y" * 200  # Claude Code's limit
    assert untouched  # only appended to
