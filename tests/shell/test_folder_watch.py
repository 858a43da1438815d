"""`adapter.claude.folder_watch`: where inotify is to be had, a write, a new file or a new
project folder in a watched folder wakes the session list's subscriptions; nothing waiting
means no change."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from adapter.claude.folder_watch import FolderWatch

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
BOUND = 30  # only stops a hung test


@pytest.mark.asyncio
async def test_a_write_a_new_file_and_a_new_folder_are_changes(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    folder = projects / "-repo"
    folder.mkdir(parents=True)
    transcript = folder / "s.jsonl"
    transcript.write_text("{}\n", encoding="utf-8")
    watch = FolderWatch.open()
    assert watch is not None
    try:
        # A folder not there yet is watched through its parent.
        assert watch.watch([folder, projects / "-other"])
        assert not watch._drain()  # nothing written since: no change waiting
        with transcript.open("a", encoding="utf-8") as out:
            out.write("{}\n")
        with anyio.fail_after(BOUND):
            await watch.changed()
        assert not watch._drain()  # the burst was taken whole
        (projects / "-other").mkdir()
        with anyio.fail_after(BOUND):
            await watch.changed()
        # Watching a new set drops the folders no longer in it.
        assert watch.watch([projects / "-other"])
        assert set(watch._watches) == {projects / "-other"}
        watch._drain()  # the kernel's word that `-repo`'s watch is gone
        transcript.write_text("gone\n", encoding="utf-8")
        assert not watch._drain()  # `-repo` is no longer watched
    finally:
        watch.close()


def test_an_unwatchable_folder_says_so(tmp_path: Path) -> None:
    watch = FolderWatch.open()
    assert watch is not None
    try:
        assert not watch.watch([tmp_path / "missing" / "deeper"])
    finally:
        watch.close()
