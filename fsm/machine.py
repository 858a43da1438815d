"""Shared plumbing for the core's machines: one `transitions.Machine` per machine kind.

Theory of operation: each machine module declares its states (an `Enum`) and its `TRANSITIONS`
table, and builds its machine once with `build_machine`. Instances are attached with
`add_model` and detached with `remove_model` (the shared machine holds its models strongly, so
an instance that is never detached is never freed). `fire` is the one place a trigger runs: it
turns `transitions`' `MachineError` into the core's `InvalidTransition`.

A table may hold several rows for one (state, trigger) pair: `transitions` tries them in order
and runs the first whose `conditions` all hold and whose `unless` all fail, so the ordered rows
are the decision. Guards are model methods named in the row (pure predicates over the trigger's
argument and the model). Effects are made by the row's `before` callbacks, which run after the
guards and before the state changes: a callback that raises leaves the state unchanged
(`transitions` does not roll back, so nothing runs after the change). A row that touches
another machine (the turn's recovery boundaries, the runtime's end) only records it; the
model's `fire` applies it after the row returned, and a callback that writes the ledger at once
ends its row (the turn's table is checked for it when it is built), so a raising callback
changes no machine.
A trigger whose rows all decline raises `InvalidTransition` too: every table ends a
trigger's rows for a state with an unguarded row, so that only means a pair the table does
not list.

Tables are literal rows, as `transitions` 0.9.3 reads them: `source` may be a list of states
(the row is added to each, in table order, so the first row whose guards hold still wins for
every state it names), `dest="="` is the source itself (re-entered), and `dest=None` is an
internal row (the state does not change). A row may group a few triggers in a list for reading;
`one_row_per_trigger` writes those out before the machine is built. Tests and drawings read one
view of a table, `expanded(TRANSITIONS)`: one row per (state, trigger) rule, `"="` resolved,
grouped by state and then trigger, each pair's rules in the order they are tried.

A model declares its `state` and whatever guards and callbacks its table names, and nothing
else: `fire` runs a trigger through the machine's own `Event` (`machine.events[trigger]`), so
no `trigger` method is bound onto the model.

The core's one touchpoint with `transitions` internals is `QuietMachine` below, kept here so an
upgrade breaks one place (pinned by `tests/shell/test_compat.py`): transitions 0.9.3 logs a
WARNING for every name `model_override=True` declines to bind (`is_<state>`, `may_<trigger>`,
the trigger methods): nine log records per incident attached, most of an incident's creation
time (see `tests/bench/fsm_core.py`), and noise in any shell that shows warnings.
`QuietMachine` declines the same names silently by overriding the private
`Machine._checked_assignment`.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Protocol

from transitions import Machine, MachineError

from fsm.errors import InvalidTransition

__all__ = [
    "MachineModel",
    "QuietMachine",
    "build_machine",
    "expanded",
    "fire",
    "one_row_per_trigger",
]


class MachineModel(Protocol):
    """What `transitions` sets on a model: its state."""

    state: Any


class QuietMachine(Machine):
    def _checked_assignment(self, model: Any, name: str, func: Any) -> None:
        # transitions' own rule (bind iff `model_override` agrees), minus the warning it logs
        # for each declined name.
        if (getattr(model, name, None) is None) ^ self.model_override:
            setattr(model, name, func)


def one_row_per_trigger(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The table with every row that names several triggers written out once per trigger
    (`transitions` takes one trigger per row; the tables group a few for reading)."""
    return [{**row, "trigger": trigger} for row in rows for trigger in _listed(row["trigger"])]


def _listed(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def expanded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One rule per (state, trigger) row of the table: a single `source`, a single `trigger`,
    `dest` resolved where it is `"="` (None stays None: an internal row). Grouped by state (in
    the states' declared order) and then by trigger (in the order the table first names it);
    within one pair, the rules keep the order they are tried in."""
    rules: list[dict[str, Any]] = []
    for row in rows:
        for trigger in _listed(row["trigger"]):
            for source in _listed(row["source"]):
                dest = source if row["dest"] == "=" else row["dest"]
                rules.append({**row, "trigger": trigger, "source": source, "dest": dest})
    first_named = {t: i for i, t in reversed(list(enumerate(r["trigger"] for r in rules)))}

    def where(rule: dict[str, Any]) -> tuple[int, int]:
        source: Enum = rule["source"]
        return list(type(source)).index(source), first_named[rule["trigger"]]

    return sorted(rules, key=where)  # stable: each pair's rules stay in table order


def build_machine(
    *, name: str, states: type[Enum], transitions: list[dict[str, Any]], initial: Enum
) -> QuietMachine:
    return QuietMachine(
        model=None,
        states=states,
        transitions=one_row_per_trigger(transitions),
        initial=initial,
        name=name,
        auto_transitions=False,
        # The model declares what it expects transitions to set (`state`), so typing sees
        # it; nothing else is bound onto it.
        model_override=True,
        send_event=False,
    )


def fire(machine: Machine, model: MachineModel, trigger: str, *args: Any) -> None:
    """Run `trigger` on `model` with `args` for its guards and callbacks; raise
    `InvalidTransition` (state unchanged) if no row of the table accepts it."""
    state = model.state
    name = machine.name.removesuffix(": ")  # transitions keeps the name as "<name>: "
    event = machine.events.get(trigger)
    if event is None:
        raise InvalidTransition(name, trigger, state.value)
    try:
        accepted = event.trigger(model, *args)
    except MachineError as exc:
        raise InvalidTransition(name, trigger, state.value) from exc
    if not accepted:
        raise InvalidTransition(name, trigger, state.value)
