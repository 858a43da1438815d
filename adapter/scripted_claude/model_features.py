"""The scripted Claude's auto and fast mode facts, as Claude Code reports them.

Theory of operation: Claude Code's initialize answer lists its models with
`supportsAutoMode` / `supportsFastMode` where a model has them (absent otherwise; older CLIs
never send them) and says whether fast mode is on (`fast_mode_state`: `on`, `off` or
`cooldown`). The plain catalog (`handshake.MODELS`) carries neither field, so every test
written before auto and fast keeps its pickers; `$CLAUDE_ACP_SCRIPTED_MODELS=featured` lists the
same models with the fields (Sonnet: auto; Opus: auto and fast; Haiku: neither),
`$CLAUDE_ACP_SCRIPTED_MODELS=one_million` adds the `sonnet[1m]` alias,
`$CLAUDE_ACP_SCRIPTED_MODELS=concrete` adds a `sonnet` entry, the concrete model the default
resolves to (what JetBrains AIR's `recommendedValue` names), and
`$CLAUDE_ACP_SCRIPTED_FAST` sets the state fast mode starts in (the real CLI reads it from the
user's settings). Like the real CLI, `system/init` and every turn's `result` say the state
(`fast_mode_state`); `$CLAUDE_ACP_SCRIPTED_FAST_OFF=<reason>` turns it off at the first turn's
result, which then names the reason (`fast_mode_disabled_reason`, e.g.
`extra_usage_disabled`). `apply_flag_settings {"fastMode": bool}` switches it in the running
process only, as the real CLI's flag layer does.

`get_context_usage` measures the window of the model in use (`rawMaxTokens`): 1,000,000 for
a `[1m]` alias or a model `$CLAUDE_ACP_SCRIPTED_NATIVE_1M` names, else 200,000
(`context_window`).

Ultracode: `$CLAUDE_ACP_SCRIPTED_MODELS=ultracode` lists the default (Sonnet) and Opus with the
`xhigh` effort, which is how Claude Code says a model takes ultracode (Haiku takes no effort).
`get_settings` answers, as the real CLI does, `applied.model` (the full id of the model it runs),
`applied.ultracodeRequested` (the process's switch: on at start with
`$CLAUDE_ACP_SCRIPTED_ULTRACODE=on` or a settings file's `ultracode: true`) and
`applied.ultracodeAvailable`, computed for that model: true on a model with the `xhigh` effort
unless `$CLAUDE_ACP_SCRIPTED_ULTRACODE_AVAILABLE=false` turns dynamic workflows off (false on
every model then); `=absent` leaves it out, as a CLI before it did.
`$CLAUDE_ACP_SCRIPTED_GET_SETTINGS=error` refuses the request and `=malformed` answers without
an `applied` object (`settings_answer`). `apply_flag_settings {"ultracode": bool}` switches it
(with `$CLAUDE_ACP_SCRIPTED_ULTRACODE=refused` the request is refused, as Claude Code's Remote
Control bridge refuses it); an `effortLevel` sent without an `ultracode` key turns it off when it
changes the level in effect (`DEFAULT_EFFORT` while none was set), as Claude Code does since
2.1.284 (2.1.332: `medium` again while `medium` is in effect leaves it on).

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapter.scripted_claude.handshake import MODELS

__all__ = [
    "DEFAULT_EFFORT",
    "FAST_ENV",
    "FAST_OFF_ENV",
    "MODELS_ENV",
    "NATIVE_MILLION_ENV",
    "ULTRACODE_ENV",
    "context_window",
    "fast_state",
    "models_for",
    "settings_answer",
]

MODELS_ENV = "CLAUDE_ACP_SCRIPTED_MODELS"
FAST_ENV = "CLAUDE_ACP_SCRIPTED_FAST"
FAST_OFF_ENV = "CLAUDE_ACP_SCRIPTED_FAST_OFF"
ULTRACODE_ENV = "CLAUDE_ACP_SCRIPTED_ULTRACODE"
ULTRACODE_AVAILABLE_ENV = "CLAUDE_ACP_SCRIPTED_ULTRACODE_AVAILABLE"
GET_SETTINGS_ENV = "CLAUDE_ACP_SCRIPTED_GET_SETTINGS"
# The level in effect while no effort was set (Claude Code 2.1.332's `applied.effort` then).
DEFAULT_EFFORT = "medium"
# Full model ids (comma-separated) whose context window is 1M natively: `get_context_usage`
# measures 1,000,000 for them though their names say nothing of it.
NATIVE_MILLION_ENV = "CLAUDE_ACP_SCRIPTED_NATIVE_1M"

_FEATURES: Mapping[str, Mapping[str, bool]] = {
    "default": {"supportsAutoMode": True},
    "opus": {"supportsAutoMode": True, "supportsFastMode": True},
}


# `$CLAUDE_ACP_SCRIPTED_MODELS=one_million` adds Claude Code's 1M-context alias, whose API model
# id (`claude-sonnet-4-5`) names no `1m`: only the picker entry says it.
ONE_MILLION_MODEL: Mapping[str, Any] = {
    "value": "sonnet[1m]",
    "resolvedModel": "claude-sonnet-4-5",
    "displayName": "Sonnet (1M context)",
    "description": "Sonnet 4.5 for long sessions",
}


# `$CLAUDE_ACP_SCRIPTED_MODELS=concrete`: the default's model as an entry of its own, as Claude
# Code lists it beside the default.
CONCRETE_MODEL: Mapping[str, Any] = {
    "value": "sonnet",
    "resolvedModel": "claude-sonnet-4-5",
    "displayName": "Sonnet",
    "description": "Sonnet 4.5 · Best for everyday tasks",
    "supportsEffort": True,
    "supportedEffortLevels": ["low", "medium", "high"],
}


def models_for(env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The model list of the initialize answer."""
    featured = env.get(MODELS_ENV) == "featured"
    listed = [{**m, **(_FEATURES.get(str(m["value"]), {}) if featured else {})} for m in MODELS]
    if env.get(MODELS_ENV) == "one_million":
        listed.append(dict(ONE_MILLION_MODEL))
    if env.get(MODELS_ENV) == "concrete":
        listed.append(dict(CONCRETE_MODEL))
    if env.get(MODELS_ENV) == "ultracode":
        for entry in listed:
            levels = entry.get("supportedEffortLevels")
            if isinstance(levels, list):
                entry["supportedEffortLevels"] = [*levels[:3], "xhigh", *levels[3:]]
    return listed


def settings_answer(
    env: Mapping[str, str], model: str, effort: str | None, ultracode: bool
) -> tuple[dict[str, Any] | None, str | None]:
    """`get_settings`' answer for the process as it runs now, or the error it refuses with."""
    if env.get(GET_SETTINGS_ENV) == "error":
        return None, "get_settings is not available"
    if env.get(GET_SETTINGS_ENV) == "malformed":
        return {"effective": {}, "applied": "unknown"}, None
    applied: dict[str, Any] = {"model": model, "effort": effort, "ultracodeRequested": ultracode}
    available = env.get(ULTRACODE_AVAILABLE_ENV)
    if available != "absent":
        applied["ultracodeAvailable"] = available != "false" and _takes_xhigh(env, model)
    return {"effective": {}, "sources": [], "applied": applied}, None


def _takes_xhigh(env: Mapping[str, str], model: str) -> bool:
    """Whether the listed model `model` (a value or the full id it resolves to) takes the
    `xhigh` effort, Claude Code's one check for ultracode."""
    for entry in models_for(env):
        if model in (entry.get("value"), entry.get("resolvedModel")):
            levels = entry.get("supportedEffortLevels")
            return (
                bool(entry.get("supportsEffort"))
                and isinstance(levels, list)
                and ("xhigh" in levels)
            )
    return False


def fast_state(env: Mapping[str, str]) -> str:
    """`fast_mode_state` at start-up: what the environment says, else off."""
    state = env.get(FAST_ENV, "off")
    return state if state in {"on", "off", "cooldown"} else "off"


def context_window(env: Mapping[str, str], alias: str | None, model: str) -> int:
    """The context window `get_context_usage` measures for the model in use (`alias`: the
    name it was chosen by; `model`: its full id)."""
    native = {m.strip() for m in env.get(NATIVE_MILLION_ENV, "").split(",") if m.strip()}
    if (alias or "").lower().endswith("[1m]") or model in native:
        return 1_000_000
    return 200_000
