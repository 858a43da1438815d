"""The `agent_error` dialect when Claude's process dies mid-turn, end to end: one update before
the response, as for every other failure (the rest of the dialect, in process:
`tests/shell/test_agent_error_dialect.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.agent_error_rows import AGENT_ERROR_ONLY, ERRORS, check_one_agent_error
from tests.support.harness import AdapterPool
from tests.support.shell_harness import ends_its_process

ENDS_ITS_PROCESS = sorted(s for s in ERRORS if ends_its_process(s))


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("scenario", ENDS_ITS_PROCESS)
async def test_each_error_becomes_one_agent_error_before_the_response(
    adapters: AdapterPool, tmp_path: Path, scenario: str
) -> None:
    async with adapters.session_adapter(
        tmp_path, scenario, client_meta=AGENT_ERROR_ONLY
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    check_one_agent_error(adapter, scenario, answer)
