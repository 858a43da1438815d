"""The one writer every frame of the agent passes through (`GuardedTransport.send`) leaves a
null `data` out of every JSON-RPC error, whoever built it: the `acp` SDK writes
`"data": null`, and a client that reads `error.data` (Neovim's CodeCompanion) hangs on it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapter.wire.guard import GuardedTransport
from adapter.wire.stdio import ChunkReader


class _Writer:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    async def drain(self) -> None:
        return None


async def _no_eof() -> None:
    return None


async def _sent(message: dict[str, Any]) -> dict[str, Any]:
    writer = _Writer()
    fake: Any = writer
    transport = GuardedTransport(ChunkReader(), fake, limit=1 << 20, on_eof=_no_eof)
    await transport.send(message)
    (frame,) = writer.writes
    value: dict[str, Any] = json.loads(frame)
    return value


@pytest.mark.asyncio
async def test_a_null_data_is_left_out() -> None:
    error = {"code": -32000, "message": "Authentication required", "data": None}
    sent = await _sent({"jsonrpc": "2.0", "id": 3, "error": error})
    assert sent["error"] == {"code": -32000, "message": "Authentication required"}


@pytest.mark.asyncio
async def test_an_error_with_no_id_loses_its_null_data_too() -> None:
    sent = await _sent({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "data": None}})
    assert "data" not in sent["error"]


@pytest.mark.asyncio
async def test_data_that_says_something_is_kept() -> None:
    error = {"code": -32602, "message": "Invalid params", "data": {"cwd": "must exist"}}
    sent = await _sent({"jsonrpc": "2.0", "id": "a", "error": error})
    assert sent["error"]["data"] == {"cwd": "must exist"}


@pytest.mark.asyncio
async def test_a_falsy_data_that_is_not_null_is_kept() -> None:
    sent = await _sent({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m", "data": 0}})
    assert sent["error"]["data"] == 0


@pytest.mark.asyncio
async def test_a_bare_message_names_its_cause() -> None:
    error = {"code": -32602, "message": "Invalid params", "data": {"cwd": "must be absolute"}}
    sent = await _sent({"jsonrpc": "2.0", "id": "a", "error": error})
    assert sent["error"]["message"] == "Invalid params: cwd: must be absolute"
    schema = {"errors": [{"loc": ["prompt", 0], "msg": "Field required", "type": "missing"}]}
    error = {"code": -32602, "message": "Invalid params", "data": schema}
    sent = await _sent({"jsonrpc": "2.0", "id": "b", "error": error})
    assert sent["error"]["message"] == "Invalid params: prompt.0: Field required"
    error = {"code": -32601, "message": "Method not found", "data": {"method": "session/x"}}
    sent = await _sent({"jsonrpc": "2.0", "id": "c", "error": error})
    assert sent["error"]["message"] == "Method not found: session/x"


@pytest.mark.asyncio
async def test_an_exception_of_ours_is_worded_without_its_text() -> None:
    error = {"code": -32603, "message": "Internal error", "data": {"details": "KeyError: 'x'"}}
    sent = await _sent({"jsonrpc": "2.0", "id": 1, "error": error})
    assert sent["error"]["message"].startswith("Internal error: a fault in claude-acp")
    assert "KeyError" not in json.dumps(sent)


@pytest.mark.asyncio
async def test_a_value_made_private_later_is_masked_in_every_error_after() -> None:
    """docs/decisions.md#provider-requests: the guard reads the masked values at each error,
    so a provider's header value set after start-up is masked from then on."""
    from adapter.claude.runtime_settings import RuntimeSettings
    from fsm import Provider, ProviderRoutes, provider_request

    secret = "gw-made-up-secret-0123456789"
    settings = RuntimeSettings()
    writer = _Writer()
    fake: Any = writer
    transport = GuardedTransport(
        ChunkReader(), fake, limit=1 << 20, on_eof=_no_eof, private=settings.masked
    )
    error = {"code": -32603, "message": f"failed with {secret}", "data": {"said": secret}}
    await transport.send({"jsonrpc": "2.0", "id": 1, "error": error})
    # A `providers/set` with that header value, as `ProviderRequests` applies it.
    routes = settings.route.routes = ProviderRoutes()
    provider = provider_request(
        {"providerId": "main", "apiType": "anthropic", "baseUrl": "https://gw.test"}
        | {"headers": {"x-key": secret}}
    )
    assert isinstance(provider, Provider)
    routes.set(provider)
    await transport.send({"jsonrpc": "2.0", "id": 2, "error": error})
    before, after = (json.loads(frame) for frame in writer.writes)
    assert secret in json.dumps(before)
    assert secret not in json.dumps(after) and "failed with" in after["error"]["message"]
