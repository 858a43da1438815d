"""Claude Code's `auto` permission mode and its fast mode, as the reference adapter offers them
(docs/reference-adapter.md#auto-mode).

Theory of operation: Claude Code's model list says which models take each
(`supportsAutoMode`, `supportsFastMode`; a CLI that predates the fields sends neither).
- `auto` is in the mode catalog when some listed model supports it and no settings file says
  `disableAutoMode: "disable"`. The current model counts as lacking it when its entry exists
  without `supportsAutoMode: true` (the reference's rule); choosing `auto` then (a mode switch,
  a model switch while in `auto`, the ExitPlanMode "use auto mode" choice, a transcript or
  settings mode) means Accept edits instead, and the client is told once per session (the
  core's notice machine, `fsm/notices.py`, says when and in which form).
- The `fast` option exists while the current model supports fast mode; its value is Claude
  Code's own (`fast_mode_state` of the initialize answer: `on` and `cooldown` are on) until the
  client switches it. A client that declares `session.configOptions.boolean` gets a boolean
  option, any other a select of `on` / `off`; a value of the other type is -32602. A switch
  reaches Claude as `apply_flag_settings {"fastMode": bool}`.
- Claude Code's own changes are followed: `fast_mode_state` on `system/init` and on a user
  turn's `result` (`cooldown` is not a change: the switch stays on). While it is off for a
  reason Claude Code names and the core explains (`fsm.fast_off_explanation`), the option's
  description says why, and turning off for such a reason is told to the client
  (`fsm/notices.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from acp import RequestError
from acp.schema import (
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
)

__all__ = [
    "AUTO",
    "AUTO_FALLBACK",
    "FAST",
    "check_fast",
    "check_switch",
    "fast_option",
    "fast_report",
    "fast_state",
    "switch_option",
]

AUTO = ("auto", "Auto", "Claude handles permission decisions")
AUTO_FALLBACK = "acceptEdits"
FAST = "fast"
_NAME = "Fast mode"
_DESCRIPTION = "Faster responses on supported models"
_SELECT = {"on": True, "off": False}


def fast_report(frame: Mapping[str, Any]) -> tuple[bool, object] | None:
    """A frame's fast mode (on or off, and Claude Code's reason for an off, as it gave it:
    `fsm.fast_off_explanation` words it), or None where it says nothing this follows (no
    state, or `cooldown`)."""
    state = frame.get("fast_mode_state")
    if state not in ("on", "off"):
        return None
    return state == "on", None if state == "on" else frame.get("fast_mode_disabled_reason")


def fast_state(server_info: Mapping[str, Any] | None) -> bool | None:
    """Claude Code's fast mode at start-up (None: it does not say)."""
    state = (server_info or {}).get("fast_mode_state")
    return state in ("on", "cooldown") if state in ("on", "off", "cooldown") else None


def fast_option(
    on: bool, boolean: bool, off_because: str | None = None
) -> SessionConfigOptionBoolean | SessionConfigOptionSelect:
    """The option; `off_because`: the explanation of why Claude Code turned it off."""
    description = f"{_DESCRIPTION} — {off_because}" if off_because and not on else _DESCRIPTION
    return switch_option(FAST, _NAME, description, on, boolean)


def check_fast(value: object, boolean: bool) -> bool:
    """The switch a client asked for (`check_switch`)."""
    return check_switch(FAST, value, boolean)


def switch_option(
    config_id: str, name: str, description: str, on: bool, boolean: bool
) -> SessionConfigOptionBoolean | SessionConfigOptionSelect:
    """An on/off option (fast mode, Ultracode): a boolean for a client that takes boolean
    config options (`boolean`), else a select of `on` / `off`."""
    if boolean:
        return SessionConfigOptionBoolean(
            type="boolean",
            id=config_id,
            name=name,
            description=description,
            category="model_config",
            current_value=on,
        )
    return SessionConfigOptionSelect(
        type="select",
        id=config_id,
        name=name,
        description=description,
        category="model_config",
        current_value="on" if on else "off",
        options=[
            SessionConfigSelectOption(value="on", name="On"),
            SessionConfigSelectOption(value="off", name="Off"),
        ],
    )


def check_switch(config_id: str, value: object, boolean: bool) -> bool:
    """The value a client asked an on/off option for; -32602 naming the option for a value of
    the wrong type (a boolean for a boolean option, `on` / `off` for a select)."""
    if boolean and isinstance(value, bool):
        return value
    if not boolean and isinstance(value, str) and value in _SELECT:
        return _SELECT[value]
    expected = "true or false" if boolean else "one of on, off"
    raise RequestError.invalid_params(
        {"value": f"unknown value for {config_id}; expected {expected}"}
    )
