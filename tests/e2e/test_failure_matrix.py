"""The failure matrix end to end, for the rows whose Claude process dies, exits or breaks its
stream (`ends_its_process`), both client modes: what only a real process can play. The other
rows are played in process, with the same checks: tests/shell/test_failure_matrix.py.

Each row states, from the contract and docs/decisions.md (never from what the code happens to do),
what a capable client must receive (every sessionFailure record, whole, with its revision sequence
and carrier, and the stop reason) and what a legacy client must receive (the JSON-RPC error, or the
stop reason; never a record; Claude's error prose as agent text). Every row then sends a second
prompt in the same session, which must succeed: after a crash or transport loss that means the
adapter started a new Claude process that resumed the session.

The adapter runs as a real subprocess over real stdio (`tests/support/harness.py`), and so does the
scripted Claude it spawns through the real `claude-agent-sdk`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.failure_rows import ROWS, Row, Run, check_both
from tests.support.harness import AdapterPool
from tests.support.shell_harness import ends_its_process

PROCESS_ROWS = [row for row in ROWS if ends_its_process(row.scenario)]


async def _run(adapters: AdapterPool, tmp_path: Path, scenario: str, *, capable: bool) -> Run:
    tmp_path.mkdir()
    async with adapters.session_adapter(tmp_path, scenario, capable=capable) as adapter:
        session = await adapter.new_session()
        first = await adapter.prompt(session, "first prompt")
        second = await adapter.prompt(session, "second prompt")
        prompts = adapter.prompt_uuids(session)
    return Run(adapter, session, first, second, prompts)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("row", PROCESS_ROWS, ids=[row.scenario for row in PROCESS_ROWS])
async def test_failure_row(adapters: AdapterPool, tmp_path: Path, row: Row) -> None:
    # The two client modes are independent adapter processes (each shared with the other rows of
    # its mode); they run side by side.
    capable, legacy = await asyncio.gather(
        _run(adapters, tmp_path / "capable", row.scenario, capable=True),
        _run(adapters, tmp_path / "legacy", row.scenario, capable=False),
    )
    check_both(row, capable, legacy)
