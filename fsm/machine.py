"""Shared plumbing for the core's machines: one `transitions.Machine` per machine kind.

Theory of operation: each machine module declares its states (an `Enum`) and its `TRANSITIONS`
table, and builds its machine once with `build_machine`. Instances are attached with
`add_model` and detached with `remove_model` (the shared machine holds its models strongly, so
an instance that is never detached is never freed). `fire` is the one place a trigger runs: it
turns `transitions`' `MachineError` into the core's `InvalidTransition`, and since the table is
checked before any state changes, the state is unchanged when it raises.
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


def build_machine(
    *, name: str, states: type[Enum], transitions: list[dict[str, Any]], initial: Enum
) -> Machine:
    return Machine(
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


def fire(machine_name: str, model: MachineModel, trigger: str) -> None:
    """Run `trigger` on `model`; raise `InvalidTransition` (state unchanged) if not allowed."""
    state = model.state
    try:
        model.trigger(trigger)
    except MachineError as exc:
        raise InvalidTransition(machine_name, trigger, state.value) from exc
