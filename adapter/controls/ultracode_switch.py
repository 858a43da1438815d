"""The Ultracode switch as a config option, and a client's choice of it checked
(docs/reference-adapter.md#ultracode).

Theory of operation: when it is offered and what it shows is the core's
(`fsm.pickers.ultracode`); `adapter.controls.pickers` places it after `fast` and before
`agent`, and `adapter.controls.session_controls` talks to Claude. A client that declares
`session.configOptions.boolean` gets a boolean option, any other a select of `on` / `off`; a
value of the other type is -32602 (`adapter.controls.auto_fast_rules`, as for fast mode).
"""

from __future__ import annotations

from acp.schema import SessionConfigOptionBoolean, SessionConfigOptionSelect

from adapter.controls.auto_fast_rules import check_switch, switch_option

__all__ = ["ULTRACODE", "check_ultracode", "ultracode_option"]

ULTRACODE = "ultracode"
_NAME = "Ultracode"
_DESCRIPTION = "Dynamic workflows on every task, at any effort level"


def ultracode_option(
    on: bool, boolean: bool
) -> SessionConfigOptionBoolean | SessionConfigOptionSelect:
    """The option, showing `on`, for a client that takes boolean options (`boolean`) or not."""
    return switch_option(ULTRACODE, _NAME, _DESCRIPTION, on, boolean)


def check_ultracode(value: object, boolean: bool) -> bool:
    """The switch a client asked for (-32602 for a value of the wrong type)."""
    return check_switch(ULTRACODE, value, boolean)
