"""ACP's `$/cancel_request` from the client, for the requests `acp` 0.12.1 cannot cancel.

The pinned `acp` has no `$/cancel_request` routing (its `meta.py` lacks the method), so a client
that cancels a running `session/prompt` that way was ignored and the turn ran on. The guard sees
every line first: it notes which `session/prompt` ids are still open, and turns a
`$/cancel_request` naming one of them into that session's `session/cancel`, which is what the
reference adapter does (docs/reference-adapter.md#cancel-request: it cancels the whole
session's turns, the prompt is then answered once with `stopReason: cancelled`). A
`$/cancel_request` for any other id (unknown, already answered, a request that is not a
prompt) changes nothing and is dropped here.
"""

from __future__ import annotations

import collections
import logging
from typing import Any

__all__ = ["CANCEL_REQUEST", "OpenPrompts"]

log = logging.getLogger(__name__)

CANCEL_REQUEST = "$/cancel_request"


class OpenPrompts:
    """The client's `session/prompt` requests not yet answered: id → session id."""

    def __init__(self) -> None:
        self._sessions: dict[Any, str] = {}
        # Ids may repeat (a careless client): the entry stays while any of them is open.
        self._count: collections.Counter[Any] = collections.Counter()

    def note_request(self, message: dict[str, Any]) -> None:
        """A request passed on to the agent."""
        params = message.get("params")
        if message.get("method") != "session/prompt" or not isinstance(params, dict):
            return
        session_id = params.get("sessionId")
        if isinstance(session_id, str):
            key = _key(message["id"])
            self._sessions[key] = session_id
            self._count[key] += 1

    def note_answer(self, request_id: Any) -> None:
        """The agent answered the client's request `request_id`."""
        key = _key(request_id)
        if self._count[key] > 0:
            self._count[key] -= 1
            if self._count[key] == 0:
                del self._count[key]
                self._sessions.pop(key, None)

    def translate(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """For a `$/cancel_request` notification: the `session/cancel` it stands for, or None
        when it names no open prompt (nothing to do)."""
        params = message.get("params")
        request_id = params.get("requestId") if isinstance(params, dict) else None
        session_id = self._sessions.get(_key(request_id)) if _is_id(request_id) else None
        if session_id is None:
            log.info("$/cancel_request for a request that is not a running prompt: ignored")
            return None
        log.info("$/cancel_request for a running prompt: cancelling its session's turn")
        return {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}


def _is_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _key(request_id: Any) -> tuple[str, Any]:
    # 1 and "1" are different ids; the type keeps them apart (and True away from 1).
    return (type(request_id).__name__, request_id)
