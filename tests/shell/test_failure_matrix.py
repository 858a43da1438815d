"""The failure matrix in process (`agent_in_process`): every row of `tests/support/failure_rows.py`
whose Claude process lives through the turn, both client modes, through a real ACP client, the
real SDK and the scripted Claude in this process. The rows whose process dies, exits or breaks
its stream are end to end: tests/e2e/test_failure_matrix.py.

Each row states, from the contract and docs/decisions.md (never from what the code happens to do),
what a capable client must receive (every sessionFailure record, whole, with its revision sequence
and carrier, and the stop reason) and what a legacy client must receive (the JSON-RPC error, or the
stop reason; never a record; Claude's error prose as agent text). Every row then sends a second
prompt in the same session, which must succeed.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.support.failure_rows import ROWS, UUID4, Row, Run, check_both
from tests.support.shell_harness import agent_in_process, ends_its_process

LIVING_ROWS = [row for row in ROWS if not ends_its_process(row.scenario)]


async def _run(tmp_path: Path, scenario: str, *, capable: bool) -> Run:
    tmp_path.mkdir()
    async with agent_in_process(tmp_path, scenario, capable=capable) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "first prompt")
        second = await adapter.prompt(session, "second prompt")
        prompts = adapter.prompt_uuids(session)
    return Run(adapter, session, first, second, prompts)


@pytest.mark.asyncio
@pytest.mark.parametrize("row", LIVING_ROWS, ids=[row.scenario for row in LIVING_ROWS])
async def test_failure_row(tmp_path: Path, row: Row) -> None:
    # The two client modes are independent agents, one after the other.
    capable = await _run(tmp_path / "capable", row.scenario, capable=True)
    legacy = await _run(tmp_path / "legacy", row.scenario, capable=False)
    check_both(row, capable, legacy)


@pytest.mark.asyncio
async def test_turn_ids_are_fresh_per_prompt(tmp_path: Path) -> None:
    # docs/decisions.md#turn-ids and "a later independent occurrence uses a new id": the same
    # failure twice in one session gives two incidents, each under its own turn's id.
    async with agent_in_process(tmp_path, "rate_limit") as adapter:
        session = await adapter.new_session()
        await adapter.prompt(session, "one")
        # Turn 2 of every scenario succeeds; a new session of the same process replays turn 1.
        other = await adapter.new_session()
        await adapter.prompt(other, "two")
        first_ids = adapter.prompt_uuids(session)
        other_ids = adapter.prompt_uuids(other)
    ids = [record["id"] for _, record in adapter.records()]
    assert ids == [f"{first_ids[0]}:error", f"{other_ids[0]}:error"]
    assert len(set(ids)) == 2
    assert all(UUID4.match(i.removesuffix(":error")) for i in ids)
    assert uuid.UUID(first_ids[0]).version == 4
