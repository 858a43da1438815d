"""JetBrains AIR's session index as a client calls it: shared by the in-process and end-to-end tests
of the index (tests/shell/test_air_session_index.py, tests/e2e/test_air_session_index.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import acp

from tests.support.harness import TIMEOUT, Adapter


async def call(adapter: Adapter, method: str, params: dict[str, Any]) -> Any:
    """The raw result, or the `acp.RequestError` it failed with."""
    try:
        return await asyncio.wait_for(adapter.conn._conn.send_request(method, params), TIMEOUT)
    except acp.RequestError as exc:
        return exc


async def index_list(adapter: Adapter, archived: str = "unarchived") -> dict[str, Any]:
    meta = {"jetbrains": {"air": {"list": {"archived": archived}}}}
    answer = await call(adapter, "session/list", {"cwd": str(adapter.workdir), "_meta": meta})
    assert isinstance(answer, dict), answer
    return {row["sessionId"]: row for row in answer["sessions"]}


def changes(adapter: Adapter, subscription_id: str) -> list[dict[str, Any]]:
    return [
        m["params"]
        for m in adapter.incoming()
        if m.get("method") == "_session/list/changes"
        and m["params"].get("subscriptionId") == subscription_id
    ]


async def until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def air(row: dict[str, Any]) -> dict[str, Any]:
    return dict(row["_meta"]["jetbrains"]["air"])
