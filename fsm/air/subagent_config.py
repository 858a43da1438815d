"""What a JetBrains AIR child session is told of its configuration (`nativeSubagentSessions`):
the options Claude Code's hooks say a subagent runs with, in the reference adapter's shapes
(`subagentConfigurationHook`, `childModelOption`: docs/reference-adapter.md#subagent-configuration).

Theory of operation: the hooks the adapter registers for a native-subagents client
(`SubagentStart`, `SubagentStop`, `PreToolUse`, `PostToolUse`, `PostToolUseFailure`,
`PostModelSwitch`) carry, when they fire inside a subagent, its `agent_id` and what it runs
with. `hook_configuration` reads one hook's input into the agent id and its options, each a
one-value `select` the client cannot change:

    {"id": "mode", "name": "Mode", "description": "Session permission mode", "category": "mode",
     "type": "select", "currentValue": <permission_mode>,
     "options": [{"value", "name", "description"?, "_meta"?}]}  # as the root's picker, kind too
    {"id": "model", "name": "Model", "category": "model", "type": "select",
     "currentValue": <value>, "options": [{"value", "name"}]}   # PostModelSwitch's `to_model`
    {"id": "effort", "name": "Effort", "description": "Current reasoning effort",
     "category": "thought_level", "type": "select", "currentValue": <effort.level>,
     "options": [{"value", "name"}]}                      # "x_high" is named "X High"
    {"id": "agent", "name": "Agent", "description": "Subagent type", "type": "select",
     "currentValue": <agent_type>, "options": [{"value", "name", "description"?}]}

A hook of the main thread (no `agent_id`) and a value of another shape say nothing; what the
child is then told, and when, is `fsm.air.native_subagents.NativeSubagents.configure`'s.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fsm.claude.synthetic_messages import is_real_model
from fsm.pickers.values import effort_level_name
from fsm.visible_text import visible

__all__ = [
    "AGENT_CONFIG_ID",
    "EFFORT_CONFIG_ID",
    "MODEL_CONFIG_ID",
    "MODE_CONFIG_ID",
    "child_model_option",
    "hook_configuration",
    "model_entry",
    "no_mode_meta",
]

Wire = dict[str, Any]
ModelEntry = tuple[str, str, str | None]  # a picker entry: value, name, the id it resolves to
ModeEntry = tuple[str, str, str | None]  # a mode the root offers: id, name, description
AgentEntry = tuple[str, str | None]  # an agent the root's picker lists: name, description
ModeMeta = Callable[[str], dict[str, Any] | None]  # a mode's `_meta` (`AirClient.mode_meta`)

MODE_CONFIG_ID = "mode"
MODEL_CONFIG_ID = "model"
EFFORT_CONFIG_ID = "effort"
AGENT_CONFIG_ID = "agent"
# A hook's values are short ids; past this one is not (docs/decisions.md#subagent-configuration).
_MAX_VALUE = 256


def _value(raw: object) -> str | None:
    """A hook's id-like value: a non-blank string, short, with no control character."""
    if not isinstance(raw, str) or not raw.strip() or len(raw) > _MAX_VALUE:
        return None
    return raw if visible(raw) == raw else None


def model_entry(model: object, choices: Iterable[ModelEntry] = ()) -> tuple[str, str] | None:
    """The (value, name) a child shows for `model`, an id Claude Code named: the root picker's
    entry whose value or resolved id it is, else the id itself (`responseModelEntry`); None for
    no model and for a placeholder such as `<synthetic>`, which no model wrote (`is_real_model`)."""
    if not isinstance(model, str) or not is_real_model(model):
        return None
    return next(((v, n) for v, n, r in choices if model in (v, r)), (model, model))


def _one_value(
    config_id: str, name: str, entry: Wire, *, description: str = "", category: str = ""
) -> Wire:
    """A select the client cannot change: `entry` its only option and its current value."""
    option: Wire = {"id": config_id, "name": name}
    if description:
        option["description"] = description
    if category:
        option["category"] = category
    return option | {"type": "select", "currentValue": entry["value"], "options": [entry]}


def child_model_option(entry: tuple[str, str]) -> Wire:
    """A child's `model` option: a select offering only its model (`childModelOption`)."""
    return _one_value(
        MODEL_CONFIG_ID, "Model", {"value": entry[0], "name": entry[1]}, category="model"
    )


def no_mode_meta(_mode: str) -> dict[str, Any] | None:
    """No `_meta` for any mode: a client's `mode_meta` when none was given."""
    return None


def _mode_option(mode: str, modes: Iterable[ModeEntry], mode_meta: ModeMeta) -> Wire:
    offered = next(((i, n, d) for i, n, d in modes if i == mode), None)
    entry: Wire = {"value": mode, "name": mode}
    if offered is not None:
        entry = {"value": mode, "name": offered[1]}
        if offered[2]:
            entry["description"] = offered[2]
        # As the root's picker shows it: with the `_meta` the client's picker gives it.
        kind = mode_meta(mode)
        if kind is not None:
            entry["_meta"] = kind
    return _one_value(
        MODE_CONFIG_ID, "Mode", entry, description="Session permission mode", category="mode"
    )


def _effort_option(level: str) -> Wire:
    return _one_value(
        EFFORT_CONFIG_ID,
        "Effort",
        {"value": level, "name": effort_level_name(level)},
        description="Current reasoning effort",
        category="thought_level",
    )


def _agent_option(kind: str, agents: Iterable[AgentEntry]) -> Wire:
    description = next((d for name, d in agents if name == kind), None)
    entry: Wire = {"value": kind, "name": kind}
    if description:
        entry["description"] = description
    return _one_value(AGENT_CONFIG_ID, "Agent", entry, description="Subagent type")


def hook_configuration(
    hook_input: object,
    *,
    modes: Iterable[ModeEntry] = (),
    models: Iterable[ModelEntry] = (),
    agents: Iterable[AgentEntry] = (),
    mode_meta: ModeMeta = no_mode_meta,
) -> tuple[str, list[Wire]] | None:
    """The subagent a hook fired in and the options its input says it runs with, in the
    reference's order (mode, model, effort, agent); None for a hook of the main thread or an
    input of another shape. `modes`, `models` and `agents`: what the root session's pickers
    offer, to name a value as they do (a mode or agent they lack is named by its id);
    `mode_meta`: the `_meta` the root's picker gives an offered mode (`AirClient.mode_meta`)."""
    if not isinstance(hook_input, Mapping):
        return None
    agent_id = _value(hook_input.get("agent_id"))
    if agent_id is None:
        return None
    options: list[Wire] = []
    mode = _value(hook_input.get("permission_mode"))
    if mode is not None:
        options.append(_mode_option(mode, modes, mode_meta))
    if hook_input.get("hook_event_name") == "PostModelSwitch":
        entry = model_entry(_value(hook_input.get("to_model")), models)
        if entry is not None:
            options.append(child_model_option(entry))
    effort = hook_input.get("effort")
    level = _value(effort.get("level")) if isinstance(effort, Mapping) else None
    if level is not None:
        options.append(_effort_option(level))
    kind = _value(hook_input.get("agent_type"))
    if kind is not None:
        options.append(_agent_option(kind, agents))
    return agent_id, options
