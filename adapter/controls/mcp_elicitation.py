"""MCP servers' own questions to the user (MCP elicitation), asked through ACP elicitation.

Theory of operation. Claude Code asks its host with an `elicitation` control request
(`{mcp_server_name, message, mode, requested_schema}`, for `mode: "url"` also `url` and
`elicitation_id`) and gives the server the answer `{action, content?}`; the pinned SDK
(0.2.189) refuses that request, so the adapter routes it here
(`adapter.claude.sdk_compat.answer_elicitations`; why no `Elicitation` hook: `adapter.claude.
hooks`), and this class answers it as the reference adapter answers its `onElicitation`
(docs/reference-adapter.md#mcp-elicitation):

| the request, the client                           | to the MCP server                      |
|---------------------------------------------------|----------------------------------------|
| a client without elicitation (`form` nor `url`)    | `decline` (the reference's SDK does)   |
| a mode the client did not declare, a URL request  | `cancel` (the reference's)             |
| without a URL                                     |                                        |
| a required field ACP's form cannot show            | `decline`                              |
| the client accepts, the content fits the form      | `accept` with the fitting content      |
| the client accepts, a required value is missing    | `cancel`                               |
| or does not fit                                    |                                        |
| the client accepts a URL request                   | `accept` (no content: the user went on |
|                                                   | to the page)                           |
| the client declines                                | `decline`                              |
| the client cancels, answers an unknown action,     | `cancel`                               |
| answers with an error                              |                                        |
| the turn is cancelled or the session closed        | `cancel`; the form is withdrawn from   |
| (`withdraw`)                                       | the client with `$/cancel_request`     |
| Claude Code withdraws its request                  | nothing; the form is withdrawn too     |

A URL request goes to the client as `elicitation/create {mode: "url", sessionId, message, url,
elicitationId}` (the server's id, else a fresh UUID). When the server later says the user is
done (Claude Code's `system` frame `elicitation_complete {elicitation_id}`), a client that
declared `elicitation.url` gets the notification `elicitation/complete {elicitationId}`
(`completed`). A URL is the user's private business: the form carries it, and no log does.
Every outcome is logged with the server's name, never the form's content.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from adapter.controls.form_presenter import FormPresenter
from adapter.controls.mcp_form import fit_answer, form_fields
from adapter.wire.client_link import ClientLink

__all__ = ["McpElicitor"]

log = logging.getLogger(__name__)


class McpElicitor:
    def __init__(
        self, *, session_id: str, link: ClientLink, ask_by_form: bool, ask_by_url: bool = False
    ) -> None:
        self._session_id = session_id
        self._ask_by_form = ask_by_form
        self._ask_by_url = ask_by_url
        self._link = link
        self._forms = FormPresenter(link)
        self.forms = self._forms  # open ones: `SessionControls.asking_user`

    def withdraw(self) -> None:
        """Stop waiting for every open MCP form (the turn was cancelled, the session closed)."""
        self._forms.withdraw()

    async def answer(self, request: Any) -> dict[str, Any]:
        """The server's answer (`{action, content?}`) to Claude Code's `elicitation` request."""
        request = request if isinstance(request, dict) else {}
        server = request.get("mcp_server_name")
        server = server if isinstance(server, str) else "?"
        action, content = await self._ask(request, server)
        log.info("session %s: MCP server %r elicitation: %s", self._session_id, server, action)
        return {"action": action} if content is None else {"action": action, "content": content}

    async def completed(self, ident: str) -> None:
        """Claude Code's `elicitation_complete` frame: the server says its URL request `ident`
        is done."""
        if not self._ask_by_url:
            return  # only a client that takes URL requests follows them
        sent = await self._link.notify(
            "elicitation/complete", {"elicitationId": ident}, self._session_id
        )
        log.info("session %s: an MCP URL elicitation completed (told: %s)", self._session_id, sent)

    async def _ask(self, request: dict[str, Any], server: str) -> tuple[str, Any]:
        if not (self._ask_by_form or self._ask_by_url):
            log.info("session %s: the client has no elicitation; declining", self._session_id)
            return "decline", None
        mode = request.get("mode") or "form"
        if mode == "url" and self._ask_by_url:
            return await self._ask_url(request)
        if mode != "form" or not self._ask_by_form:
            log.info("session %s: an elicitation mode the client lacks; cancel", self._session_id)
            return "cancel", None
        shaped = form_fields(request.get("requested_schema"))
        if shaped is None:
            log.warning("session %s: an MCP form ACP cannot show; declining", self._session_id)
            return "decline", None
        fields, required = shaped
        schema: dict[str, Any] = {"type": "object", "properties": fields}
        if required:
            schema["required"] = required
        message = request.get("message")
        params = {
            "mode": "form",
            "sessionId": self._session_id,
            "message": message if isinstance(message, str) else "",
            "requestedSchema": schema,
        }
        reply = await self._forms.present(params)
        chosen = reply.get("action") if isinstance(reply, dict) else None
        if chosen == "decline":
            return "decline", None
        if chosen != "accept" or reply is None:
            return "cancel", None
        content = fit_answer(fields, required, reply.get("content"))
        if content is None:
            log.warning("session %s: a form answer lacking a required value", self._session_id)
            return "cancel", None
        return "accept", content

    async def _ask_url(self, request: dict[str, Any]) -> tuple[str, Any]:
        url, ident = request.get("url"), request.get("elicitation_id")
        if not isinstance(url, str) or not url:
            log.warning("session %s: a URL elicitation without a URL; cancel", self._session_id)
            return "cancel", None
        message = request.get("message")
        params = {
            "mode": "url",
            "sessionId": self._session_id,
            "message": message if isinstance(message, str) else "",
            "url": url,
            "elicitationId": ident if isinstance(ident, str) and ident else str(uuid.uuid4()),
        }
        reply = await self._forms.present(params)
        chosen = reply.get("action") if isinstance(reply, dict) else None
        # No content for a URL request: the user answers on the page, not in the form.
        return (chosen if chosen in ("accept", "decline") else "cancel"), None
