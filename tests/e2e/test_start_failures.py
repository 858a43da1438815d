"""Start-up failures that explain themselves, through the real stdio agent: the scripted Claude
plays the real CLI's start-up failure result (`startup_failure_reason`, its words in `errors`),
which it writes only because the adapter sets `CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1`. Each
reason gets the reference adapter's code (`-32000` sign-in, `-32602` working folder, `-32603`
any other), Claude Code's own words as the message (what they quote of a proxy setting
replaced: docs/decisions.md#startup-failure-words) and `data.startupFailureReason`, for a
capable and a legacy client alike; nothing else is lost (the next request is answered too)."""

from __future__ import annotations

import json
from pathlib import Path

import acp
import pytest

from adapter.scripted_claude.faults import STARTUP_FAILURES
from tests.support.harness import spawn_adapter

pytestmark = pytest.mark.asyncio

CODES = {
    "proxy_invalid": -32603,
    "gateway_signin_required": -32000,
    "org_pin_mismatch": -32000,
    "cwd_unavailable": -32602,
}


@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
@pytest.mark.parametrize("reason", sorted(STARTUP_FAILURES))
async def test_each_reason_is_answered_in_claude_codes_words(
    tmp_path: Path, reason: str, capable: bool
) -> None:
    async with spawn_adapter(tmp_path, f"startup_{reason}", capable=capable) as adapter:
        with pytest.raises(acp.RequestError) as caught:
            await adapter.new_session()
        # Still serving: the next request gets the same clear answer, not a hang.
        with pytest.raises(acp.RequestError) as again:
            await adapter.new_session()
    error = caught.value
    assert (error.code, again.value.code) == (CODES[reason], CODES[reason]), error
    assert error.data is not None and error.data["startupFailureReason"] == reason
    message = str(error)
    said = STARTUP_FAILURES[reason]
    first_words = said.split(":")[0].split(".")[0]
    assert first_words in message, (first_words, message)
    assert "\n" not in error.data["reason"]
    shown = f"{message} {json.dumps(error.data)}"
    assert "hunter2secret" not in shown and "proxyuser" not in shown, shown
    assert "did not start" not in shown, shown  # Claude Code's words, not the adapter's
    assert adapter.records() == []


async def test_the_proxy_message_keeps_what_to_do(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "startup_proxy_invalid") as adapter:
        with pytest.raises(acp.RequestError) as caught:
            await adapter.new_session()
    assert caught.value.data is not None
    assert caught.value.data["reason"] == (
        'Invalid proxy URL in HTTPS_PROXY: "…" cannot be parsed as a URL. Proxy settings must '
        'be a complete URL including the scheme, e.g. "…". Fix or unset HTTPS_PROXY and '
        "restart Claude Code."
    )


async def test_without_a_reason_the_adapters_words_stand(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "exit_before_handshake") as adapter:
        with pytest.raises(acp.RequestError) as caught:
            await adapter.new_session()
    assert caught.value.code == -32603
    assert caught.value.data is not None and "startupFailureReason" not in caught.value.data
    assert "did not start" in str(caught.value)
