"""`adapter.view.compaction_updates`: the edges the end-to-end test does not walk (a boundary
with no start, an interrupted compaction, frames of odd shapes)."""

from __future__ import annotations

from adapter.view.compaction_updates import CompactionUpdates


def _update(compaction_id: str, status: str) -> dict[str, str]:
    return {"sessionUpdate": "compaction_update", "compactionId": compaction_id, "status": status}


def test_a_boundary_with_no_start_is_a_compaction_of_its_own() -> None:
    updates = CompactionUpdates()
    assert updates.system("compact_boundary", {"uuid": "b"}) == [
        _update("b", "in_progress"),
        _update("b", "completed"),
    ]
    assert updates.system("compact_boundary", {"compact_metadata": {}}) == []  # no id: nothing


def test_the_boundary_after_a_success_repeats_nothing() -> None:
    updates = CompactionUpdates()
    assert updates.system("status", {"status": "compacting", "uuid": "c"}) == [
        _update("c", "in_progress")
    ]
    assert updates.system("status", {"compact_result": "success"}) == [_update("c", "completed")]
    assert updates.system("compact_boundary", {"uuid": "c-boundary"}) == []
    assert updates.turn_ended() == []


def test_an_interrupted_compaction_is_cancelled_and_its_summary_stops() -> None:
    updates = CompactionUpdates()
    updates.system("status", {"status": "compacting", "uuid": "c"})
    assert updates.system("status", {"status": "compacting", "uuid": "d"}) == []  # one at a time
    delta = {"type": "content_block_delta", "delta": {"type": "compaction_delta", "content": "x"}}
    assert updates.stream(delta)[0]["content"] == {"type": "text", "text": "x"}
    assert updates.turn_ended() == [_update("c", "cancelled")]
    assert updates.stream(delta) == []  # no compaction open: not a summary of one


def test_a_failure_carries_the_error_only_when_it_is_text() -> None:
    updates = CompactionUpdates()
    updates.system("status", {"status": "compacting", "uuid": "c"})
    failed = updates.system("status", {"compact_result": "failed", "compact_error": {"x": 1}})
    assert failed == [_update("c", "failed")]
    assert updates.system("status", {"compact_result": "weird"}) == []
    assert updates.stream("not an event") == []
