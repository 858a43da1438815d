"""What the agent said to the client, read from an `Adapter`'s frames, and a steer: shared by the
in-process and end-to-end tests of background work and steering."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.harness import TIMEOUT, Adapter


def said_before(adapter: Adapter, end: int) -> str:
    """The agent's words in the frames before `end` (streamed deltas joined)."""
    words = []
    for message in adapter.incoming()[:end]:
        update = message.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "agent_message_chunk":
            words.append(str(update.get("content", {}).get("text", "")))
    return "".join(words)


async def until_said(adapter: Adapter, text: str) -> None:
    """Until the agent has said `text`."""
    async with asyncio.timeout(TIMEOUT):
        while text not in said_before(adapter, len(adapter.incoming())):
            await asyncio.sleep(0.02)


def position(adapter: Adapter, predicate: Any) -> int:
    """The index of the first frame the client read that `predicate` accepts."""
    return next(i for i, m in enumerate(adapter.incoming()) if predicate(m))


def is_response(message: dict[str, Any]) -> bool:
    """Whether `message` answers a prompt (a result with a `stopReason`)."""
    return (
        "result" in message
        and isinstance(message["result"], dict)
        and ("stopReason" in message["result"])
    )


async def send_steer(adapter: Adapter, **params: Any) -> Any:
    """`_session/steering` with `params`: its raw result."""
    return await asyncio.wait_for(
        adapter.conn._conn.send_request("_session/steering", params), TIMEOUT
    )
