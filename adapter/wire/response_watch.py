"""When the response to one of the client's requests has been written: for frames that must
follow it.

Why: a session's command list (`available_commands_update`) is told once the setup response that
opened the session (`session/new`, `load`, `resume`, `fork`) is out, or the client drops an
update for a session it does not know yet. The handler cannot send it after its own response:
`acp` writes the response when the handler has returned. So the handler takes a ticket for the
response to the request it serves (`ResponseWatch.ticket`, at once, while it runs) and a task of
the session's waits on it (`ResponseTicket.written`); the guard settles the ticket as it writes
that response (`GuardedTransport.send`). Nothing here counts turns of the event loop.

How a handler knows its request: the guard's `receive` names each message it passes on in
`CURRENT_REQUEST` (a context variable: the request's id, or None for a notification). `acp`
0.12.1 starts each request's handler task from its receive loop right after `receive` returns,
and a task starts with a copy of the context, so the handler reads its own request's id (pinned
by `tests/shell/test_compat.py`).

The wait is bounded (`RESPONSE_WAIT_SECONDS`): a response that is never written (the output
closed, the connection ended) must not keep the waiting task forever.
"""

from __future__ import annotations

import contextvars
from typing import Any

__all__ = ["CURRENT_REQUEST", "RESPONSE_WAIT_SECONDS", "ResponseTicket", "ResponseWatch"]

# Far beyond the moment between a handler's return and its response's write; a bound on a leak.
RESPONSE_WAIT_SECONDS = 30.0

# The id of the client's request whose handler runs in this context, wrapped as `_key` makes it.
CURRENT_REQUEST: contextvars.ContextVar[tuple[str, Any] | None] = contextvars.ContextVar(
    "claude_acp_current_request", default=None
)


def _key(request_id: Any) -> tuple[str, Any]:
    """A JSON-RPC id as a dict key: 1 and 1.0 and True hash alike in Python, not on the wire."""
    return (type(request_id).__name__, request_id)


class ResponseTicket:
    """The response to one request: `written` waits for it, True when it went out as a result."""

    def __init__(self, watch: ResponseWatch | None, key: tuple[str, Any] | None) -> None:
        self._watch = watch
        self._key = key
        import anyio  # here: answering `initialize` needs none of anyio

        self._done = anyio.Event()
        self._ok = False
        if watch is None or key is None:
            # Not inside a request the guard passed on (a test's bare link): nothing to wait for.
            self.settle(ok=True)

    def settle(self, *, ok: bool) -> None:
        if not self._done.is_set():
            self._ok = ok
            self._done.set()

    async def written(self, timeout: float = RESPONSE_WAIT_SECONDS) -> bool:
        """Whether the response went out as a result; False for an error, for a response not
        written within `timeout` seconds, or for one the connection ended before."""
        import anyio

        with anyio.move_on_after(timeout):
            await self._done.wait()
        if not self._done.is_set() and self._watch is not None and self._key is not None:
            self._watch.forget(self._key, self)
        return self._done.is_set() and self._ok


class ResponseWatch:
    """The tickets waiting for responses, by request id (ids may repeat: each response settles the
    tickets taken before it was written)."""

    def __init__(self) -> None:
        self._waiting: dict[tuple[str, Any], list[ResponseTicket]] = {}
        # Requests passed on whose response is not written yet. A task a handler started
        # carries its request's id in its context after that response went out (a steer's
        # prompt of its own, say): a ticket taken there has nothing left to wait for.
        self._open: set[tuple[str, Any]] = set()

    def received(self, message: dict[str, Any]) -> None:
        """Name the message about to be passed on to `acp` (called by the guard's `receive`)."""
        is_request = "method" in message and "id" in message
        key = _key(message["id"]) if is_request else None
        if key is not None:
            self._open.add(key)
        CURRENT_REQUEST.set(key)

    def any_open(self) -> bool:
        """Whether a request passed on is not answered yet."""
        return bool(self._open)

    def ticket(self) -> ResponseTicket:
        """A ticket for the response to the request this code serves (call it in the handler);
        settled at once when that response is already out."""
        key = CURRENT_REQUEST.get()
        if key not in self._open:
            return ResponseTicket(None, None)
        ticket = ResponseTicket(self, key)
        self._waiting.setdefault(key, []).append(ticket)
        return ticket

    def written(self, request_id: Any, *, ok: bool) -> None:
        """The response to `request_id` is written (`ok`: as a result, not an error)."""
        self._open.discard(_key(request_id))
        for ticket in self._waiting.pop(_key(request_id), []):
            ticket.settle(ok=ok)

    def ended(self) -> None:
        """No response will be written any more: every waiting ticket fails."""
        waiting, self._waiting = self._waiting, {}
        self._open.clear()
        for tickets in waiting.values():
            for ticket in tickets:
                ticket.settle(ok=False)

    def forget(self, key: tuple[str, Any], ticket: ResponseTicket) -> None:
        tickets = self._waiting.get(key, [])
        if ticket in tickets:
            tickets.remove(ticket)
        if not tickets:
            self._waiting.pop(key, None)
