"""Shared plumbing for the core's machines: one `transitions.Machine` per machine kind.

Theory of operation: each machine module declares its states (an `Enum`) and its `TRANSITIONS`
table, and builds its machine once with `build_machine`. Instances are attached with
`add_model` and detached with `remove_model` (the shared machine holds its models strongly, so
an instance that is never detached is never freed). `fire` is the one place a trigger runs: it
turns `transitions`' `MachineError` into the core's `InvalidTransition`, and since the table is
checked before any state changes, the state is unchanged when it raises.

One measured cost is cut here (see `tests/bench_fsm.py`) without changing what a table means:
transitions 0.9.3 logs a WARNING for every name `model_override=True` declines to bind
(`is_<state>`, `may_<trigger>`, the trigger methods): nine log records per incident attached,
most of an incident's creation time, and noise in any shell that shows warnings. `_Machine`
declines the same names silently (it overrides transitions' `_checked_assignment`; pinned).
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Protocol

from transitions import Machine, MachineError

from fsm.errors import InvalidTransition

__all__ = ["MachineModel", "build_machine", "fire"]


class MachineModel(Protocol):
    """What `transitions` binds onto a model under `model_override=True`."""

    state: Any

    def trigger(self, name: str, *args: Any, **kwargs: Any) -> bool: ...


class _Machine(Machine):
    def _checked_assignment(self, model: Any, name: str, func: Any) -> None:
        # transitions' own rule (bind iff `model_override` agrees), minus the warning it logs
        # for each declined name.
        if (getattr(model, name, None) is None) ^ self.model_override:
            setattr(model, name, func)


def build_machine(
    *, name: str, states: type[Enum], transitions: list[dict[str, Any]], initial: Enum
) -> Machine:
    machine = _Machine(
        model=None,
        states=states,
        transitions=transitions,
        initial=initial,
        name=name,
        auto_transitions=False,
        # The model declares what it expects transitions to bind (`state`, `trigger`), so
        # typing sees them; nothing else is bound onto it.
        model_override=True,
        send_event=False,
    )
    return machine


def fire(machine_name: str, model: MachineModel, trigger: str) -> None:
    """Run `trigger` on `model`; raise `InvalidTransition` (state unchanged) if not allowed."""
    state = model.state
    try:
        model.trigger(trigger)
    except MachineError as exc:
        raise InvalidTransition(machine_name, trigger, state.value) from exc
