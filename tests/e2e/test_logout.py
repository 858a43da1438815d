"""`logout` (issue 23 item 7), which acp 0.12.1 does not route: the adapter runs the Claude Code
it drives as `claude auth logout` and answers `{}`; a running session's next prompt starts a
fresh Claude (which reads the cleared credentials); a failed sign-out is -32603 and keeps the
CLI's stderr (which may name private paths) out of the answer.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.handshake import LOG_ENV
from adapter.scripted_claude.runtime import LOGOUT_ENV
from tests.support.harness import TIMEOUT, Adapter, AdapterPool


def argvs(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return [list(e["argv"]) for e in entries if e["kind"] == "argv"]


async def logout(adapter: Adapter) -> Any:
    return await asyncio.wait_for(adapter.conn._conn.send_request("logout", {}), TIMEOUT)


@pytest.mark.asyncio(loop_scope="module")
async def test_logout_runs_claudes_own_and_sessions_start_afresh(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    log = tmp_path / "claude-log.jsonl"
    async with adapters.session_adapter(tmp_path, "success", env={LOG_ENV: str(log)}) as adapter:
        session = await adapter.new_session()
        assert isinstance(await adapter.prompt(session, "hello"), PromptResponse)
        answer = await logout(adapter)
        after = await adapter.prompt(session, "still signed in?")
        [capabilities] = [
            m["result"]["agentCapabilities"]
            for m in adapter.incoming()
            if isinstance(m.get("result"), dict) and "agentCapabilities" in m["result"]
        ]
    assert answer == {}
    assert capabilities["auth"] == {"logout": {}}
    first, signed_out, fresh = argvs(log)
    assert signed_out == ["auth", "logout"]
    # The next prompt started a new Claude process (without logout it would reuse the first).
    assert "--output-format" in first and "--output-format" in fresh
    assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn"


@pytest.mark.asyncio(loop_scope="module")
async def test_a_failed_logout_is_an_internal_error_without_the_clis_stderr(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with adapters.session_adapter(tmp_path, "success", env={LOGOUT_ENV: "fail"}) as adapter:
        with pytest.raises(acp.RequestError) as caught:
            await logout(adapter)
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
    assert caught.value.code == -32603
    assert "exited with status 1" in str(caught.value)
    assert "/home/someone" not in json.dumps(caught.value.to_error_obj())
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
