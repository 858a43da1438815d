"""A session's auto-mode fallback and fast-mode switch, carried out on the running Claude.

Theory of operation: what is offered and what a value means is `adapter.controls.auto_fast`;
this part talks to Claude and the client. `resolve` turns a choice of `auto` the current model
lacks into Accept edits and tells the client once per session; at start-up (`adopt`) a session
whose transcript or settings chose such an `auto` is switched to Accept edits, and told once its
setup response is out (`warn_if_pending`, after the command list). Fast mode starts as Claude
Code reports it, except in a new Claude process of a session whose client already switched it
(a restart, e.g. after signing in again): Claude gets the client's choice back, as the reference
adapter restores it after a restart.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from acp import RequestError, helpers

from adapter.controls.auto_fast import (
    AUTO_FALLBACK,
    AUTO_UNAVAILABLE,
    AUTO_UNAVAILABLE_TEXT,
    check_fast,
    fast_state,
)
from adapter.controls.pickers import SessionConfig
from adapter.wire.client_link import ClientLink

if TYPE_CHECKING:
    from adapter.claude.process import ClaudeRuntime

__all__ = ["AutoFast"]

log = logging.getLogger(__name__)


class AutoFast:
    def __init__(
        self, *, session_id: str, link: ClientLink, config: SessionConfig, notices: bool
    ) -> None:
        self._session_id = session_id
        self._link = link
        self._config = config
        self._notices = notices  # the client declared `session.notices`
        self._warned = False
        self._pending = False
        self._fast_chosen = False  # the client switched fast mode in this session

    async def adopt(self, runtime: ClaudeRuntime, info: Mapping[str, Any]) -> None:
        """Square a new Claude process with the session's choices."""
        config = self._config
        reported = fast_state(info)
        if self._fast_chosen and reported is not None and reported != config.fast:
            try:
                await runtime.set_fast(config.fast)
            except Exception:
                log.warning("session %s: Claude refused the fast mode", self._session_id)
        elif reported is not None:
            config.fast = reported
        if config.mode == "auto" and not config.auto_available():
            try:
                await runtime.set_permission_mode(AUTO_FALLBACK)
            except Exception:
                log.warning("session %s: Claude refused Accept edits", self._session_id)
                return
            config.mode = AUTO_FALLBACK
            self._pending = not self._warned

    async def resolve(self, mode: str) -> str:
        if mode != "auto" or self._config.auto_available():
            return mode
        await self._warn()
        return AUTO_FALLBACK

    async def warn_if_pending(self) -> None:
        if self._pending:
            self._pending = False
            await self._warn()

    async def _warn(self) -> None:
        if self._warned:
            return
        self._warned = True
        if self._notices:
            title, description = AUTO_UNAVAILABLE
            update = {
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": title,
                "description": description,
            }
            await self._link.send_raw_update(self._session_id, update)
            return
        text = helpers.update_agent_message_text(AUTO_UNAVAILABLE_TEXT)
        await self._link.send_update(self._session_id, text)

    async def set_fast(self, runtime: ClaudeRuntime | None, value: object) -> None:
        """The client's switch: checked, then Claude's; the response carries the options."""
        on = check_fast(value, self._config.fast_boolean)
        if runtime is not None:
            try:
                await runtime.set_fast(on)
            except Exception as exc:
                raise RequestError.internal_error({"reason": "Claude refused fast mode"}) from exc
        self._config.fast = on
        self._fast_chosen = True
