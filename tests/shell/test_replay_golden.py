"""Replay output is pinned: `adapter.session.load_replay.replay_transcript` over seeded, varied
transcripts
(`tests/support/replay_corpus.py`) must send exactly the updates and records it sent when the golden
digests in `tests/golden/replay.json` were recorded (before the single-pass replay).

A digest changes with any byte of any update, so a change to replay output must be a decided
one: record it again with `python -m tests.shell.test_replay_golden --record` and say why. Beside
the digests, one small case is kept whole and readable (`tests/golden/replay_readable.json`, every
update and record in order), so that a reviewer of a re-recording can see what changed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adapter.session.load_replay import replay_transcript
from tests.support.replay_corpus import corpus_bytes

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "replay.json"
READABLE = GOLDEN.with_name("replay_readable.json")
# (seed, turns, the file ends in an active usage limit)
CASES = [(1, 400, True), (2, 400, False), (3, 60, True), (4, 1, False), (5, 2_000, True)]
# The case kept whole: a few turns with a plan, a thought, a tool call and restored records.
READABLE_CASE = (3, 4, True)


async def _nothing_stored(self: object, stored: object) -> bool:
    return False


class _Recorder:
    """The session surface replay uses; keeps a digest of every update and record in order."""

    def __init__(self, capable: bool, terminal: bool) -> None:
        self.session_id = "golden-session"
        self.cwd = "/tmp/p"
        self.core = type("Core", (), {"notices": capable})()
        self.view = type(
            "View",
            (),
            {
                "terminal": terminal,
                "terminal_delta": False,
                "compaction_updates": False,
                "plan_updates": False,  # no `plan` declared: no approved plan sent
                "air": None,
                # The replayed task list goes to the live view; no update of its own.
                "adopt_tasks": lambda self, tasks: None,
                # The corpus's sessions have no name stored: the first prompt names them.
                "read_title": _nothing_stored,
            },
        )()
        self.digest = hashlib.sha256()
        self.updates = 0
        self.records = 0
        self.sent: list[Any] = []  # what the digest covers, whole: updates, and records by repr

    async def send_raw(self, update: dict[str, Any]) -> bool:
        self.digest.update(json.dumps(update, sort_keys=True).encode() + b"\n")
        self.updates += 1
        self.sent.append(update)
        return True

    async def send_raws(self, updates: list[dict[str, Any]], session_id: str | None = None) -> bool:
        assert session_id in (None, self.session_id)  # no child sessions for this client
        for update in updates:
            await self.send_raw(update)
        return True

    async def feed(self, event: Any, message: Any = None) -> None:
        self.digest.update(repr(event).encode() + b"\n")
        self.records += 1
        self.sent.append({"record": repr(event)})


def _replayed(
    tmp: Path, seed: int, turns: int, end_with_limit: bool, capable: bool
) -> tuple[_Recorder, Any]:
    path = tmp / f"{seed}-{capable}.jsonl"
    path.write_bytes(corpus_bytes(seed, turns, end_with_limit=end_with_limit))
    session = _Recorder(capable=capable, terminal=seed % 2 == 0)
    stats = asyncio.run(replay_transcript(session, path))  # type: ignore[arg-type]
    return session, stats


def _replay(
    tmp: Path, seed: int, turns: int, end_with_limit: bool, capable: bool
) -> dict[str, Any]:
    session, stats = _replayed(tmp, seed, turns, end_with_limit, capable)
    return {
        "updates": session.updates,
        "records": session.records,
        "lines": stats.lines,
        "skipped": stats.skipped,
        "non_message": stats.non_message,
        "restored": stats.restored,
        "sha256": session.digest.hexdigest(),
    }


def _key(seed: int, turns: int, end_with_limit: bool, capable: bool) -> str:
    return f"seed={seed} turns={turns} limit_at_end={end_with_limit} capable={capable}"


@pytest.mark.parametrize("capable", [True, False])
@pytest.mark.parametrize(("seed", "turns", "end_with_limit"), CASES)
def test_replay_output_matches_the_golden_record(
    tmp_path: Path, seed: int, turns: int, end_with_limit: bool, capable: bool
) -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    got = _replay(tmp_path, seed, turns, end_with_limit, capable)
    assert got == golden[_key(seed, turns, end_with_limit, capable)]


def test_the_golden_corpus_exercises_what_it_claims(tmp_path: Path) -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    big = golden[_key(5, 2_000, True, True)]
    # Records restored, corrupt and non-message lines skipped: the digests cover all three.
    assert big["records"] > 100 and big["skipped"] > 10 and big["non_message"] > 10
    assert golden[_key(5, 2_000, True, False)]["records"] == 0


def test_the_readable_case_is_what_replay_sends(tmp_path: Path) -> None:
    session, _ = _replayed(tmp_path, *READABLE_CASE, capable=True)
    assert session.sent == json.loads(READABLE.read_text(encoding="utf-8"))
    kinds = {u.get("sessionUpdate", "record") for u in session.sent}
    assert {"plan", "agent_thought_chunk", "tool_call", "record"} <= kinds


def _record() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        golden = {
            _key(*case, capable): _replay(Path(tmp), *case, capable)
            for case in CASES
            for capable in (True, False)
        }
        readable, _ = _replayed(Path(tmp), *READABLE_CASE, capable=True)
    GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    text = json.dumps(readable.sent, indent=1, sort_keys=True, ensure_ascii=False)
    READABLE.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__" and "--record" in sys.argv:
    _record()
