"""Methods the earlier Claude adapter (Zed's claude-code-acp) answered that ACP's schema, and so
`acp` 0.12.1's router, no longer knows: `session/set_model`, which Emacs `acp.el` still sends,
answered -32601.

`session/set_model {sessionId, modelId}` is the model config option under its old name: it sets
the model as `session/set_config_option {configId: "model"}` does (the same check, the same
`config_option_update`) and answers `{}`, as the earlier adapter did. A `modelId` may be a
picker value (`opus`) or the full model id Claude Code resolves one to (`claude-opus-4-1`).
`session/set_mode` is ACP's own and stays routed by `acp`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from acp import RequestError

__all__ = ["SET_MODEL", "ModelSetter", "guard"]

SET_MODEL = "session/set_model"

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


class ModelSetter(Protocol):
    async def set_session_model(self, model_id: str, session_id: str) -> None: ...


def _text(params: dict[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise RequestError.invalid_params({key: "must be a non-empty string"})
    return value


def guard(agent: ModelSetter) -> Callable[[_Handler], _Handler]:
    """A wrapper for the connection's request router that answers the aliases itself."""

    def wrap(handler: _Handler) -> _Handler:
        async def routed(method: str, params: Any, is_notification: bool) -> Any:
            if method != SET_MODEL or is_notification:
                return await handler(method, params, is_notification)
            if not isinstance(params, dict):
                raise RequestError.invalid_params({"params": "must be an object"})
            await agent.set_session_model(_text(params, "modelId"), _text(params, "sessionId"))
            return {}

        return routed

    return wrap
