"""`authenticate` against the real Claude Code CLI bundled in the SDK: with an empty config
folder and no key, Claude Code's own `claude auth status` says signed out, and the adapter
answers -32000 with what works from an editor (never a false ok); with a key, ok."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp
import pytest

from fsm import AUTH_REQUIRED_MESSAGE
from tests.real_claude.api_double import MessagesApiDouble
from tests.real_claude.support import cli_env, wait_until
from tests.support.harness import TIMEOUT, Adapter, spawn_adapter

AUTH_STATUS = "_auth/status_update"


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


async def _auth_pushes(adapter: Adapter) -> list[dict[str, Any]]:
    """The `_auth/status_update` pushes so far, once there is one (bounded by TIMEOUT)."""

    def pushes() -> list[dict[str, Any]]:
        return [m["params"] for m in adapter.incoming() if m.get("method") == AUTH_STATUS]

    await wait_until(lambda: bool(pushes()))
    return pushes()


@pytest.mark.asyncio
async def test_the_real_cli_s_sign_in_is_pushed_as_authstatus(
    tmp_path: Path, double: MessagesApiDouble
) -> None:
    """docs/reference-adapter.md#auth-status, against the real `claude auth status --json`:
    with a key in the environment, `api_key` from `ANTHROPIC_API_KEY`; with none and an empty
    config folder, `none`."""
    async with spawn_adapter(tmp_path, scripted=False, env=cli_env(double, tmp_path)) as adapter:
        keyed = await _auth_pushes(adapter)
    assert keyed[0] == {
        "authStatus": {
            "kind": "api_key",
            "label": "Anthropic API key",
            "detail": "ANTHROPIC_API_KEY",
        }
    }
    env = cli_env(double, tmp_path / "signed-out")
    del env["ANTHROPIC_API_KEY"]
    async with spawn_adapter(tmp_path / "signed-out", scripted=False, env=env) as adapter:
        signed_out = await _auth_pushes(adapter)
    assert signed_out[0] == {"authStatus": {"kind": "none", "label": "Not logged in"}}
