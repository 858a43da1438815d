"""Claude Code's `auto` mode and the `fast` option across a restart, end to end: signing in again
runs Claude Code's own `auth status` command and restarts Claude, which is given fast mode back;
a loaded session keeps `auto`. The rest of auto and fast is in process:
tests/shell/test_auto_and_fast.py.

The scripted Claude lists its models with `supportsAutoMode` / `supportsFastMode` under
`CLAUDE_ACP_SCRIPTED_MODELS=featured` (Sonnet: auto; Opus: auto and fast; Haiku: neither) and
records every control request it receives, so each test sees exactly what reached Claude.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.config_requests import (
    config_option,
    config_params,
    control_requests,
    new_session_raw,
    raw_request,
    scripted_env,
)
from tests.support.harness import TIMEOUT, spawn_adapter

pytestmark = pytest.mark.asyncio


async def test_auto_survives_load_and_fast_survives_a_restart(tmp_path: Path) -> None:
    env = scripted_env(tmp_path)
    async with spawn_adapter(tmp_path, "success", env=env) as adapter:
        session, _ = await new_session_raw(adapter)
        await raw_request(adapter, "session/set_mode", sessionId=session, modeId="auto")
        await raw_request(
            adapter, "session/set_config_option", **config_params(session, "model", "opus")
        )
        await raw_request(
            adapter, "session/set_config_option", **config_params(session, "fast", "on")
        )
        await adapter.prompt(session, "hello")
        # Signing in again restarts Claude at the next prompt; fast mode is given back to it.
        await asyncio.wait_for(adapter.conn.authenticate(method_id="claude-login"), TIMEOUT)
        await adapter.prompt(session, "again")
        # Loaded again, the session is a Claude resumed from its transcript, in its mode.
        loaded = await raw_request(
            adapter, "session/load", sessionId=session, cwd=str(adapter.workdir), mcpServers=[]
        )
    assert (
        control_requests(tmp_path, "apply_flag_settings")
        == [{"subtype": "apply_flag_settings", "settings": {"fastMode": True}}] * 2
    )
    assert loaded["modes"]["currentModeId"] == "auto"
    assert config_option(loaded["configOptions"], "mode")["currentValue"] == "auto"  # type: ignore[index]
