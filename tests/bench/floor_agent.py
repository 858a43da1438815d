"""The floor: the smallest ACP agent on the same `acp` SDK, answering at once without Claude.

`python -m tests.bench.floor_agent` serves ACP on stdio. `initialize`, `session/new`,
`session/load` and `session/prompt` answer immediately (a prompt ends with `end_turn` and no
update). It imports what the adapter must import to answer `initialize`, the way the adapter
imports it: `acp`, after `adapter.lean_imports.prepare_imports` ("a bare Python process that
imports what we must import"). The Claude SDK is not among them: the adapter imports it with
its first session, and so did this floor until the adapter stopped importing it at start-up.
Whatever this costs (interpreter start, those imports, JSON-RPC over stdio) is the least any
adapter on these SDKs can cost; the rest of ours (one Claude process started per session, our
own work) is on top of it.
"""

from __future__ import annotations

if __name__ == "__main__":
    # As the adapter does, before anything imports acp or the SDK (adapter/app/cli.py).
    from adapter.lean_imports import prepare_imports

    prepare_imports()

import asyncio
import uuid
from typing import Any, cast

import acp
from acp import PROTOCOL_VERSION
from acp.interfaces import Agent
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
)

__all__ = ["FloorAgent", "main"]


class FloorAgent:
    def on_connect(self, conn: Any) -> None:
        return None

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(load_session=True),
            agent_info=Implementation(name="floor", title="Floor", version="0"),
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        return NewSessionResponse(session_id=str(uuid.uuid4()))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        return LoadSessionResponse()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


def main() -> None:
    asyncio.run(acp.run_agent(cast("Agent", FloorAgent())))


if __name__ == "__main__":
    main()
