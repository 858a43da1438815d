"""`adapter.view.compaction_updates`: the edges the end-to-end test does not walk (a boundary
with no start, an interrupted compaction, frames of odd shapes). Compactions are named by
their place in the session (`adapter.view.compaction_ids`), never by Claude Code's uuids."""

from __future__ import annotations

from adapter.view.compaction_ids import CompactionIds, compaction_id
from adapter.view.compaction_updates import CompactionUpdates, cleaned_summary

SESSION = "s-1"


def _update(compaction: str, status: str) -> dict[str, str]:
    return {"sessionUpdate": "compaction_update", "compactionId": compaction, "status": status}


def _updates() -> CompactionUpdates:
    return CompactionUpdates(CompactionIds(SESSION, before=0))


def test_a_boundary_with_no_start_is_a_compaction_of_its_own() -> None:
    updates = _updates()
    first, second = compaction_id(SESSION, 0), compaction_id(SESSION, 1)
    assert updates.system("compact_boundary", {"uuid": "b"}) == [
        _update(first, "in_progress"),
        _update(first, "completed"),
    ]
    # A boundary carries no name the adapter uses: one with no uuid is the next compaction.
    assert updates.system("compact_boundary", {"compact_metadata": {}}) == [
        _update(second, "in_progress"),
        _update(second, "completed"),
    ]


def test_the_boundary_after_a_success_repeats_nothing() -> None:
    updates = _updates()
    c = compaction_id(SESSION, 0)
    assert updates.system("status", {"status": "compacting", "uuid": "c"}) == [
        _update(c, "in_progress")
    ]
    assert updates.system("status", {"compact_result": "success"}) == [_update(c, "completed")]
    assert updates.system("compact_boundary", {"uuid": "c-boundary"}) == []
    assert updates.turn_ended() == []
    # The next compaction is one further on.
    assert updates.system("status", {"status": "compacting"}) == [
        _update(compaction_id(SESSION, 1), "in_progress")
    ]


def test_an_interrupted_compaction_is_cancelled_and_its_summary_stops() -> None:
    updates = _updates()
    c = compaction_id(SESSION, 0)
    updates.system("status", {"status": "compacting", "uuid": "c"})
    assert updates.system("status", {"status": "compacting", "uuid": "d"}) == []  # one at a time
    delta = {"type": "content_block_delta", "delta": {"type": "compaction_delta", "content": "x"}}
    assert updates.stream(delta)[0]["content"] == {"type": "text", "text": "x"}
    assert updates.turn_ended() == [_update(c, "cancelled")]
    assert updates.stream(delta) == []  # no compaction open: not a summary of one
    # The retry at the same place never reuses the cancelled one's name.
    [retry] = updates.system("status", {"status": "compacting"})
    assert retry == _update(compaction_id(SESSION, 0, retry=1), "in_progress")
    assert retry["compactionId"] != c


def test_a_failure_carries_the_error_only_when_it_is_text() -> None:
    updates = _updates()
    c = compaction_id(SESSION, 0)
    updates.system("status", {"status": "compacting", "uuid": "c"})
    failed = updates.system("status", {"compact_result": "failed", "compact_error": {"x": 1}})
    assert failed == [_update(c, "failed")]
    assert updates.system("status", {"compact_result": "weird"}) == []
    assert updates.stream("not an event") == []


def test_the_hook_summary_rides_on_the_completed_update_cleaned_unless_it_streamed() -> None:
    updates = _updates()
    first, second, third = (compaction_id(SESSION, n) for n in range(3))
    updates.system("status", {"status": "compacting"})
    updates.compacted("<analysis>scratch</analysis>\n<summary>Kept.</summary>")
    assert updates.system("status", {"compact_result": "success"}) == [
        {**_update(first, "completed"), "summary": [{"type": "text", "text": "Kept."}]}
    ]
    # Where the summary streamed as it is, the hook's copy is not sent again.
    updates.system("status", {"status": "compacting"})
    delta = {"type": "content_block_delta", "delta": {"type": "compaction_delta", "content": "y"}}
    assert len(updates.stream(delta)) == 1
    updates.compacted("<summary>y</summary>")
    assert updates.system("status", {"compact_result": "success"}) == [_update(second, "completed")]
    # Where what streamed differs from it, it is sent (the reference's rule).
    updates.system("status", {"status": "compacting"})
    assert len(updates.stream(delta)) == 1
    updates.compacted("<summary>y and more</summary>")
    assert updates.system("status", {"compact_result": "success"}) == [
        {**_update(third, "completed"), "summary": [{"type": "text", "text": "y and more"}]}
    ]
    # A summary that is only scratch is no summary.
    assert cleaned_summary("<analysis>only\nnotes</analysis>") == ""
