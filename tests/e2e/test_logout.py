"""`logout`, which acp 0.12.1 does not route: the adapter runs the Claude Code
it drives as `claude auth logout` and answers `{}`; a running session's next prompt starts a
fresh Claude (which reads the cleared credentials); a failed sign-out is -32603 and keeps the
CLI's stderr (which may name private paths) out of the answer. A logout while a turn runs
lets that turn finish (its Claude signed in before); the next prompt's fresh Claude finds no
credentials (the scripted Claude's `forget` sign-out) and the client gets the usual `access`
record with the `login` action.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse, RequestPermissionResponse

from adapter.scripted_claude.handshake import LOG_ENV
from adapter.scripted_claude.runtime import LOGOUT_ENV
from tests.support.harness import (
    TIMEOUT,
    Adapter,
    AdapterPool,
    RecordingClient,
    record_in,
    spawn_adapter,
)
from tests.support.scripted_log import is_auth_probe


def argvs(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    # Not the agent's sign-in reads (`claude auth status`, adapter.agent.auth_push).
    return [
        list(e["argv"]) for e in entries if e["kind"] == "argv" and not is_auth_probe(e["argv"])
    ]


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


class _HeldPermissions(RecordingClient):
    """Holds each permission question until `release` is set: the turn stays mid-way."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.asked = asyncio.Event()

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.set()
        await asyncio.wait_for(self.release.wait(), TIMEOUT)
        return await super().request_permission(options, session_id, tool_call, **kwargs)


@pytest.mark.asyncio
async def test_a_logout_while_a_turn_runs_lets_it_finish_and_the_next_one_asks_to_sign_in(
    tmp_path: Path,
) -> None:
    log = tmp_path / "claude-log.jsonl"
    client = _HeldPermissions()
    env = {LOG_ENV: str(log), LOGOUT_ENV: "forget"}
    async with spawn_adapter(tmp_path, "permission", env=env, client=client) as adapter:
        session = await adapter.new_session()
        running = asyncio.create_task(adapter.prompt(session, "run the tests"))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)
        # Signed out while the turn waits on the client: the logout is answered at once ...
        assert await logout(adapter) == {}
        assert not running.done()
        client.release.set()
        # ... and the turn, whose Claude signed in before, finishes with everything it said.
        finished = await asyncio.wait_for(running, TIMEOUT)
        said = adapter.agent_texts()
        after = await adapter.prompt(session, "still signed in?")
        assert adapter.answers() == {k: 1 for k in adapter.answers()}  # each prompt once
    assert isinstance(finished, PromptResponse) and finished.stop_reason == "end_turn"
    assert said and "/login" not in " ".join(said)
    # The next prompt's fresh Claude finds no credentials, and the client is told so in the
    # usual record (a sessionFailure client), not as a crash.
    _first, signed_out, fresh = argvs(log)
    assert signed_out == ["auth", "logout"] and "--output-format" in fresh
    records = [
        record
        for update in adapter.updates("session_info_update")
        if (record := record_in(update.get("_meta"))) is not None
    ]
    if isinstance(after, PromptResponse):
        answer_record = record_in(after.field_meta)
        records += [answer_record] if answer_record else []
    assert [(r["category"], r["severity"], r["actions"]) for r in records] == [
        ("access", "error", ["login"])
    ]
    # Claude's words for what happened, without its terminal-only "/login" instruction.
    assert records[0]["title"] == "API key is invalid"
