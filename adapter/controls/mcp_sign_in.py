"""Signing the user in to the client's MCP servers that need it: the steps `fsm.claude.mcp_sign_in`
describes and the core starts (`SignInMcpServer`), performed.

Theory of operation: one `McpSignIn` per session, for the servers the core may sign in to
(`servers`, empty for a client without `elicitation.url`). `poll` asks Claude Code `mcp_status`
once the session's setup response is out and hands the core what it says (`McpServersPolled`);
`run` performs one sign-in: Claude Code's `mcp_authenticate {serverName}`, the page it answers
with as a URL elicitation (`elicitation/create {mode: "url", ..., elicitationId:
"mcp-oauth-<uuid>"}`) beside a poll of `mcp_status` every `MCP_POLL_SECONDS` for at most
`MCP_SIGN_IN_SECONDS`, until the core's reading of the two (`sign_in_outcome`) ends it; then
`elicitation/complete` unless the user declined (`page_done`), the page withdrawn
(`$/cancel_request`) if the client still shows it, and the outcome reported to the core
(`McpSignInEnded`), which logs it and tells the user of a server still signed out. Each runs
with the Claude process it asks (`ClaudeRuntime.until_stopped`): a process that stops ends it,
its page withdrawn and nothing reported. Only a server's name is logged here; the page's URL,
which carries the sign-in's state, is in the form alone.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from adapter.claude.sdk_compat import send_control_request
from adapter.claude.translate import polled_servers
from adapter.controls.form_presenter import FormPresenter
from adapter.wire.client_link import ClientLink
from fsm import (
    MCP_POLL_SECONDS,
    MCP_SIGN_IN_SECONDS,
    Event,
    McpSignInEnded,
    page_done,
    poll_verdict,
    sign_in_message,
    sign_in_outcome,
    sign_in_page,
)

__all__ = ["McpSignIn"]

log = logging.getLogger(__name__)

CONTROL_SECONDS = 30.0  # one `mcp_authenticate` or `mcp_status` (Claude Code's own bound is 60)


class McpSignIn:
    def __init__(
        self,
        *,
        session_id: str,
        link: ClientLink,
        servers: frozenset[str],
        report: Callable[[Event], Awaitable[None]],
        poll_seconds: float = MCP_POLL_SECONDS,
        limit_seconds: float = MCP_SIGN_IN_SECONDS,
    ) -> None:
        self.session_id = session_id
        self.servers = servers  # the client's servers signed in to when they need it
        self._link = link
        self._report = report  # the session's core
        self._forms = FormPresenter(link)
        self._poll_seconds = poll_seconds
        self._limit_seconds = limit_seconds

    async def poll(self, client: Any, epoch: str) -> None:
        """Tell the core which servers Claude Code (process `epoch`) reports now."""
        try:
            with anyio.fail_after(CONTROL_SECONDS):
                status = await client.get_mcp_status()
        except Exception:
            log.warning(
                "session %s: Claude Code did not say how its MCP servers are", self.session_id
            )
            return
        polled = polled_servers(status, epoch)
        if polled is not None:
            await self._report(polled)

    async def run(self, client: Any, name: str) -> None:
        """Sign in to the server `name`, and tell the core how it ended."""
        outcome = await self._sign_in(client, name)
        await self._report(McpSignInEnded(name=name, outcome=outcome))

    async def _sign_in(self, client: Any, name: str) -> str:
        request = {"subtype": "mcp_authenticate", "serverName": name}
        try:
            with anyio.fail_after(CONTROL_SECONDS):
                response = await send_control_request(client, request)
        except Exception:
            # Not its words: Claude Code's refusal may quote the server's address.
            log.warning("session %s: Claude Code did not start an MCP sign-in", self.session_id)
            response = None
        step, url = sign_in_page(response)
        if url is None:
            return step
        params = {
            "mode": "url",
            "sessionId": self.session_id,
            "message": sign_in_message(name),
            "url": url,
            "elicitationId": f"mcp-oauth-{uuid.uuid4()}",
        }
        answers: list[Any] = []
        connected: list[bool] = []
        outcome: str | None = None
        async with anyio.create_task_group() as tg:
            news = anyio.Event()

            async def ask() -> None:
                nonlocal news
                answer = await self._forms.present(params)
                answers.append(answer if answer is not None else {})
                news.set()

            async def watch() -> None:
                nonlocal news
                connected.append(await self._until_connected(client, name))
                news.set()

            tg.start_soon(ask)
            tg.start_soon(watch)
            while outcome is None:
                await news.wait()
                news = anyio.Event()
                outcome = sign_in_outcome(
                    answers[0] if answers else None, connected[0] if connected else None
                )
            if page_done(outcome):
                done = {"elicitationId": params["elicitationId"]}
                await self._link.notify("elicitation/complete", done, self.session_id)
            tg.cancel_scope.cancel()  # the poll, and the page if the client still shows it
        assert outcome is not None  # the loop ends only with one
        return outcome

    async def _until_connected(self, client: Any, name: str) -> bool:
        """Whether the server connects before the sign-in's time is up (`poll_verdict`)."""
        with anyio.move_on_after(self._limit_seconds):
            while True:
                try:
                    with anyio.fail_after(CONTROL_SECONDS):
                        status = await client.get_mcp_status()
                except Exception:
                    log.warning(
                        "session %s: Claude Code did not say how its MCP servers are",
                        self.session_id,
                    )
                    return False
                verdict = poll_verdict(status, name)
                if verdict is not None:
                    return verdict
                await anyio.sleep(self._poll_seconds)
        return False
