"""A tiny stdio MCP server whose tools ask the user (MCP elicitation), for the real-CLI tier.

Run as `python eliciting_server.py <record file>`, by the real Claude Code CLI (a client MCP
server of the session). `release` asks where the release should go with a form (`elicit_form`,
raw, so that what the client sent is recorded unvalidated); `sign_in` asks the user to open a
page (`elicit_url`) and, once accepted, tells the client it is done
(`notifications/elicitation/complete`). Each tool appends what it heard to the record file as
one JSON line, and says it in its result, so a test can check both ends.

The `mcp` package is the one claude-agent-sdk installs; nothing else is imported.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.types import ElicitRequest, ElicitRequestURLParams, ElicitResult, InputRequiredResult
from pydantic import BaseModel, Field

RELEASE_MESSAGE = "Where should the release go?"


class Release(BaseModel):
    environment: Literal["staging", "production"] = Field(title="Environment")
    replicas: int = Field(default=1, ge=1, le=5, title="Replicas")


SIGN_IN_MESSAGE = "Sign in to the tracker."
SIGN_IN_URL = "https://tracker.example/oauth/authorize?state=real-cli-tier"
SIGN_IN_ID = "real-cli-sign-in-1"

server = MCPServer("deploy")
# Where the tools record what they heard (the command line's one argument, set in `main`).
record_file = Path("eliciting-server.jsonl")


def said(server: str, action: str, content: dict[str, Any] | None) -> str:
    """What a tool says it heard (plain words: the result reaches the model as text)."""
    values = ", ".join(f"{k}={v}" for k, v in sorted((content or {}).items()))
    return f"The {server} server heard: {action}" + (f" ({values})" if values else "")


def _record(entry: dict[str, Any]) -> None:
    with record_file.open("a", encoding="utf-8") as file:
        file.write(json.dumps(entry, sort_keys=True) + "\n")


def _where(ctx: Context) -> Elicit[Release]:
    return Elicit(RELEASE_MESSAGE, Release)


# Asked through a resolver: the package sends it as the protocol the client negotiated wants
# (a mid-call `elicitation/create` up to 2025-11-25, an `InputRequiredResult` from 2026-07-28).
@server.tool(description="Release the app (asks the user where to).", structured_output=False)
async def release(where: Annotated[ElicitationResult[Release], Resolve(_where)]) -> str:
    content = where.data.model_dump() if isinstance(where, AcceptedElicitation) else None
    _record({"tool": "release", "action": where.action, "content": content})
    return said("deploy", where.action, content)


# Driven by the tool body (the package's resolvers ask forms only): the first round asks for
# the page as an `InputRequiredResult` (MCP 2026-07-28, what the CLI 2.1.332 negotiates), the
# retry carries the answer; the completion is a notification, which that protocol still allows.
@server.tool(description="Sign in to the tracker (opens a page).", structured_output=False)
async def sign_in(ctx: Context) -> str | InputRequiredResult:
    answers = ctx.input_responses
    if not answers:
        page = ElicitRequestURLParams(
            mode="url", message=SIGN_IN_MESSAGE, url=SIGN_IN_URL, elicitation_id=SIGN_IN_ID
        )
        return InputRequiredResult(input_requests={"sign_in": ElicitRequest(params=page)})
    answer = answers.get("sign_in")
    action = answer.action if isinstance(answer, ElicitResult) else "cancel"
    _record({"tool": "sign_in", "action": action})
    if action == "accept":
        await ctx.request_context.session.send_elicit_complete(SIGN_IN_ID)
    return said("tracker", action, None)


if __name__ == "__main__":
    record_file = Path(sys.argv[1])
    server.run("stdio")
