"""The adapter's side of the ACP connection, with failures turned into values.

A client that vanished or answered nonsense must not take a session down: a failed send is
reported as `False` (the core then records nothing, docs/decisions.md#delivery), and a failed
permission request as no outcome, which the session treats as a rejection.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ToolCallUpdate,
)
from acp.utils import serialize_params
from pydantic import ValidationError

from adapter.wire.acp_compat import (
    has_raw_sender,
    next_request_id,
    raw_notifier,
    send_raw_notification,
    send_raw_request,
)
from adapter.wire.guard_rules import MALFORMED_RESPONSES
from adapter.wire.response_watch import ResponseTicket, ResponseWatch

if TYPE_CHECKING:
    from fsm import ChangedMetaFilter

__all__ = ["BulkSender", "ClientLink", "Connection"]

log = logging.getLogger(__name__)


class Connection(Protocol):
    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None: ...

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> Any: ...


# A session's updates, written in order in one go (`GuardedTransport.send_session_updates`).
BulkSender = Callable[[str, Iterable[dict[str, Any]]], Awaitable[None]]


class ClientLink:
    def __init__(self) -> None:
        # The name the client gave in `initialize` (`clientInfo.name`), if it gave one: how
        # it shows permission options depends on who it is (`fsm.keys_options_by_kind`).
        self.client_name: str | None = None
        self._conn: Connection | None = None
        self._bulk: BulkSender | None = None
        self._responses: ResponseWatch | None = None
        # Whether updates pass the connection's changed-meta filter (`fsm.ChangedMetaFilter`),
        # which is made by the first update that does (not by `initialize`, whose answer needs
        # none of it) and kept.
        self._filtering = False
        self._meta_filter: ChangedMetaFilter | None = None

    def attach(self, conn: Connection) -> None:
        self._conn = conn

    def attach_bulk(self, sender: BulkSender) -> None:
        self._bulk = sender

    def attach_responses(self, watch: ResponseWatch) -> None:
        self._responses = watch

    def filter_meta(self, on: bool) -> None:
        """Whether every session update passes the changed-meta filter as it leaves (`on`:
        `fsm.AirClient.filters_meta`, JetBrains AIR): one filter for the connection, whichever
        session an update goes to, as the reference's client wrapper has it; what it held is
        kept across a second `initialize` (docs/reference-adapter.md#changed-meta-filter,
        docs/decisions.md#changed-meta-filter)."""
        self._filtering = on

    def _filter(self) -> ChangedMetaFilter:
        meta_filter = self._meta_filter
        if meta_filter is None:
            from fsm import ChangedMetaFilter

            meta_filter = self._meta_filter = ChangedMetaFilter()
        return meta_filter

    def _filtered(self, update: dict[str, Any]) -> dict[str, Any] | None:
        return self._filter().apply(update)

    def response_ticket(self) -> ResponseTicket:
        """A ticket for the answer to the client's request being handled (take it in the
        handler): what must follow that answer waits on it (`adapter.wire.response_watch`)."""
        if self._responses is None:
            return ResponseTicket(None, None)  # no guard to tell: nothing to wait for
        return self._responses.ticket()

    def requests_open(self) -> bool:
        """Whether one of the client's requests is being handled (passed on by the guard, not
        answered yet); False with no guard to tell."""
        return self._responses is not None and self._responses.any_open()

    async def send_update(self, session_id: str, update: Any) -> bool:
        """Send one `session/update` of the `acp` schema's kinds (a model, checked when it was
        built); False when it could not be sent. Its params are what `acp`'s own
        `session_update` sends (`serialize_params` of the update, under `sessionId`), made
        without its envelope model: `SessionNotification` checks the update again against a
        union of thirteen kinds, and building that model once per process took about 7 ms
        of a fresh process's first session, on the way to its answer (docs/performance.md).
        Past the changed-meta filter, as `acp`'s typed sender was."""
        if self._conn is None:
            return False
        try:
            params = serialize_params(update)
        except Exception:
            log.warning(
                "session %s: could not send %s",
                session_id,
                type(update).__name__,
                exc_info=log.isEnabledFor(logging.DEBUG),
            )
            return False
        return await self.send_chunk(session_id, params)

    def send_raw_update(self, session_id: str, update: dict[str, Any]) -> Awaitable[bool]:
        """Send one `session/update` as the dict it is (a kind the `acp` schema does not know,
        the `agent_error` dialect, which its typed API would drop; a streamed chunk, once per
        delta), through the changed-meta filter where the client has one (`filter_meta`) and
        the filter reads the update (`fsm.ChangedMetaFilter.FILTERED_UPDATES`; any other it
        would pass as it is, so it goes straight to `send_chunk`): an update it leaves nothing
        of is not sent, and that is no failure (docs/decisions.md#changed-meta-filter). A
        plain function handing back the send to await: an update the filter does not read
        costs no coroutine of its own."""
        if self._filtering:
            meta_filter = self._meta_filter
            if meta_filter is None:
                meta_filter = self._filter()
            if update.get("sessionUpdate") in meta_filter.FILTERED_UPDATES:
                return self._send_filtered(session_id, meta_filter.apply(update))
        return self.send_chunk(session_id, update)

    async def _send_filtered(self, session_id: str, filtered: dict[str, Any] | None) -> bool:
        if filtered is None:
            return True  # nothing left to send
        return await self.send_chunk(session_id, filtered)

    async def send_chunk(self, session_id: str, update: dict[str, Any]) -> bool:
        """Send one update as the dict it is, past the changed-meta filter (`send_raw_update`
        sends here what the filter does not read, a streamed chunk among them: the per-delta
        path). Through the bulk sender where there is one (the same frame, without acp's
        connection and the transport's request bookkeeping, layers a notification has no use
        for: once per streamed delta), else the connection's raw notification sender
        (`adapter.wire.acp_compat`)."""
        if self._bulk is not None and self._conn is not None:
            try:
                await self._bulk(session_id, (update,))
            except Exception:
                log.warning(
                    "session %s: could not send %s", session_id, update.get("sessionUpdate")
                )
                return False
            return True
        try:
            return await send_raw_notification(
                self._conn, "session/update", {"sessionId": session_id, "update": update}
            )
        except Exception:
            log.warning("session %s: could not send %s", session_id, update.get("sessionUpdate"))
            return False

    async def send_raw_updates(self, session_id: str, updates: list[dict[str, Any]]) -> bool:
        """`send_raw_update` for several updates in order (a replay's bulk: one write through
        the bulk sender where there is one, else one lookup and no layer per frame); False when
        they could not all be sent. Each goes through the changed-meta filter first, as in
        `send_raw_update`."""
        if self._filtering:
            updates = [kept for kept in map(self._filtered, updates) if kept is not None]
            if not updates:
                return True
        if self._bulk is not None and self._conn is not None:
            try:
                await self._bulk(session_id, updates)
            except Exception:
                log.warning("session %s: could not send %d updates", session_id, len(updates))
                return False
            return True
        send = raw_notifier(self._conn)
        if send is None:
            return False
        for update in updates:
            try:
                await send("session/update", {"sessionId": session_id, "update": update})
            except Exception:
                log.warning(
                    "session %s: could not send %s", session_id, update.get("sessionUpdate")
                )
                return False
        return True

    async def notify(self, method: str, params: dict[str, Any], session_id: str) -> bool:
        """A notification `acp`'s typed API has no sender for (`elicitation/complete`); False
        when it could not be sent."""
        try:
            return await send_raw_notification(self._conn, method, params)
        except Exception:
            log.warning("session %s: could not send %s", session_id, method)
            return False

    def next_request_id(self) -> int | None:
        """The JSON-RPC id the next request to the client will carry (acp 0.12.1, pinned: it
        is taken synchronously when a request is sent, so read it right before sending)."""
        return next_request_id(self._conn)

    async def cancel_request(self, request_id: int) -> None:
        """ACP's `$/cancel_request`: a request the client still holds is withdrawn."""
        try:
            await send_raw_notification(self._conn, "$/cancel_request", {"requestId": request_id})
        except Exception:
            log.warning("could not withdraw request %s", request_id)

    async def _ask_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        name: str | None,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        """`session/request_permission`, its `toolCall` carrying ACP 1.22's `name` (the tool
        as Claude calls it), which `acp` 0.12.1's model has no field for: the params are the
        SDK's own serialization with `name` added, sent through the raw sender. `meta`: the
        request's `_meta` (JetBrains AIR's heading)."""
        assert self._conn is not None
        if not name or not has_raw_sender(self._conn):
            return await self._conn.request_permission(
                session_id, tool_call, options, **(meta or {})
            )
        request = RequestPermissionRequest(
            session_id=session_id, tool_call=tool_call, options=options, field_meta=meta
        )
        params = serialize_params(request)
        params["toolCall"] = {**params["toolCall"], "name": name}
        raw = await send_raw_request(self._conn, "session/request_permission", params)
        return RequestPermissionResponse.model_validate(raw)

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        name: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> AllowedOutcome | DeniedOutcome | None:
        if self._conn is None:
            return None
        try:
            response = await self._ask_permission(session_id, tool_call, options, name, meta)
        except RequestError as exc:
            # An error answer, or one the stdin guard put in place of a malformed reply.
            reason = exc.data.get("reason") if isinstance(exc.data, dict) else None
            log.warning(
                "session %s: the permission request failed (%s); denying",
                session_id,  # the guard's own words, never the client's
                reason if reason in MALFORMED_RESPONSES else f"error {exc.code}",
            )
            return None
        except ValidationError:
            log.warning("session %s: a permission answer that is not one; denying", session_id)
            return None
        except Exception:
            log.warning("session %s: permission request failed; denying", session_id)
            return None
        outcome = getattr(response, "outcome", None)
        if isinstance(outcome, AllowedOutcome | DeniedOutcome):
            return outcome
        log.warning("session %s: a permission answer without an outcome; denying", session_id)
        return None

    async def create_elicitation(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """ACP's `elicitation/create` with these params: the client's answer (a dict, unchecked),
        or None when the client answered with an error or could not be asked."""
        if self._conn is None:
            return None
        try:
            result = await send_raw_request(self._conn, "elicitation/create", params)
        except Exception:
            log.warning("session %s: elicitation/create failed", params.get("sessionId"))
            return None
        return result if isinstance(result, dict) else {}
