"""Claude sending broken frames, or going idle with no result, while its process lives on, in
process (`agent_in_process`, the real SDK reading the scripted Claude in this process): every
prompt still gets exactly one answer, promptly, and the agent keeps serving that session and one
beside it; a turn that goes idle without a result fails as an internal error, in the client's
mode. The faults only a real process can play (it dies, exits, breaks its stream) are end to
end: tests/e2e/test_claude_faults.py.

Each test's agent plays "success" for a session but the faulty one, whose folder names its
scenario (`folder_playing`)."""

from __future__ import annotations

from pathlib import Path

import acp
import pytest
from acp.schema import PromptResponse

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


@pytest.mark.asyncio
async def test_turn_that_goes_idle_without_a_result_fails_as_internal_error(
    tmp_path: Path,
) -> None:
    async with agent_in_process(tmp_path, "idle_without_result") as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
        again = await adapter.prompt(session, "hello again")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [(carrier, record)] = adapter.records()
    assert carrier == "prompt_response"
    assert record["category"] == "service" and record["severity"] == "error"
    assert record["actions"] == ["retry"]
    assert record["title"].startswith("The turn ended without a result")
    # The process stayed up: the next prompt is answered on the same runtime.
    assert isinstance(again, PromptResponse) and again.stop_reason == "end_turn"


@pytest.mark.asyncio
async def test_idle_without_result_rejects_a_legacy_prompt_with_no_result(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "idle_without_result", capable=False) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    assert isinstance(answer, acp.RequestError)
    assert answer.code == -32603 and answer.data == {"errorKind": "no_result"}
