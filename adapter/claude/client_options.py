"""`_meta.claudeCode.options`: Claude Code options a client passes on `session/new`, `load`,
`resume` and `fork`, as the TypeScript reference adapter passes them to its SDK (agent-shell
sends `thinking` there; docs/reference-adapter.md#client-options).

Theory of operation: `parse` checks the client's object before anything starts and turns it into
`ClientOptions`, or refuses it with -32602 naming the key (`_meta.claudeCode.options.env: must
be an object of strings`); a key it does not know is logged and ignored, so a client written for
the reference adapter still opens its session. `apply` adds the options to the keyword arguments
of `ClaudeAgentOptions` for every Claude process of the session (a restart after a crash
too). The adapter's own choices stay the adapter's: its session-state events, the permission
callback and the client's ACP `mcpServers` (which win over a server of the same name here), and
the effort picker once the user has chosen an effort.

| key | what Claude Code gets |
|---|---|
| `thinking` `{type: adaptive, enabled, disabled; budgetTokens?, display?}` | `--thinking` |
| `maxThinkingTokens` (an integer) | `--max-thinking-tokens` |
| `env` (strings) | its environment |
| `allowedTools`, `disallowedTools` (lists of rules) | `--allowedTools`, `--disallowedTools` |
| `tools` (names, or `{type: "preset", preset: "claude_code"}`) | `--tools` |
| `settings` (a file path, or an object) and `hooks` (settings-format hooks) | `--settings` |
| `agent` (a name) | `--agent` |
| `effort` (`low`, `medium`, `high`, `xhigh`, `max`) | `--effort` |
| `mcpServers` (Claude Code's own `{name: {command, args, env}}` / `{type, url}`) | `--mcp-config` |
| `allowDangerouslySkipPermissions` (a boolean) | nothing: `false` takes bypass away (below) |

Beside `options`, `_meta.claudeCode.emitRawSDKMessages` (`true`, or a list of `{type, subtype?,
origin?}` filters) asks for Claude Code's messages as they come
(`fsm.claude.raw_messages`); a value of another shape is -32602 too.

`allowDangerouslySkipPermissions: false` is the host's opt-out: the session neither offers bypass
nor switches to it (docs/decisions.md#whose-settings-may-loosen-permissions); `true` changes
nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from acp import RequestError

from adapter.claude.credential_env import drop_placeholders
from fsm import PeerViolation, RawMessageChoice, raw_message_choice

__all__ = ["META_KEY", "NONE", "ClientOptions", "apply", "parse"]

log = logging.getLogger(__name__)

META_KEY = "claudeCode"  # `_meta.claudeCode`; acp hands `_meta`'s keys to us as keywords
_WHERE = "_meta.claudeCode.options"
_RAW = "emitRawSDKMessages"  # beside `options`: fsm.claude.raw_messages
_EFFORTS = ("low", "medium", "high", "xhigh", "max")
_THINKING = ("adaptive", "enabled", "disabled")
_DISPLAYS = ("summarized", "omitted")
# Our own variable: without it a turn that went idle without a result is waited on forever.
_OURS_ENV = "CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS"


@dataclass(frozen=True, slots=True)
class ClientOptions:
    """The client's options, checked: `ClaudeAgentOptions` fields set outright, and the parts
    merged with the adapter's own."""

    fields: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] | str | None = None
    extra_args: dict[str, str | None] = field(default_factory=dict)
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    effort: str | None = None
    # `allowDangerouslySkipPermissions`: False takes bypass away from the session.
    allow_bypass: bool | None = None
    # `_meta.claudeCode.emitRawSDKMessages`: Claude's messages the client sees raw
    # (fsm.claude.raw_messages).
    raw_messages: RawMessageChoice = field(default_factory=RawMessageChoice)

    @property
    def agent(self) -> str | None:
        """The agent the client asked Claude Code's main thread to run as (`--agent`)."""
        return self.extra_args.get("agent")


NONE = ClientOptions()


def _refuse(key: str, problem: str) -> RequestError:
    return RequestError.invalid_params({f"{_WHERE}.{key}": problem})


def _strings(key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _refuse(key, "must be a list of strings")
    return list(value)


def _string_map(key: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _refuse(key, "must be an object of strings")
    return dict(value)


def _client_env(value: Any) -> dict[str, str]:
    # A placeholder credential would outrank the user's real one (adapter.claude.credential_env).
    env = _string_map("env", value)
    drop_placeholders(env, _WHERE + ".env")
    return env


def _count(key: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _refuse(key, "must be a non-negative integer")
    return value


def _thinking(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or value.get("type") not in _THINKING:
        raise _refuse("thinking", f"must be an object whose type is one of {', '.join(_THINKING)}")
    config: dict[str, Any] = {"type": value["type"]}
    if value["type"] == "enabled":
        budget = value.get("budgetTokens", value.get("budget_tokens"))
        if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
            raise _refuse("thinking.budgetTokens", "must be a positive integer")
        config["budget_tokens"] = budget
    if "display" in value:
        if value["display"] not in _DISPLAYS:
            raise _refuse("thinking.display", f"must be one of {', '.join(_DISPLAYS)}")
        config["display"] = value["display"]
    return config


def _tools(value: Any) -> list[str] | dict[str, str]:
    if value == {"type": "preset", "preset": "claude_code"}:
        return {"type": "preset", "preset": "claude_code"}
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise _refuse(
        "tools", 'must be a list of tool names or {"type": "preset", "preset": "claude_code"}'
    )


def _servers(value: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(value, dict):
        raise _refuse("mcpServers", "must be an object of servers by name")
    for name, server in value.items():
        stdio = isinstance(server, dict) and isinstance(server.get("command"), str)
        remote = isinstance(server, dict) and isinstance(server.get("url"), str)
        if not (stdio or remote):
            raise _refuse(f"mcpServers.{name}", "needs a command (stdio) or a url (http, sse)")
    return {name: dict(server) for name, server in value.items()}


def _settings(value: Any, hooks: Any) -> dict[str, Any] | str | None:
    if value is not None and not isinstance(value, str | dict):
        raise _refuse("settings", "must be a settings file path or a settings object")
    if hooks is None:
        return value if not isinstance(value, dict) else dict(value)
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise _refuse("hooks", "must be an object of hook matcher lists by event name")
    if isinstance(value, str):
        raise _refuse("hooks", "cannot be added to a settings file path; put them in that file")
    return {**(value or {}), "hooks": hooks}


def _effort(value: Any) -> str:
    if value not in _EFFORTS:
        raise _refuse("effort", f"must be one of {', '.join(_EFFORTS)}")
    return str(value)


def _agent(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise _refuse("agent", "must be an agent's name")
    return value


# The keys that map straight onto one `ClaudeAgentOptions` field.
_FIELDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "thinking": ("thinking", _thinking),
    "maxThinkingTokens": ("max_thinking_tokens", lambda v: _count("maxThinkingTokens", v)),
    "allowedTools": ("allowed_tools", lambda v: _strings("allowedTools", v)),
    "disallowedTools": ("disallowed_tools", lambda v: _strings("disallowedTools", v)),
    "tools": ("tools", _tools),
}
_MERGED = frozenset({"env", "settings", "hooks", "agent", "effort", "mcpServers"})
_BYPASS = "allowDangerouslySkipPermissions"  # the adapter's own: never passed to Claude Code


def _flag(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _refuse(key, "must be true or false")
    return value


def parse(meta: Any) -> ClientOptions:
    """The options in `_meta.claudeCode` (None: there are none); -32602 for a wrong type."""
    if meta is None:
        return NONE
    if not isinstance(meta, dict):
        raise RequestError.invalid_params({"_meta.claudeCode": "must be an object"})
    try:
        raw = raw_message_choice(meta.get(_RAW))
    except PeerViolation as exc:
        raise RequestError.invalid_params({f"_meta.claudeCode.{_RAW}": str(exc)}) from exc
    options = meta.get("options")
    if options is None:
        return ClientOptions(raw_messages=raw) if raw.wanted else NONE
    if not isinstance(options, dict):
        raise RequestError.invalid_params({_WHERE: "must be an object"})
    known = {*_FIELDS, *_MERGED, _BYPASS}
    unknown = sorted(str(k) for k in options if k not in known)
    if unknown:
        log.warning("ignored unsupported %s: %s", _WHERE, ", ".join(unknown)[:200])
    fields = {name: check(options[key]) for key, (name, check) in _FIELDS.items() if key in options}
    present = options.get
    return ClientOptions(
        fields=fields,
        env=_client_env(present("env")) if "env" in options else {},
        settings=_settings(present("settings"), present("hooks")),
        extra_args={"agent": _agent(present("agent"))} if "agent" in options else {},
        mcp_servers=_servers(present("mcpServers")) if "mcpServers" in options else {},
        effort=_effort(present("effort")) if "effort" in options else None,
        allow_bypass=_flag(_BYPASS, present(_BYPASS)) if _BYPASS in options else None,
        raw_messages=raw,
    )


def apply(kwargs: dict[str, Any], options: ClientOptions) -> dict[str, Any]:
    """`ClaudeAgentOptions` keyword arguments with the client's options added (see the module
    doc for what stays the adapter's)."""
    if options is NONE:
        return kwargs
    merged = {**kwargs, **options.fields}
    merged["env"] = {**kwargs.get("env", {}), **options.env, _OURS_ENV: "1"}
    merged["mcp_servers"] = {**options.mcp_servers, **kwargs.get("mcp_servers", {})}
    merged["extra_args"] = {**kwargs.get("extra_args", {}), **options.extra_args}
    # The client's rules extend the adapter's (AskUserQuestion for a client without forms).
    theirs = list(options.fields.get("disallowed_tools", []))
    ours = [tool for tool in kwargs.get("disallowed_tools", []) if tool not in theirs]
    merged["disallowed_tools"] = [*ours, *theirs]
    if options.settings is not None:
        settings = options.settings
        merged["settings"] = settings if isinstance(settings, str) else json.dumps(settings)
    if merged.get("effort") is None and options.effort is not None:
        merged["effort"] = options.effort
    return merged
