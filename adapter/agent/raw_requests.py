"""What `acp` 0.12.1 drops or checks badly, read from the raw request before it parses.

`RawCapabilities`: client capabilities that `acp` drops when it parses `initialize`:
`clientCapabilities.session.notices` (ACP notices, docs/decisions.md#acp-notices) and
`session.compaction` (`compaction_update`s instead of the "Compact conversation" card).

`surroundings_guard`: the client's extra folders and system prompt. `acp` drops `systemPrompt`
from `session/new|load|resume|fork` when it parses, and would answer a malformed
`additionalDirectories` with pydantic's error list; the guard reads both from the raw params
first, answers bad values with -32602 naming the field (no session is made), and leaves what it
read in `requested_surroundings()` for the agent method the same request reaches (a context
variable: acp runs each request in its own task). The client sends both again on every one of
these requests, as with the reference adapter, so a loaded, resumed or forked session keeps them
only when asked. `initialize`'s answer gains `sessionCapabilities.systemPrompt`, which acp's
schema has no field for. Shapes as the reference adapter reads them
(docs/reference-adapter.md#client-system-prompt).

What older clients send instead is read too, as the reference reads it: `_meta.systemPrompt`,
a string (the whole system prompt) or `{append, excludeDynamicSections}` (added to Claude
Code's), and `_meta.additionalRoots` (a list of folders). The spec's fields win where both are
sent; a legacy prompt of another shape is ignored, as there; legacy folders are checked as
`additionalDirectories` are.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from pathlib import PurePosixPath
from typing import Any

from acp import RequestError
from pydantic import BaseModel

from adapter.claude.surroundings import Surroundings

__all__ = [
    "OPENING_METHODS",
    "SYSTEM_PROMPT_CAPABILITY",
    "RawCapabilities",
    "parse_surroundings",
    "requested_surroundings",
    "surroundings_guard",
]

_Handler = Callable[[str, Any, bool], Awaitable[Any]]

OPENING_METHODS = frozenset({"session/new", "session/load", "session/resume", "session/fork"})
# As the reference advertises it: `override` is offered, `append` is the baseline.
SYSTEM_PROMPT_CAPABILITY: dict[str, Any] = {"mode": {"override": {}}}
_MODES = {"append": False, "override": True}

_requested: contextvars.ContextVar[Surroundings | None] = contextvars.ContextVar(
    "surroundings", default=None
)


def requested_surroundings() -> Surroundings:
    """What the request being handled asked for (nothing outside an opening request)."""
    return _requested.get() or Surroundings()


def _shown(value: object, limit: int = 200) -> str:
    text = value if isinstance(value, str) else type(value).__name__
    return text if len(text) <= limit else f"{text[:limit]}\u2026"


def _meta(params: dict[str, Any]) -> dict[str, Any]:
    meta = params.get("_meta")
    return meta if isinstance(meta, dict) else {}


def _folders(params: dict[str, Any]) -> tuple[str, ...]:
    value = params.get("additionalDirectories")
    field = "additionalDirectories"
    if value is None:
        value = _meta(params).get("additionalRoots")
        field = "_meta.additionalRoots"
    if value is None:
        return ()
    if not isinstance(value, list):
        raise RequestError.invalid_params({field: "must be a list of absolute paths"})
    for entry in value:
        if not isinstance(entry, str) or "\0" in entry:
            raise RequestError.invalid_params({field: "entries must be strings (paths)"})
        if not PurePosixPath(entry).is_absolute():
            raise RequestError.invalid_params(
                {field: f"entries must be absolute paths, but received: {_shown(entry)}"}
            )
    return tuple(value)


def _prompt(params: dict[str, Any]) -> tuple[str | None, bool]:
    value = params.get("systemPrompt")
    if value is None:
        return None, False
    field = "systemPrompt"
    if not isinstance(value, dict):
        raise RequestError.invalid_params({field: "must be an object {mode, content}"})
    mode = value.get("mode")
    if not isinstance(mode, str) or mode not in _MODES:
        raise RequestError.invalid_params({field: f"unsupported mode: {_shown(mode)}"})
    content = value.get("content")
    if not isinstance(content, list):
        raise RequestError.invalid_params({field: "content must be a list of text blocks"})
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "text":
            kind = block.get("type") if isinstance(block, dict) else block
            raise RequestError.invalid_params(
                {field: f"content must be text, but received a {_shown(kind)} block"}
            )
        text = block.get("text")
        if not isinstance(text, str):
            raise RequestError.invalid_params({field: "a text block's text must be a string"})
        texts.append(text)
    return "\n\n".join(texts), _MODES[mode]


def _custom_instructions(params: dict[str, Any]) -> str | None:
    """JetBrains AIR's `_meta.jetbrains.air.customInstructions`: any string counts, anything
    else is no instructions (as the reference reads it, from any client:
    docs/reference-adapter.md#client-system-prompt)."""
    meta = params.get("_meta")
    jetbrains = meta.get("jetbrains") if isinstance(meta, dict) else None
    air = jetbrains.get("air") if isinstance(jetbrains, dict) else None
    value = air.get("customInstructions") if isinstance(air, dict) else None
    return value if isinstance(value, str) else None


def _legacy_prompt(params: dict[str, Any]) -> tuple[str | None, bool, bool]:
    """`_meta.systemPrompt`: its text, whether it replaces Claude Code's prompt, and whether
    Claude Code's per-user dynamic sections are left out (`excludeDynamicSections`)."""
    value = _meta(params).get("systemPrompt")
    if isinstance(value, str):
        return value, True, False
    if not isinstance(value, dict):
        return None, False, False
    append = value.get("append")
    exclude = value.get("excludeDynamicSections") is True
    return (append if isinstance(append, str) else None), False, exclude


def parse_surroundings(params: dict[str, Any]) -> Surroundings:
    """The surroundings an opening request's raw params ask for; -32602 for a bad value."""
    text, replace = _prompt(params)  # the spec's field first: it wins over `_meta.systemPrompt`
    exclude = False
    if params.get("systemPrompt") is None:
        text, replace, exclude = _legacy_prompt(params)
    return Surroundings(
        add_dirs=_folders(params),
        system_prompt=text,
        replace_prompt=replace,
        custom_instructions=_custom_instructions(params),
        exclude_dynamic_sections=exclude,
    )


def _advertised(result: Any) -> Any:
    answer = (
        result.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)
        if isinstance(result, BaseModel)
        else result
    )
    capabilities = answer.get("agentCapabilities") if isinstance(answer, dict) else None
    session = capabilities.get("sessionCapabilities") if isinstance(capabilities, dict) else None
    if isinstance(session, dict):
        session["systemPrompt"] = SYSTEM_PROMPT_CAPABILITY
    return answer


def surroundings_guard(handler: _Handler) -> _Handler:
    async def read(method: str, params: Any, is_notification: bool) -> Any:
        if method == "initialize" and not is_notification:
            return _advertised(await handler(method, params, is_notification))
        if method not in OPENING_METHODS or is_notification or not isinstance(params, dict):
            return await handler(method, params, is_notification)
        token = _requested.set(parse_surroundings(params))
        try:
            return await handler(method, params, is_notification)
        finally:
            _requested.reset(token)

    return read


class RawCapabilities:
    """What the client's last raw `initialize` declared; `wrap` installs the reader."""

    def __init__(self) -> None:
        self.notices = False
        self.compaction = False
        self.subagents = False  # `clientCapabilities.subagents` is an object
        # What `initialize`'s `agentCapabilities.sessionCapabilities` adds that `acp`'s model
        # has no field for (set by the agent before it answers: `AirClient.session_capabilities`).
        self.session_capabilities: dict[str, Any] = {}

    def wrap(self, handler: _Handler) -> _Handler:
        async def read(method: str, params: Any, is_notification: bool) -> Any:
            if method == "initialize" and isinstance(params, dict):
                capabilities = params.get("clientCapabilities")
                self.notices = _declares(capabilities, "notices")
                self.compaction = _declares(capabilities, "compaction")
                self.subagents = isinstance(capabilities, dict) and isinstance(
                    capabilities.get("subagents"), dict
                )
                self.session_capabilities = {}
            result = await handler(method, params, is_notification)
            if method == "initialize" and self.session_capabilities:
                result = _with_session_capabilities(result, self.session_capabilities)
            return result

        return read


def _with_session_capabilities(result: Any, extra: dict[str, Any]) -> Any:
    """`initialize`'s response with `extra` in `agentCapabilities.sessionCapabilities`."""
    if isinstance(result, BaseModel):
        result = result.model_dump(
            mode="json", by_alias=True, exclude_none=True, exclude_unset=True
        )
    if not isinstance(result, dict):
        return result
    agent = result.get("agentCapabilities")
    if isinstance(agent, dict):
        session = agent.get("sessionCapabilities")
        agent["sessionCapabilities"] = {**(session if isinstance(session, dict) else {}), **extra}
    return result


def _declares(capabilities: object, name: str) -> bool:
    # ACP v1: a client opts in with `session.<name>: {}` (an object; anything else is no).
    session = capabilities.get("session") if isinstance(capabilities, dict) else None
    return isinstance(session, dict) and isinstance(session.get(name), dict)
