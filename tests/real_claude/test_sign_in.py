"""`authenticate` against the real Claude Code CLI bundled in the SDK: with an empty config
folder and no key, Claude Code's own `claude auth status` says signed out, and the adapter
answers -32000 with what works from an editor (never a false ok); with a key, ok."""

from __future__ import annotations

import asyncio
from pathlib import Path

import acp
import pytest

from fsm import AUTH_REQUIRED_MESSAGE
from tests.real_claude.api_double import MessagesApiDouble
from tests.real_claude.support import cli_env
from tests.support.harness import TIMEOUT, spawn_adapter


@pytest.mark.asyncio
async def test_authenticate_while_signed_out_is_32000(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    env = cli_env(double, tmp_path)
    del env["ANTHROPIC_API_KEY"]  # no key, and the config folder is empty: signed out
    async with spawn_adapter(tmp_path, scripted=False, env=env) as adapter:
        assert not any(adapter.config_dir.iterdir())
        with pytest.raises(acp.RequestError) as refused:
            await asyncio.wait_for(adapter.conn.authenticate(method_id="claude-login"), TIMEOUT)
    assert refused.value.code == -32000
    assert str(refused.value) == AUTH_REQUIRED_MESSAGE or AUTH_REQUIRED_MESSAGE in str(
        refused.value
    )
    assert "/login" not in str(refused.value)


@pytest.mark.asyncio
async def test_authenticate_with_a_key_is_ok(tmp_path: Path, double: MessagesApiDouble) -> None:
    async with spawn_adapter(tmp_path, scripted=False, env=cli_env(double, tmp_path)) as adapter:
        answer = await asyncio.wait_for(
            adapter.conn.authenticate(method_id="claude-login"), TIMEOUT
        )
    assert answer is not None
