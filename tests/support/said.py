"""What the agent said to the client, read from an `Adapter`'s frames: shared by the in-process and
end-to-end tests of background work and steering."""

from __future__ import annotations

import asyncio

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
