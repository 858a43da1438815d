"""What other ACP clients send that the schema of `acp` 0.12.1 does not route:
`session/set_model`, the earlier Claude adapter's method, which Emacs `acp.el` still sends, is
the model option under its old name; `session/set_mode` stays ACP's own.

Played in process (`agent_in_process`: the agent, the real SDK and the scripted Claude in this
process)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.support.harness import TIMEOUT
from tests.support.shell_harness import agent_in_process


def _claude_log(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _controls(tmp_path: Path, subtype: str) -> list[dict[str, Any]]:
    return [
        e["request"]
        for e in _claude_log(tmp_path)
        if e["kind"] == "control" and e["request"].get("subtype") == subtype
    ]


async def _raw(adapter: Any, method: str, params: dict[str, Any]) -> Any:
    return await asyncio.wait_for(adapter.conn._conn.send_request(method, params), TIMEOUT)


async def _refused(adapter: Any, method: str, params: dict[str, Any]) -> acp.RequestError:
    with pytest.raises(acp.RequestError) as caught:
        await _raw(adapter, method, params)
    return caught.value


@pytest.mark.asyncio
async def test_set_model_sets_the_model_option(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        by_value = await _raw(
            adapter, "session/set_model", {"sessionId": session, "modelId": "opus"}
        )
        # The full id Claude Code resolves an entry to is taken too (haiku's).
        by_id = await _raw(
            adapter, "session/set_model", {"sessionId": session, "modelId": "claude-haiku-4-5"}
        )
        moded = await asyncio.wait_for(
            adapter.conn.set_session_mode(session_id=session, mode_id="plan"), TIMEOUT
        )
        answer = await adapter.prompt(session, "hello")
    assert by_value == {} and by_id == {}
    assert moded is not None
    assert [r["model"] for r in _controls(tmp_path, "set_model")] == ["opus", "haiku"]
    # The first is the start-up's: Claude starts in auto, which this model list lacks.
    assert [r["mode"] for r in _controls(tmp_path, "set_permission_mode")] == ["default", "plan"]
    updates = [u for u in adapter.updates("config_option_update")]
    current = [
        next(o["currentValue"] for o in u["configOptions"] if o["id"] == "model") for u in updates
    ]
    assert current[:2] == ["opus", "haiku"]
    assert isinstance(answer, acp.schema.PromptResponse)


@pytest.mark.asyncio
async def test_set_model_refuses_what_it_cannot_take(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        unknown = await _refused(
            adapter, "session/set_model", {"sessionId": session, "modelId": "gpt-9"}
        )
        no_model = await _refused(adapter, "session/set_model", {"sessionId": session})
        no_session = await _refused(
            adapter, "session/set_model", {"sessionId": "nope", "modelId": "opus"}
        )
    assert [e.code for e in (unknown, no_model, no_session)] == [-32602] * 3
    assert "unknown value for model" in str(unknown)
    assert "modelId" in str(no_model)
    assert "no session 'nope' is open" in str(no_session)
    assert _controls(tmp_path, "set_model") == []
