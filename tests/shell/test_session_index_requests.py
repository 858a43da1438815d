"""JetBrains AIR's session index in process (`adapter.agent.session_index` over
`adapter.claude.index_rows` and `session_archive`): the router answers the index methods and
`session/list` for a client that negotiated the index, passes everything else on, and reads
and writes transcripts written by hand; a list subscription hears of a session another process
wrote, and nothing after it unsubscribed. Worktrees are found without git."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from acp import RequestError

from adapter.agent.session_index import SessionIndexRequests
from adapter.claude import index_rows
from adapter.claude.sdk_compat import sanitize_path
from adapter.wire.client_link import ClientLink
from fsm import LiveRecord, air_client

A = "0b6c5e2a-0000-4000-8000-00000000000a"
B = "0b6c5e2a-0000-4000-8000-00000000000b"
C = "0b6c5e2a-0000-4000-8000-00000000000c"
INDEX = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionIndex"]}}}


class _Link:
    def __init__(self) -> None:
        self.notifications: list[tuple[str, dict[str, Any]]] = []
        self.updates: list[tuple[str, dict[str, Any]]] = []

    async def notify(self, method: str, params: dict[str, Any], session_id: str) -> bool:
        self.notifications.append((method, params))
        return True

    async def send_raw_update(self, session_id: str, update: dict[str, Any]) -> bool:
        self.updates.append((session_id, update))
        return True


class _Host:
    async def close_session(self, session_id: str, **kwargs: Any) -> Any:
        raise AssertionError("no session runs here")


def _transcript(config: Path, cwd: str, session_id: str, prompt: str, at: str) -> Path:
    path = config / "projects" / sanitize_path(cwd) / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {
            "type": "user",
            "sessionId": session_id,
            "cwd": cwd,
            "timestamp": at,
            "message": {"role": "user", "content": prompt},
        },
        {
            "type": "assistant",
            "sessionId": session_id,
            "cwd": cwd,
            "timestamp": at,
            "message": {"model": "claude-test", "stop_reason": "end_turn", "content": []},
        },
    ]
    with path.open("a", encoding="utf-8") as out:
        out.write("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    # The SDK's own title lookup reads the process environment, as the adapter's listing does.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    return folder


def _index(config: Path, tg: Any, meta: Any = INDEX) -> tuple[SessionIndexRequests, _Link]:
    link = _Link()
    index = SessionIndexRequests(
        host=_Host(),
        sessions={},
        link=cast(ClientLink, link),
        env={"CLAUDE_CONFIG_DIR": str(config)},
        task_group=tg,
    )
    index.negotiate(air_client(meta))
    return index, link


async def _passed_on(method: str, params: Any, is_notification: bool) -> Any:
    return {"passed": method}


async def _call(index: SessionIndexRequests, method: str, params: Any) -> Any:
    try:
        return await index.guard(_passed_on)(method, params, False)
    except RequestError as exc:
        return exc


@pytest.mark.anyio
async def test_list_rename_archive_and_batch_get(config: Path, tmp_path: Path) -> None:
    cwd = str(tmp_path / "repo")
    os.mkdir(cwd)
    older = _transcript(config, cwd, A, "first task", "2026-12-01T10:00:00.000Z")
    _transcript(config, cwd, B, "second task", "2026-12-02T10:00:00.000Z")
    async with anyio.create_task_group() as tg:
        index, link = _index(config, tg)
        listed = await _call(index, "session/list", {"cwd": cwd})
        page = await _call(
            index,
            "session/list",
            {"cwd": cwd, "_meta": {"jetbrains": {"air": {"list": {"limit": 1}}}}},
        )
        rest = await _call(
            index,
            "session/list",
            {
                "cwd": cwd,
                "cursor": page["nextCursor"],
                "_meta": {"jetbrains": {"air": {"list": {"limit": 1}}}},
            },
        )
        renamed = await _call(index, "_session/rename", {"sessionId": A, "title": "Named"})
        archived = await _call(index, "_session/archive", {"sessionId": A})
        after = await _call(index, "session/list", {"cwd": cwd})
        batch = await _call(index, "_session/batch_get", {"sessionIds": [A, C, B]})
        renamed_archived = await _call(index, "_session/rename", {"sessionId": A, "title": "Again"})
        still = await _call(index, "_session/batch_get", {"sessionIds": [A]})
        passed = await _call(index, "session/prompt", {})
        tg.cancel_scope.cancel()
    assert [row["sessionId"] for row in listed["sessions"]] == [B, A]  # newest first
    row = listed["sessions"][1]
    assert row["title"] == "first task" and row["updatedAt"] == "2026-12-01T10:00:00.000Z"
    assert row["_meta"]["jetbrains"]["air"] == {
        "version": 1,
        "archived": False,
        "lastPromptAt": "2026-12-01T10:00:00.000Z",
        "model": "claude-test",
        "state": "idle",
        "lastTurnEndedAt": "2026-12-01T10:00:00.000Z",
    }
    assert [r["sessionId"] for r in page["sessions"]] == [B] and "nextCursor" not in rest
    assert [r["sessionId"] for r in rest["sessions"]] == [A]
    assert renamed == {} and archived == {}
    sidecar = older.parent / A / "custom-title.json"
    assert json.loads(sidecar.read_text(encoding="utf-8")) == {"customTitle": "[archived] Again"}
    assert stat.S_IMODE(sidecar.stat().st_mode) == 0o600
    assert [r["sessionId"] for r in after["sessions"]] == [B]
    assert [r["sessionId"] for r in batch["sessions"]] == [A, B]
    assert batch["sessions"][0]["title"] == "Named"
    assert batch["sessions"][0]["_meta"]["jetbrains"]["air"]["archived"] is True
    assert renamed_archived == {}
    assert still["sessions"][0]["title"] == "Again"  # a rename keeps the archive state
    assert still["sessions"][0]["_meta"]["jetbrains"]["air"]["archived"] is True
    assert passed == {"passed": "session/prompt"}
    assert link.updates == []  # nothing loaded here: no session is told


@pytest.mark.anyio
@pytest.mark.parametrize(
    "meta",
    [None, {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}],
    ids=["plain", "air"],
)
async def test_without_the_index_the_methods_are_unknown_and_list_passes_on(
    config: Path, meta: Any
) -> None:
    async with anyio.create_task_group() as tg:
        index, _ = _index(config, tg, meta)
        refused = await _call(index, "_session/rename", {"sessionId": A, "title": "x"})
        listed = await _call(index, "session/list", {})
        tg.cancel_scope.cancel()
    assert isinstance(refused, RequestError) and refused.code == -32601
    assert listed == {"passed": "session/list"}


@pytest.mark.anyio
async def test_a_subscription_hears_another_process_and_nothing_after_unsubscribe(
    config: Path, tmp_path: Path
) -> None:
    cwd = str(tmp_path / "repo")
    os.mkdir(cwd)
    _transcript(config, cwd, A, "already there", "2026-12-01T10:00:00.000Z")
    async with anyio.create_task_group() as tg:
        index, link = _index(config, tg)
        answer = await _call(index, "_session/list/subscribe", {"cwd": cwd})
        subscription = answer["subscriptionId"]
        await anyio.sleep(1.5)  # a look with nothing changed: nothing is sent
        quiet = list(link.notifications)
        _transcript(config, cwd, B, "from elsewhere", "2026-12-03T10:00:00.000Z")
        with anyio.fail_after(20):
            while not link.notifications:
                await anyio.sleep(0.05)
        heard = list(link.notifications)
        # Archived here: the subscription hears at once.
        await _call(index, "_session/archive", {"sessionId": B})
        with anyio.fail_after(20):
            while len(link.notifications) < 2:
                await anyio.sleep(0.05)
        archived = link.notifications[1]
        assert (
            await _call(index, "_session/list/unsubscribe", {"subscriptionId": subscription}) == {}
        )
        (config / "projects" / sanitize_path(cwd) / f"{B}.jsonl").unlink()
        await anyio.sleep(2.5)
        tg.cancel_scope.cancel()
    assert quiet == []
    ((method, params),) = heard
    assert method == "_session/list/changes" and params["subscriptionId"] == subscription
    assert [s["sessionId"] for s in params["sessions"]] == [B] and params["removed"] == []
    assert archived[1]["sessions"][0]["_meta"]["jetbrains"]["air"]["archived"] is True
    assert len(link.notifications) == 2  # the delete after unsubscribing: nothing


def _git_file(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_worktrees_are_read_without_git(tmp_path: Path) -> None:
    main = tmp_path / "main"
    (main / ".git" / "worktrees" / "feature").mkdir(parents=True)
    (main / "sub").mkdir()
    feature = tmp_path / "feature"
    (feature / "sub").mkdir(parents=True)
    _git_file(feature / ".git", f"gitdir: {main / '.git' / 'worktrees' / 'feature'}\n")
    _git_file(main / ".git" / "worktrees" / "feature" / "gitdir", f"{feature / '.git'}\n")
    _git_file(main / ".git" / "worktrees" / "feature" / "commondir", "../..\n")
    gone = main / ".git" / "worktrees" / "gone"
    _git_file(gone / "gitdir", f"{tmp_path / 'gone' / '.git'}\n")
    assert index_rows.checkouts(str(main / "sub")) == [str(main / "sub"), str(feature / "sub")]
    assert index_rows.checkouts(str(feature / "sub")) == [str(feature / "sub"), str(main / "sub")]
    assert index_rows.in_linked_worktree(str(feature / "sub"))
    assert not index_rows.in_linked_worktree(str(main / "sub"))
    outside = tmp_path / "plain"
    outside.mkdir()
    assert index_rows.checkouts(str(outside)) == [str(outside)]


@pytest.mark.anyio
async def test_title_changes_of_one_session_run_one_after_another(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A slow archive: it decides its title from the one it read, and takes a while to write
    # it; a rename that overlapped would read the same old title, and one would undo the other.
    from adapter.agent import session_index

    decide: Callable[[bool, str | None, str], str | None]
    decide = getattr(session_index, "archive_to")  # noqa: B009 - the name the module calls

    def slow(archived: bool, current: str | None, session_id: str) -> str | None:
        time.sleep(0.5)
        return decide(archived, current, session_id)

    monkeypatch.setattr(session_index, "archive_to", slow)
    cwd = str(tmp_path / "repo")
    os.mkdir(cwd)
    path = _transcript(config, cwd, A, "a task", "2026-12-01T10:00:00.000Z")
    async with anyio.create_task_group() as tg:
        index, _ = _index(config, tg)
        answers: list[Any] = []

        async def ask(method: str, params: dict[str, Any]) -> None:
            answers.append(await _call(index, method, params))

        async with anyio.create_task_group() as both:
            both.start_soon(ask, "_session/archive", {"sessionId": A})
            both.start_soon(ask, "_session/rename", {"sessionId": A, "title": "Renamed"})
        final = await _call(index, "_session/batch_get", {"sessionIds": [A]})
        tg.cancel_scope.cancel()
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][2:]
    assert answers == [{}, {}]
    # In arrival order: the archive's pair, then the rename's, which kept the archive state.
    assert [r.get("customTitle", r.get("agentName")) for r in records] == [
        "[archived] a task",
        "[archived] a task",
        "[archived] Renamed",
        "[archived] Renamed",
    ]
    row = final["sessions"][0]
    assert row["title"] == "Renamed" and row["_meta"]["jetbrains"]["air"]["archived"] is True


class _Registry:
    def __init__(self, live: dict[str, LiveRecord]) -> None:
        self.live = live

    def snapshot(self) -> dict[str, LiveRecord]:
        return self.live


@pytest.mark.anyio
async def test_a_live_session_whose_turn_left_a_task_open_is_running(
    config: Path, tmp_path: Path
) -> None:
    """The task starts before the tail the index reads: the whole transcript of a live
    session is read for it."""
    cwd = str(tmp_path / "repo")
    os.mkdir(cwd)
    path = _transcript(config, cwd, A, "watch the build", "2026-12-01T10:00:00.000Z")
    started = {"type": "user", "cwd": cwd, "toolUseResult": {"backgroundTaskId": "sh1"}}
    padding = (json.dumps({"type": "progress"}) + "\n") * 4000
    ended = {"type": "assistant", "message": {"stop_reason": "end_turn", "content": []}}
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(started) + "\n" + padding + json.dumps(ended) + "\n")
    assert path.stat().st_size > 64 * 1024  # beyond the tail window
    held = LiveRecord(pid=7, session_id=A, kind="interactive", entrypoint="sdk-py", status="busy")
    states = []
    async with anyio.create_task_group() as tg:
        index, _ = _index(config, tg)
        for live in ({A: held}, {A: replace(held, status="idle")}, {}):
            index._registry = cast(Any, _Registry(live))
            listed = await _call(index, "session/list", {"cwd": cwd})
            states.append(listed["sessions"][0]["_meta"]["jetbrains"]["air"]["state"])
        tg.cancel_scope.cancel()
    assert states == ["running", "idle", "idle"]


def test_the_whole_transcript_is_searched_a_chunk_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task stopped by a TaskStop call in one chunk and its result in the next is closed;
    another stays open."""
    monkeypatch.setattr(index_rows, "_SEARCH_CHUNK", 10)
    path = tmp_path / "t.jsonl"
    stop_call = {"type": "tool_use", "name": "TaskStop", "id": "toolu_stop"}
    stop_result = {"type": "tool_result", "tool_use_id": "toolu_stop"}
    records = [
        {"type": "user", "toolUseResult": {"backgroundTaskId": "sh1"}},
        {"type": "user", "toolUseResult": {"backgroundTaskId": "sh2"}},
        {"type": "assistant", "message": {"content": [stop_call]}},
        {
            "type": "user",
            "message": {"content": [stop_result]},
            "toolUseResult": {"task_id": "sh1"},
        },
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    row = index_rows.row_of(A, A, path, None, None)
    assert row is not None and row.facts.background_tasks.complete  # a small file is whole
    searched = index_rows.with_all_tasks(row)
    assert searched.facts.background_tasks.open == ("sh2",)
    assert searched.facts.background_tasks.complete
