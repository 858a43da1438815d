"""The Ultracode option end to end, through the real SDK and the scripted Claude's process:
offered, switched on with `apply_flag_settings {"ultracode": true}`, carried by a later effort
change, and given back to a Claude restarted by a sign-in. The rest is in process:
tests/shell/test_ultracode_option.py.

The scripted Claude lists the default (Sonnet) and Opus with the `xhigh` effort under
`CLAUDE_ACP_SCRIPTED_MODELS=ultracode`, answers `get_settings`, and records every control
request it receives.
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


async def test_ultracode_is_offered_sent_carried_and_given_back(tmp_path: Path) -> None:
    env = {**scripted_env(tmp_path, featured=False), "CLAUDE_ACP_SCRIPTED_MODELS": "ultracode"}
    async with spawn_adapter(tmp_path, "success", env=env) as adapter:
        session, opened = await new_session_raw(adapter)
        on = await raw_request(
            adapter, "session/set_config_option", **config_params(session, "ultracode", "on")
        )
        await raw_request(
            adapter, "session/set_config_option", **config_params(session, "effort", "high")
        )
        await adapter.prompt(session, "hello")
        # Signing in again restarts Claude at the next prompt; Ultracode is given back to it.
        await asyncio.wait_for(adapter.conn.authenticate(method_id="claude-login"), TIMEOUT)
        await adapter.prompt(session, "again")
    offered = config_option(opened["configOptions"], "ultracode")
    assert offered is not None and offered["currentValue"] == "off"
    assert [o["id"] for o in opened["configOptions"]][-1] == "ultracode"
    assert config_option(on["configOptions"], "ultracode")["currentValue"] == "on"  # type: ignore[index]
    assert [r["settings"] for r in control_requests(tmp_path, "apply_flag_settings")] == [
        {"ultracode": True},
        {"effortLevel": "high", "ultracode": True},
        {"ultracode": True},  # the restarted Claude's, its effort the launch flag's
    ]
    # Asked once, after the session's answer; the restarted Claude is not asked again.
    assert control_requests(tmp_path, "get_settings") == [{"subtype": "get_settings"}]
