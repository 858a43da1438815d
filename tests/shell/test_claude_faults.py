"""Claude sending broken frames, or going idle with no result, while its process lives on, in
process (`agent_in_process`, the real SDK reading the scripted Claude in this process): every
prompt still gets exactly one answer, promptly, and the agent keeps serving that session and one
beside it. The faults only a real process can play (it dies, exits, breaks its stream) are end to
end: tests/e2e/test_claude_faults.py.

Each test's agent plays "success" for a session but the faulty one, whose folder names its
scenario (`folder_playing`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fault_rows import FAULTS, Fault, check_fault
from tests.support.shell_harness import agent_in_process, ends_its_process, folder_playing

LIVING_FAULTS = [fault for fault in FAULTS if not ends_its_process(fault.scenario)]


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
@pytest.mark.parametrize("fault", LIVING_FAULTS, ids=[f.scenario for f in LIVING_FAULTS])
async def test_fault_gets_one_answer_and_the_adapter_keeps_serving(
    tmp_path: Path, fault: Fault, capable: bool
) -> None:
    async with agent_in_process(tmp_path, "success", capable=capable) as adapter:
        session = await adapter.new_session(folder_playing(adapter, "faulty", fault.scenario))
        await check_fault(adapter, session, fault, capable=capable)
    if not capable:
        # docs/decisions.md#legacy-clients: never a record for a legacy client
        assert adapter.records() == []
