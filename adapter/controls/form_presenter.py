"""One session's open `elicitation/create` forms, and their withdrawal.

Claude's questions (`adapter.controls.questions`) and MCP servers' forms
(`adapter.controls.mcp_elicitation`) are both asked this way: a form still open when its turn
is cancelled or its session closed (`withdraw`), or when Claude Code gives up on it (the SDK
cancels the callback that waits), is withdrawn from the client with `$/cancel_request`, and
the caller gets `{"action": "cancel"}` at once, whatever the client does with the form later.
"""

from __future__ import annotations

from typing import Any

import anyio

from adapter.wire.client_link import ClientLink

__all__ = ["CANCELLED", "FormPresenter"]

CANCELLED: dict[str, Any] = {"action": "cancel"}


class FormPresenter:
    def __init__(self, link: ClientLink) -> None:
        self._link = link
        self._pending: set[anyio.CancelScope] = set()

    @property
    def waiting(self) -> bool:
        """A form is open: the user has yet to answer it."""
        return bool(self._pending)

    def withdraw(self) -> None:
        """Stop waiting for every open form."""
        for scope in list(self._pending):
            scope.cancel()

    async def present(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """The client's answer (a dict, unchecked); `CANCELLED` when withdrawn; None when it
        could not be asked (the client answered with an error, or there is no client)."""
        request_id = self._link.next_request_id()
        withdrawn = True
        try:
            with anyio.CancelScope() as scope:
                self._pending.add(scope)
                try:
                    answer = await self._link.create_elicitation(params)
                finally:
                    self._pending.discard(scope)
                withdrawn = False
                return answer
            return dict(CANCELLED)
        finally:
            if withdrawn and request_id is not None:
                # The client may still show the form: tell it the form is gone.
                with anyio.CancelScope(shield=True):
                    await self._link.cancel_request(request_id)
