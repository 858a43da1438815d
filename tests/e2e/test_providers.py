"""The model provider a client sets reaches Claude Code's environment (`providers/set`,
docs/client-authors.md), through the real stdio agent, the real SDK and the scripted Claude
(which logs the environment variables a test names): a session opened after `providers/set`
starts its Claude with `ANTHROPIC_BASE_URL` and the headers; a session that was open gets them at
its next prompt, from a fresh Claude (docs/decisions.md#provider-change); `providers/disable`
gives the routing back, and so does `logout` after a gateway sign-in. The header's value is
never in the adapter's log, even where Claude quotes it (serving points the log's masking at
what its settings mask). The rules themselves are
core tests (tests/core/test_providers.py), the requests in process (tests/shell/test_providers.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.handshake import LOG_ENV, LOG_ENV_NAMES
from tests.support.config_requests import raw_request
from tests.support.harness import spawn_adapter
from tests.support.scripted.header_quotes import HEADER_VALUE
from tests.support.scripted_log import envs

NAMES = ("ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_AUTH_TOKEN")
GATEWAY = "http://127.0.0.1:9/v1"  # nothing listens there: the scripted Claude never calls it
SECRET = "gw-made-up-secret-0123456789"


@pytest.mark.asyncio
async def test_a_provider_set_routes_the_next_claude_and_disable_gives_it_back(
    tmp_path: Path,
) -> None:
    env = {LOG_ENV: str(tmp_path / "claude-log.jsonl"), LOG_ENV_NAMES: ",".join(NAMES)}
    async with spawn_adapter(tmp_path, "success", env=env) as adapter:
        before = await adapter.new_session()
        first = await adapter.prompt(before, "hello")
        provider = {
            "providerId": "main",
            "apiType": "anthropic",
            "baseUrl": GATEWAY,
            "headers": {"x-gateway-key": SECRET},
        }
        assert await raw_request(adapter, "providers/set", **provider) == {}
        listed = await raw_request(adapter, "providers/list")
        after = await adapter.new_session()
        second = await adapter.prompt(before, "again")  # a fresh Claude, resumed
        assert await raw_request(adapter, "providers/disable", providerId="main") == {}
        third = await adapter.prompt(after, "and back")  # a fresh Claude, routed by its own
    for answer in (first, second, third):
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert listed["providers"][0]["current"] == {"apiType": "anthropic", "baseUrl": GATEWAY}
    routed = {
        "ANTHROPIC_BASE_URL": GATEWAY,
        "ANTHROPIC_CUSTOM_HEADERS": f"x-gateway-key: {SECRET}",
        "ANTHROPIC_AUTH_TOKEN": "acp-proxy",
    }
    own = dict.fromkeys(NAMES)
    # Before's first Claude, after's, before's fresh one, after's fresh one after disable.
    assert envs(tmp_path) == [own, routed, routed, own]
    assert SECRET not in adapter.stderr_path.read_text("utf-8", "replace")


@pytest.mark.asyncio
async def test_logout_ends_a_gateway_sign_ins_route(tmp_path: Path) -> None:
    env = {LOG_ENV: str(tmp_path / "claude-log.jsonl"), LOG_ENV_NAMES: ",".join(NAMES)}
    gateway = {"baseUrl": GATEWAY, "headers": {"x-gateway-key": SECRET}}
    async with spawn_adapter(tmp_path, "success", env=env) as adapter:
        signed = await raw_request(
            adapter, "authenticate", methodId="gateway", _meta={"gateway": gateway}
        )
        routed = await adapter.new_session()
        first = await adapter.prompt(routed, "hello")
        assert await raw_request(adapter, "logout") == {}
        listed = await raw_request(adapter, "providers/list")
        second = await adapter.prompt(routed, "again")  # a fresh Claude, on its own route
    assert signed == {}
    for answer in (first, second):
        assert isinstance(answer, PromptResponse)
    assert listed["providers"][0]["current"]["baseUrl"] == "https://api.anthropic.com"
    gateway_env = {
        "ANTHROPIC_BASE_URL": GATEWAY,
        "ANTHROPIC_CUSTOM_HEADERS": f"x-gateway-key: {SECRET}",
        "ANTHROPIC_AUTH_TOKEN": "acp-proxy",
    }
    # The routed session's first Claude, then its fresh one after logout.
    assert envs(tmp_path) == [gateway_env, dict.fromkeys(NAMES)]
    assert SECRET not in adapter.stderr_path.read_text("utf-8", "replace")


@pytest.mark.asyncio
async def test_a_header_value_claude_quotes_is_masked_in_the_log(tmp_path: Path) -> None:
    """docs/decisions.md#provider-requests: Claude Code's stderr, logged at DEBUG, may quote the
    route's headers; from the `providers/set` on, the log masks them as the wire guard does."""
    provider = {
        "providerId": "main",
        "apiType": "anthropic",
        "baseUrl": GATEWAY,
        "headers": {"x-gateway-key": HEADER_VALUE},
    }
    async with spawn_adapter(tmp_path, "quotes_its_headers") as adapter:
        assert await raw_request(adapter, "providers/set", **provider) == {}
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
        assert await raw_request(adapter, "providers/disable", providerId="main") == {}
        again = await adapter.new_session()  # its Claude quotes it too, after the disable
        await adapter.prompt(again, "hello")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    log = adapter.stderr_path.read_text("utf-8", "replace")
    assert log.count("claude: sent x-gateway-key ***") == 2, log[-2000:]
    assert HEADER_VALUE not in log
