"""The model picker follows Claude Code, end to end through the real stdio agent: `/model opus`
typed in the chat (Claude Code's `PostModelSwitch` hook, source `command`) and a fallback for
the rest of the session (`model_refusal_fallback`, `direction: retry`) each push a
`config_option_update` naming the model the session now runs; a fallback in a side question
only (`scope: local`) leaves the picker alone. A 1M-context alias (`sonnet[1m]`, whose API
model id names no `1m`) shows a 1,000,000-token window from the session's first update, not
200,000 until a result says otherwise.

Played in process (`agent_in_process`). End to end, in tests/e2e/test_model_following.py: `/model`
typed in the chat, Claude Code's `PostModelSwitch` hook (the hook's round trip through the SDK's
process).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, Adapter
from tests.support.model_picks import claude_entries, log_env, picked_models
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio


async def _set_model(adapter: Adapter, session: str, value: str) -> None:
    params = {"sessionId": session, "configId": "model", "value": value}
    answer = await asyncio.wait_for(
        adapter.conn._conn.send_request("session/set_config_option", params), TIMEOUT
    )
    assert isinstance(answer, dict), answer


async def test_a_fallback_for_the_session_moves_the_picker(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "model_fallback", env=log_env(tmp_path)) as adapter:
        session = await adapter.new_session()
        await _set_model(adapter, session, "opus")
        assert picked_models(adapter)[-1] == "opus"
        answer = await adapter.prompt(session, "review the exploit")
        assert isinstance(answer, PromptResponse), answer
    # claude-sonnet-4-5 is what the picker's `default` entry resolves to.
    assert picked_models(adapter)[-1] == "default", picked_models(adapter)


async def test_a_fallback_in_a_side_question_leaves_the_picker(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "model_fallback_local") as adapter:
        session = await adapter.new_session()
        await _set_model(adapter, session, "opus")
        picked = len(picked_models(adapter))
        answer = await adapter.prompt(session, "a side question")
        assert isinstance(answer, PromptResponse), answer
    assert picked_models(adapter)[picked:] == [], picked_models(adapter)


def _first_size(adapter: Adapter) -> int:
    sizes = [u["size"] for u in adapter.updates("usage_update") if "size" in u]
    assert sizes, adapter.updates("usage_update")
    return int(sizes[0])


async def test_a_one_million_alias_shows_its_window_from_the_start(tmp_path: Path) -> None:
    env = {"CLAUDE_ACP_SCRIPTED_MODELS": "one_million", "ANTHROPIC_MODEL": "sonnet[1m]"}
    async with agent_in_process(tmp_path, "success", env=env) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
        assert isinstance(answer, PromptResponse), answer
    assert _first_size(adapter) == 1_000_000


async def test_a_switch_to_a_one_million_alias_shows_its_window(tmp_path: Path) -> None:
    env = {"CLAUDE_ACP_SCRIPTED_MODELS": "one_million"}
    async with agent_in_process(tmp_path / "plain", "success", env=env) as plain:
        session = await plain.new_session()
        assert isinstance(await plain.prompt(session, "hello"), PromptResponse)
    assert _first_size(plain) == 200_000  # the alias's API model id names no 1m
    async with agent_in_process(tmp_path / "switched", "success", env=env) as adapter:
        session = await adapter.new_session()
        await _set_model(adapter, session, "sonnet[1m]")
        answer = await adapter.prompt(session, "hello")
        assert isinstance(answer, PromptResponse), answer
    assert _first_size(adapter) == 1_000_000


async def _measured(tmp_path: Path, times: int) -> list[dict[str, Any]]:
    """Claude Code's `get_context_usage` requests, once `times` of them have reached it."""
    for _ in range(200):
        asked = [
            c["request"]
            for c in claude_entries(tmp_path, "control")
            if c["request"].get("subtype") == "get_context_usage"
        ]
        if len(asked) >= times:
            return asked
        await asyncio.sleep(0.05)
    raise AssertionError("Claude Code was never asked for its context usage")


async def test_a_model_that_is_one_million_natively_shows_its_window(tmp_path: Path) -> None:
    # The default model (claude-sonnet-4-5) has a 1M window that no name of it says: the
    # adapter asks Claude Code (`get_context_usage`, summary) when the session opens, as the
    # reference adapter does, and the meter shows the window from the first update.
    env = log_env(tmp_path, CLAUDE_ACP_SCRIPTED_NATIVE_1M="claude-sonnet-4-5")
    async with agent_in_process(tmp_path, "success", env=env) as adapter:
        session = await adapter.new_session()
        asked = await _measured(tmp_path, 1)
        answer = await adapter.prompt(session, "hello")
        assert isinstance(answer, PromptResponse), answer
    assert asked[0] == {"subtype": "get_context_usage", "detail": "summary"}
    assert _first_size(adapter) == 1_000_000


async def test_a_switch_measures_the_new_models_window(tmp_path: Path) -> None:
    env = log_env(tmp_path, CLAUDE_ACP_SCRIPTED_NATIVE_1M="claude-opus-4-1")
    async with agent_in_process(tmp_path, "success", env=env) as adapter:
        session = await adapter.new_session()
        await _measured(tmp_path, 1)
        await _set_model(adapter, session, "opus")
        await _measured(tmp_path, 2)
        answer = await adapter.prompt(session, "hello")
        assert isinstance(answer, PromptResponse), answer
    assert _first_size(adapter) == 1_000_000
