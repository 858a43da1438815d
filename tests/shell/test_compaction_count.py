"""How many compactions a session's transcript holds (adapter/session/compaction_count.py): read
at once when the transcript is short, in a worker thread when it is long, the same either way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest

from adapter.claude.sdk_compat import sanitize_path
from adapter.session import compaction_count


def _transcript(tmp_path: Path, cwd: str, lines: list[dict[str, Any]]) -> dict[str, str]:
    folder = tmp_path / "config" / "projects" / sanitize_path(cwd)
    folder.mkdir(parents=True)
    with (folder / "s1.jsonl").open("w") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}


def _boundary(uuid: str) -> dict[str, Any]:
    return {"type": "system", "subtype": "compact_boundary", "uuid": uuid, "sessionId": "s1"}


def _said(n: int, padding: int = 0) -> dict[str, Any]:
    text = f"message {n}" + " " * padding
    return {"type": "user", "uuid": f"u{n}", "message": {"role": "user", "content": text}}


def _threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    used: list[str] = []
    real = anyio.to_thread.run_sync

    async def run_sync(work: Any, *args: Any) -> Any:
        used.append(work.__name__)
        return await real(work, *args)

    monkeypatch.setattr(anyio.to_thread, "run_sync", run_sync)
    return used


@pytest.mark.asyncio
async def test_a_short_transcript_is_counted_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = str(tmp_path)
    env = _transcript(tmp_path, cwd, [_said(1), _boundary("b1"), _said(2), _boundary("b2")])
    used = _threads(monkeypatch)
    assert await compaction_count.boundaries_before("s1", cwd, env) == 2
    assert await compaction_count.boundaries_before("s1", cwd, env, stop="b2") == 1
    assert used == []


@pytest.mark.asyncio
async def test_a_long_transcript_is_counted_in_a_worker_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = str(tmp_path)
    long_lines = [_said(n, padding=1000) for n in range(40)]  # over the short bound
    env = _transcript(tmp_path, cwd, [*long_lines, _boundary("b1"), _said(99), _boundary("b2")])
    used = _threads(monkeypatch)
    assert await compaction_count.boundaries_before("s1", cwd, env) == 2
    assert await compaction_count.boundaries_before("s1", cwd, env, stop="b2") == 1
    assert used == ["_count", "_count"]


@pytest.mark.asyncio
async def test_no_transcript_counts_none(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    assert await compaction_count.boundaries_before("s1", str(tmp_path), env) == 0


@pytest.mark.asyncio
async def test_a_short_transcript_naming_no_boundary_is_not_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = str(tmp_path)
    env = _transcript(tmp_path, cwd, [_said(1), _said(2)])

    def parsed(*_: Any) -> Any:
        raise AssertionError("parsed")

    monkeypatch.setattr(compaction_count, "entries", parsed)
    assert await compaction_count.boundaries_before("s1", cwd, env) == 0


@pytest.mark.asyncio
async def test_a_boundary_spelt_with_escapes_is_still_counted(tmp_path: Path) -> None:
    cwd = str(tmp_path)
    env = _transcript(tmp_path, cwd, [_said(1)])
    path = tmp_path / "config" / "projects" / sanitize_path(cwd) / "s1.jsonl"
    escaped = json.dumps(_boundary("b1")).replace("compact_boundary", "\\u0063ompact_boundary")
    with path.open("a") as out:
        out.write(escaped + "\n")
    assert b"compact_boundary" not in path.read_bytes()
    assert await compaction_count.boundaries_before("s1", cwd, env) == 1
