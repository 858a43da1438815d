"""`_session/steering`, as the reference adapter answers it: a message for the turn that runs.

`{sessionId, prompt, _meta?: {steering: {idleBehavior: "promptRequired"}}}` answers
`{outcome: "injected"}` when a turn runs (the message goes to Claude at once, with priority
`now`, or `later` while a question waits for the user, and the turn is answered when Claude is
idle after it), else `{outcome: "promptRequired", reason: "noRunningTurn"}` for a client that
asked for it back, or `{outcome: "startedNewTurn"}` (the message becomes a prompt of its own).
The turn table decides (`fsm/turn.py`, `steer_received`). Advertised in the `initialize` answer's
own `_meta.steering.supported` (beside `agentCapabilities`, `adapter.agent.handshake`). Bad
params, an `idleBehavior` other than "promptRequired" and an unknown session are -32602, as the
reference answers them (docs/reference-adapter.md#steering-idle-behavior), and so is a message
with nothing in it (no blocks, or only blank text).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from acp import RequestError
from acp.schema import PromptRequest
from pydantic import ValidationError

from adapter.claude.prompt_content import check_not_empty

__all__ = ["STEER", "Steerer", "guard"]

STEER = "_session/steering"

_Handler = Callable[[str, Any, bool], Awaitable[Any]]


class Steerer(Protocol):
    async def steer(
        self, session_id: str, prompt: list[Any], *, prompt_required: bool
    ) -> dict[str, Any]: ...


def _read(params: Any) -> tuple[str, list[Any], bool]:
    if not isinstance(params, dict):
        raise RequestError.invalid_params({"params": "must be an object"})
    session_id, prompt = params.get("sessionId"), params.get("prompt")
    if not isinstance(session_id, str) or not session_id:
        raise RequestError.invalid_params({"sessionId": "must be a non-empty string"})
    if not isinstance(prompt, list) or not prompt:
        raise RequestError.invalid_params({"prompt": "must be a non-empty array"})
    meta = params.get("_meta")
    steering = meta.get("steering") if isinstance(meta, dict) else None
    idle = steering.get("idleBehavior") if isinstance(steering, dict) else None
    if idle is not None and idle != "promptRequired":
        raise RequestError.invalid_params({"idleBehavior": "unsupported"})
    try:
        blocks = PromptRequest.model_validate({"sessionId": session_id, "prompt": prompt}).prompt
    except ValidationError as exc:
        raise RequestError.invalid_params({"prompt": "not ACP content blocks"}) from exc
    # Nothing to say is refused as an empty `session/prompt` is: -32602, nothing reaches Claude
    # (docs/decisions.md#empty-and-placeholder-input).
    check_not_empty(list(blocks))
    return session_id, list(blocks), idle == "promptRequired"


def guard(agent: Steerer) -> Callable[[_Handler], _Handler]:
    """A wrapper for the connection's request router that answers `_session/steering`."""

    def wrap(handler: _Handler) -> _Handler:
        async def routed(method: str, params: Any, is_notification: bool) -> Any:
            if method != STEER or is_notification:
                return await handler(method, params, is_notification)
            session_id, blocks, prompt_required = _read(params)
            return await agent.steer(session_id, blocks, prompt_required=prompt_required)

        return routed

    return wrap
