"""`providers/list`, `providers/set`, `providers/disable` and the `gateway` sign-in: the model
provider Claude Code talks to, as the client sets it (the rules: `fsm/claude/providers.py`).

`acp` 0.12.1's router does not route the `providers/*` methods: the agent answers them before
the router (`ClaudeAcpAgent._providers_guard`), and imports this module with the first of them,
so a client that never asks loads none of it. The provider is the connection's, as in the
reference (docs/reference-adapter.md#providers): the settings every Claude process starts from
read its route (`RuntimeSettings.route`), so each Claude started after a change routes through
it, and every live session's next prompt starts a fresh Claude, which resumes the
conversation (`CredentialsChanged`): a running turn ends where it began and every prompt is
answered once (docs/decisions.md#provider-change). Requests that open a session or send a prompt
wait while a change is applied. Nothing the client sent for the provider is logged: a URL or a
header may carry a credential.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio
from acp import RequestError

from fsm import (
    BadProviderRequest,
    ProviderRoutes,
    RouteChange,
    gateway_provider,
    provider_listing,
    provider_request,
    provider_to_disable,
)

if TYPE_CHECKING:
    from adapter.agent.auth_push import AuthPush
    from adapter.claude.runtime_settings import RuntimeSettings
    from adapter.session.session import Session

__all__ = ["LIST", "METHODS", "ProviderRequests"]

log = logging.getLogger(__name__)

LIST, SET, DISABLE = "providers/list", "providers/set", "providers/disable"
METHODS = frozenset({LIST, SET, DISABLE})


class ProviderRequests:
    """The connection's provider: which one routes, and whether a change moves live sessions,
    is the core's (`fsm.ProviderRoutes`); this applies each change, one at a time."""

    def __init__(
        self,
        *,
        settings: RuntimeSettings,
        sessions: Mapping[str, Session],
        auth: AuthPush | None = None,
    ) -> None:
        self._settings = settings
        self._sessions = sessions
        # The connection's `authStatus`: a gateway sign-in is its identity, a provider set
        # makes a session's account no news (adapter.agent.auth_push).
        self._auth = auth
        # The route, read live by every Claude that starts (its environment) and wherever text
        # is masked (its header values: `RuntimeSettings.masked`, the wire guard and the log).
        self._routes = settings.route.routes = ProviderRoutes()
        self._lock = anyio.Lock()  # one change at a time, in the order they came
        self._applying: anyio.Event | None = None

    async def answer(self, method: str, params: Any) -> dict[str, Any]:
        """One `providers/*` request's result; -32602 for bad params."""
        if method == LIST:
            environ = {**os.environ, **self._settings.env}
            return provider_listing(self._routes.current, environ)
        if method == SET:
            provider = provider_request(params)
            if isinstance(provider, BadProviderRequest):
                raise RequestError(-32602, provider.message)
            log.info(
                "providers/set: apiType=%s, %d header(s)", provider.api_type, len(provider.headers)
            )
            await self._change(lambda routes: routes.set(provider))
            return {}
        disable = provider_to_disable(params)
        if isinstance(disable, BadProviderRequest):
            raise RequestError(-32602, disable.message)
        if disable:
            log.info("providers/disable")
            await self._change(ProviderRoutes.disable)
        return {}

    async def sign_in(self, method_id: str, meta: Mapping[str, Any]) -> None:
        """A gateway sign-in (`authenticate` with `gateway` or `gateway-bedrock`): its
        `_meta.gateway` routes every Claude started after it while no provider is set; one
        without it is a probe that changes nothing, as in the reference
        (docs/reference-adapter.md#providers)."""
        provider = gateway_provider(method_id, meta)
        if isinstance(provider, BadProviderRequest):
            raise RequestError(-32602, provider.message)
        if provider is not None:
            log.info(
                "authenticate: %s gateway, %d header(s)", provider.api_type, len(provider.headers)
            )
            await self._change(lambda routes: routes.sign_in(provider))
            if self._auth is not None:
                await self._auth.gateway_signed_in(provider.base_url)

    async def sign_out(self) -> None:
        """`logout`: the provider set and the gateway signed in with go too."""
        await self._change(ProviderRoutes.sign_out)

    async def settled(self) -> None:
        """Wait while a change is applied (a session's opening, a prompt)."""
        while self._applying is not None:
            await self._applying.wait()

    async def _change(self, decide: Callable[[ProviderRoutes], RouteChange]) -> None:
        async with self._lock:
            self._applying = applying = anyio.Event()
            try:
                change = decide(self._routes)
                if self._auth is not None:
                    self._auth.routing(gateway=change.gateway, provider_set=change.provider_set)
                # The route and its header values are live already (`RuntimeSettings.route`):
                # every Claude started from now on routes through it, and its header values are
                # masked as the environment's secrets are, after their provider is gone too.
                if not change.changed:
                    return
                for session in list(self._sessions.values()):
                    await session.restart_on_next_prompt(change.private)
            finally:
                self._applying = None
                applying.set()

    async def opened(self, session: Session) -> None:
        """A session just opened: if its Claude started before the latest change, its next
        prompt starts a fresh one (the change's own pass may have missed it)."""
        runtime = session.claude.runtime
        if runtime is not None and self._routes.stale(runtime.routing):
            await session.restart_on_next_prompt(self._routes.private)
