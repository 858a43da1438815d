"""Every place the adapter reaches past `acp`'s public API (0.12.1), in one module.

Each touchpoint is pinned by `tests/shell/test_compat.py`, which fails when an upgrade of `acp`
moves or changes it.

- `next_request_id`: the connection's private `_conn._next_request_id`, the id the next
  request will carry (a permission question's, to withdraw it with `$/cancel_request`).
- `raw_notifier`, `send_raw_notification`: `acp`'s connection's private `_conn`, the only way to
send a
  `session/update` kind the `acp` schema does not know (the `agent_error` dialect).
- `has_raw_sender`, `send_raw_request`: the same private `_conn`'s request sender, for
  `session/request_permission` (its `toolCall` gets ACP 1.22's `name`, which 0.12.1's model
  drops) and for `elicitation/create`:
  0.12.1's typed `create_elicitation` remodels the form schema and parses every answer into a
  union with no `action` discriminator, so a decline or a cancel cannot be told from an accept.
- `wrap_request_handler`: `acp`'s connection's private `_conn._handler`, wrapped so requests
  can be checked before the schema drops what it cannot read (client MCP server entries).

One assumption is not a touchpoint but is pinned beside them: `acp`'s receive loop starts each
request's handler task right after the transport's `receive` returned it, so the handler's
context is a copy of `receive`'s (`adapter.wire.response_watch` names the request there).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

__all__ = [
    "has_raw_sender",
    "next_request_id",
    "raw_notifier",
    "send_raw_notification",
    "send_raw_request",
    "wrap_request_handler",
]


def raw_notifier(conn: Any) -> Callable[[str, dict[str, Any]], Awaitable[None]] | None:
    """The `acp` connection's raw notification sender (`send_raw_notification` without the
    lookup, for a sender of many frames); None if it has none."""
    raw = getattr(conn, "_conn", None)
    send = getattr(raw, "send_notification", None)
    return send if callable(send) else None


async def send_raw_notification(conn: Any, method: str, params: dict[str, Any]) -> bool:
    """Send a notification through the `acp` connection's raw sender; False if it has none."""
    raw = getattr(conn, "_conn", None)
    if raw is None:
        return False
    await raw.send_notification(method, params)
    return True


def has_raw_sender(conn: Any) -> bool:
    """Whether the `acp` connection has the raw request sender `send_raw_request` uses."""
    return callable(getattr(getattr(conn, "_conn", None), "send_request", None))


async def send_raw_request(conn: Any, method: str, params: dict[str, Any]) -> Any:
    """Send a request through the `acp` connection's raw sender and return its raw result
    (raises `acp.RequestError` for a JSON-RPC error answer, LookupError without a sender)."""
    raw = getattr(conn, "_conn", None)
    if raw is None:
        raise LookupError("the acp connection has no raw request sender")
    return await raw.send_request(method, params)


def wrap_request_handler(conn: Any, wrap: Any) -> bool:
    """Replace the `acp` connection's request handler with `wrap(handler)`; False if it has
    none where this version keeps it."""
    raw = getattr(conn, "_conn", None)
    if raw is None or not hasattr(raw, "_handler"):
        return False
    raw._handler = wrap(raw._handler)
    return True


def next_request_id(conn: Any) -> int | None:
    """The JSON-RPC id the connection's next request will carry; None if it keeps none."""
    value = getattr(getattr(conn, "_conn", None), "_next_request_id", None)
    return value if isinstance(value, int) else None
