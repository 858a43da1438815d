"""A session's auto-mode fallback and fast-mode switch, carried out on the running Claude.

Theory of operation: what is offered and what a value means is `adapter.controls.auto_fast_rules`;
this part talks to Claude and the client. `resolve` turns a choice of `auto` the current model
lacks into Accept edits; at start-up (`adopt`) a session whose transcript or settings chose such
an `auto` is switched to Accept edits, while one that is in `auto` only because nothing named a
mode (Claude started with `--permission-mode auto`, as the reference starts it:
docs/reference-adapter.md#auto-mode) is switched to Manual. Fast mode starts as Claude Code
reports it, except in a new Claude process of a session whose client already switched it (a
restart, e.g. after signing in again): Claude gets the client's choice back, as the reference
adapter restores it after a restart (same section). Claude Code's own fast-mode change
(`follow`) moves the switch as the core's `fsm.follow_fast_mode` says.

What the client is told, and when, is the core's notice machine (`fsm/notices.py`): this part
reports each fact (`AutoModeUnavailable`, `AutoModeFellBackAtStart`, `FastModeTurnedOff`) through
`report`, the session's `feed`, which performs the notice or text the core decides on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import ConfigOptionUpdate

from adapter.claude.translate import FastMode
from adapter.controls.auto_fast_rules import (
    AUTO_FALLBACK,
    check_fast,
    fast_report,
    fast_state,
)
from adapter.controls.pickers import SessionConfig
from adapter.wire.client_link import ClientLink
from fsm import (
    AutoModeFellBackAtStart,
    AutoModeUnavailable,
    Event,
    FastModeTurnedOff,
    fast_off_explanation,
    follow_fast_mode,
)

if TYPE_CHECKING:
    from adapter.claude.claude_runtime import ClaudeRuntime

__all__ = ["AutoFast"]

log = logging.getLogger(__name__)


class AutoFast:
    def __init__(
        self,
        *,
        session_id: str,
        link: ClientLink,
        config: SessionConfig,
        report: Callable[[Event], Awaitable[None]],
    ) -> None:
        self._session_id = session_id
        self._link = link
        self._config = config
        self._report = report  # a fact for the core, whose notice machine tells the client
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
            explained = fast_report(info)
            reason = explained[1] if explained is not None else None
            config.fast_off_because = fast_off_explanation(reason)
        by_default, config.auto_by_default = config.auto_by_default, False
        if config.mode == "auto" and not config.auto_available():
            # An `auto` nobody asked for falls back to Manual silently; a chosen one to Accept
            # edits, with the warning.
            fallback = "default" if by_default else AUTO_FALLBACK
            try:
                await runtime.set_permission_mode(fallback)
            except Exception:
                log.warning("session %s: Claude refused the %s mode", self._session_id, fallback)
                return
            config.mode = fallback
            if not by_default:
                await self._report(AutoModeFellBackAtStart())

    async def resolve(self, mode: str) -> str:
        if mode != "auto" or self._config.auto_available():
            return mode
        await self._report(AutoModeUnavailable())
        return AUTO_FALLBACK

    async def follow(self, fast: FastMode) -> None:
        """Mirror Claude Code's own fast-mode change, as a `system/init` or a user turn's
        `result` says it (`adapter.claude.translate.own_changes`); when the switch follows and
        when its turning off is told is the core's rule (`fsm.follow_fast_mode`)."""
        config = self._config
        followed = follow_fast_mode(
            on=config.fast,
            off_because=config.fast_off_because,
            said_on=fast.on,
            said_because=fast_off_explanation(fast.reason),
        )
        if followed is None:
            return
        config.fast, config.fast_off_because = followed.on, followed.off_because
        if config.fast_offered():
            update = ConfigOptionUpdate(
                session_update="config_option_update", config_options=config.options()
            )
            await self._link.send_update(self._session_id, update)
        if followed.turned_off and followed.off_because is not None:
            await self._report(FastModeTurnedOff(explanation=followed.off_because))

    async def set_fast(self, runtime: ClaudeRuntime | None, value: object) -> None:
        """The client's switch: checked, then Claude's; the response carries the options."""
        on = check_fast(value, self._config.boolean_options)
        if runtime is not None:
            try:
                await runtime.set_fast(on)
            except Exception as exc:
                raise RequestError.internal_error({"reason": "Claude refused fast mode"}) from exc
        self._config.fast = on
        self._fast_chosen = True
