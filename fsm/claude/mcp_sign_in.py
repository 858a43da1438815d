"""Signing the user in to a client's MCP server that needs it, as the reference adapter does.

Theory of operation (`startMcpAuthentication`, `authenticateMcpServer`:
docs/reference-adapter.md#mcp-sign-in): a client that declared `elicitation.url` and gave the
session MCP servers (`mcpServers` of `session/new`, `load`, `resume`, `fork`) has each of them
that Claude Code reports `needs-auth` signed in instead of only told (`sign_in_servers`). The
session asks Claude Code `mcp_status` once its setup response is out (`McpServersPolled`), and
hears the same in every turn's `system/init`; the notice machine (`fsm.notices`) starts one
sign-in per server and state (`SignInMcpServer`), and the shell runs it:

1. Claude Code's `mcp_authenticate {serverName}`; its answer says whether the user has
   anything to do, and where (`sign_in_page`): no action needed ends it `not_needed`, an action
   without a page `failed` (as a refused or failed request does);
2. the page goes to the client as `elicitation/create {mode: "url", sessionId, message,
   url, elicitationId: "mcp-oauth-<uuid>"}` (`sign_in_message`), while Claude Code's
   `mcp_status` is asked every `MCP_POLL_SECONDS` for the server (`poll_verdict`), at most
   `MCP_SIGN_IN_SECONDS`;
3. the first of the two to end decides (`sign_in_outcome`): a client that declines or cancels
   the page ends it `declined`; a client that accepts waits for the server; the server
   connected is `connected`, failed, disabled, gone or out of time `not_connected`. Unless
   declined, the client is told the page is done (`elicitation/complete {elicitationId}`), and
   a page it still shows is withdrawn (`$/cancel_request`).

The outcome goes back to the core (`McpSignInEnded`): logged with the server's name
(`sign_in_log`), never the page's address, and, unless the server connected or needed
nothing, the user gets the server's needs-authentication notice as every other client does
(docs/decisions.md#mcp-sign-in). A client without `elicitation.url`, or a server the client did
not give, keeps the notice alone. The URL carries the sign-in's state: it is in the form and
nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from fsm.visible_text import visible

__all__ = [
    "CONNECTED",
    "DECLINED",
    "FAILED",
    "MCP_POLL_SECONDS",
    "MCP_SIGN_IN_SECONDS",
    "NOT_CONNECTED",
    "NOT_NEEDED",
    "OUTCOMES",
    "page_done",
    "poll_verdict",
    "sign_in_log",
    "sign_in_message",
    "sign_in_outcome",
    "sign_in_page",
    "sign_in_servers",
]

MCP_POLL_SECONDS = 1.0  # the reference's MCP_OAUTH_STATUS_POLL_MS
MCP_SIGN_IN_SECONDS = 600.0  # the reference's MCP_OAUTH_TIMEOUT_MS

CONNECTED = "connected"  # the server connected: the user signed in
NOT_NEEDED = "not_needed"  # Claude Code needed nothing of the user
DECLINED = "declined"  # the user declined or dismissed the page
NOT_CONNECTED = "not_connected"  # the server failed, was disabled or gone, or time ran out
FAILED = "failed"  # Claude Code could not start a sign-in (refused, no page to show)
OUTCOMES = frozenset({CONNECTED, NOT_NEEDED, DECLINED, NOT_CONNECTED, FAILED})
SIGNED_IN = frozenset({CONNECTED, NOT_NEEDED})

_NAME_SHOWN = 200


def sign_in_servers(*, by_url: bool, client_servers: Iterable[str]) -> frozenset[str]:
    """The client's MCP servers the session signs in to when they need it: every one it gave,
    when it takes URL elicitation; none otherwise."""
    return frozenset(client_servers) if by_url else frozenset()


def sign_in_page(response: object) -> tuple[str, str | None]:
    """What Claude Code's answer to `mcp_authenticate` asks for: (`"page"`, the URL the user
    signs in on), (`NOT_NEEDED`, None) or (`FAILED`, None) for an action without a page or an
    answer of another shape."""
    if not isinstance(response, Mapping):
        return FAILED, None
    if response.get("requiresUserAction") is False:
        return NOT_NEEDED, None
    url = response.get("authUrl")
    if response.get("requiresUserAction") is not True or not isinstance(url, str):
        return FAILED, None
    url = url.strip()
    return ("page", url) if url else (FAILED, None)


def poll_verdict(response: object, name: str) -> bool | None:
    """Whether the server `name` connected (True), is not going to (False: missing, failed or
    disabled, as the reference reads it) or still waits for the user (None), in Claude Code's
    answer to `mcp_status` (`{mcpServers: [{name, status}]}`)."""
    servers = response.get("mcpServers") if isinstance(response, Mapping) else None
    for server in servers if isinstance(servers, list) else []:
        if isinstance(server, Mapping) and server.get("name") == name:
            status = server.get("status")
            if status == "connected":
                return True
            return False if status in ("failed", "disabled") else None
    return False


def sign_in_outcome(answer: object, connected: bool | None) -> str | None:
    """The sign-in's outcome from what has ended so far: the client's `answer` to the page
    (None: not yet) and whether the server connected (None: still waiting); None while it
    must go on waiting (the client accepted, the server has not connected yet)."""
    if connected is not None:
        return CONNECTED if connected else NOT_CONNECTED
    if answer is None:
        return None
    accepted = isinstance(answer, Mapping) and answer.get("action") == "accept"
    return None if accepted else DECLINED


def page_done(outcome: str) -> bool:
    """Whether the client is told the page is done (`elicitation/complete`): unless the user
    declined it, as the reference does."""
    return outcome != DECLINED


def sign_in_message(name: str) -> str:
    """The page's message, the reference's words, the name on one line."""
    shown = " ".join(visible(name).split())
    if len(shown) > _NAME_SHOWN:
        shown = shown[: _NAME_SHOWN - 1] + "\u2026"
    return f"Authenticate with MCP server {shown}"


def sign_in_log(shown_name: str | None, outcome: str) -> str:
    """The log line of a sign-in's outcome (`shown_name`: the name as a title may show it)."""
    server = f'MCP server "{shown_name}"' if shown_name else "an MCP server"
    return f"sign-in to {server}: {outcome.replace('_', ' ')}"
