"""How the core's records reach the client, in every dialect it negotiated.

A `session_info_update` (sessionFailure) and an `agent_error` update (agentError) for a published
record; the record on a prompt response's `_meta`, with its `agent_error` update sent first.
Each send reports whether it went out, so the core hears `DeliveryConfirmed` or `DeliveryFailed`.
"""

from __future__ import annotations

from typing import Any

from acp import helpers
from acp.schema import PromptResponse, SessionInfoUpdate

from adapter.wire.client_link import ClientLink
from fsm import AgentErrorDialect, Dialects, FailureRecord, SessionFailureDialect, StopReason

__all__ = ["Publisher"]

_SESSION_FAILURE = SessionFailureDialect()
_AGENT_ERROR = AgentErrorDialect()


class Publisher:
    def __init__(self, *, link: ClientLink, dialects: Dialects, session_id: str) -> None:
        self._link = link
        self._dialects = dialects
        self._session_id = session_id

    async def publish(self, record: FailureRecord, *, agent_error: bool = True) -> bool:
        """Send `record` in every dialect the client asked for (`agent_error` false: not in
        that one); True iff every send went out."""
        sent = True
        if self._dialects.session_failure:
            info = SessionInfoUpdate(
                session_update="session_info_update", field_meta=_SESSION_FAILURE.meta_for(record)
            )
            sent = await self._link.send_update(self._session_id, info)
        if not agent_error:
            return sent
        # Which records have an `agent_error` form is the dialect's rule (`update_for`).
        return await self._agent_error(record) and sent

    async def notice(self, severity: str, title: str, description: str | None) -> bool:
        """An ACP `notice` update (docs/decisions.md#acp-notices); `acp` 0.12.1 has no type for
        it."""
        update: dict[str, Any] = {"sessionUpdate": "notice", "severity": severity, "title": title}
        if description:
            update["description"] = description
        return await self._link.send_raw_update(self._session_id, update)

    async def response(
        self, stop_reason: StopReason, record: FailureRecord | None
    ) -> PromptResponse:
        """The prompt's answer; a turn-terminal record rides on its `_meta` (and its
        `agent_error` update goes out before it)."""
        meta = None
        if record is not None:
            await self._agent_error(record)
            if self._dialects.session_failure:
                meta = _SESSION_FAILURE.meta_for(record)
        return PromptResponse(stop_reason=stop_reason.value, field_meta=meta)

    async def agent_text(self, text: str, meta: dict[str, Any] | None = None) -> bool:
        update = helpers.update_agent_message_text(text)
        if meta:
            update.field_meta = meta
        return await self._link.send_update(self._session_id, update)

    async def _agent_error(self, record: FailureRecord) -> bool:
        update = _AGENT_ERROR.update_for(record) if self._dialects.agent_error else None
        if update is None:
            return True
        return await self._link.send_raw_update(self._session_id, update)
