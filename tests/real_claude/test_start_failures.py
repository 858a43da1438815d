"""The real Claude Code CLI saying why it would not start: a proxy setting it cannot read.

The adapter starts every Claude process with `CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1`, so the
bundled CLI (2.1.332) writes an `error_during_execution` result with `startup_failure_reason:
proxy_invalid` and its own words before it exits, instead of stderr alone. `session/new` is
answered with those words (the proxy setting it quotes, which holds a password here, replaced
by `…`; docs/decisions.md#startup-failure-words), `-32603`, and
`data.startupFailureReason`. The CLI exits before it would reach any network.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import acp
import pytest

from tests.real_claude.api_double import MessagesApiDouble
from tests.real_claude.support import real_adapter
from tests.support.harness import TIMEOUT

pytestmark = [pytest.mark.real_claude, pytest.mark.asyncio]

BAD_PROXY = "http://proxyuser:hunter2secret@"


@pytest.mark.parametrize("capable", [True, False])
async def test_a_proxy_claude_code_cannot_read_is_named_in_its_words(
    tmp_path: Path, double: MessagesApiDouble, capable: bool
) -> None:
    async with real_adapter(
        tmp_path, double, capable=capable, HTTPS_PROXY=BAD_PROXY, https_proxy=BAD_PROXY
    ) as adapter:
        with pytest.raises(acp.RequestError) as caught:
            await asyncio.wait_for(
                adapter.conn.new_session(cwd=str(adapter.workdir), mcp_servers=[]), TIMEOUT
            )
        stderr = adapter.stderr()
    error = caught.value
    assert error.code == -32603, error
    message = str(error.args[0] if error.args else error)
    # The CLI names the variable it read (`https_proxy` before `HTTPS_PROXY`).
    assert "invalid proxy url in https_proxy" in message.lower(), message
    assert "fix or unset https_proxy" in message.lower(), message
    assert error.data is not None and error.data.get("startupFailureReason") == "proxy_invalid"
    # The password in the setting Claude Code quotes reaches neither the client nor the log.
    assert "hunter2secret" not in repr(error.data) and "hunter2secret" not in message
    assert "hunter2secret" not in stderr
