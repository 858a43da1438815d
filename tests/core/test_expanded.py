"""`fsm.machine.expanded` is the machines' own view of their literal tables.

Tests and drawings read the expanded rules (one per state and trigger, `"="` resolved), while
`transitions` builds each machine from the literal rows (list sources, reflexive `dest="="`).
Here the two are compared: for every (state, trigger) pair the machine tries exactly the
expanded rules, in the same order, with the same guards, callbacks and destination.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import pytest

from fsm import incident, runtime, turn
from fsm.machine import expanded

MACHINES = {
    "turn": (turn.TURN_MACHINE, turn.TurnState, turn.TRANSITIONS),
    "incident": (incident.INCIDENT_MACHINE, incident.IncidentState, incident.TRANSITIONS),
    "runtime": (runtime.RUNTIME_MACHINE, runtime.RuntimeState, runtime.TRANSITIONS),
}


def _as_built(machine: Any, states: type[Enum]) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    built: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for trigger, event in machine.events.items():
        for source, rows in event.transitions.items():
            built[(source, str(trigger))] = [
                (
                    row.dest,
                    [c.func for c in row.conditions if c.target],
                    [c.func for c in row.conditions if not c.target],
                    list(row.before),
                )
                for row in rows
            ]
    return built


def _as_expanded(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    rules: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for rule in expanded(rows):
        dest = None if rule["dest"] is None else rule["dest"].name
        rules.setdefault((rule["source"].name, str(rule["trigger"])), []).append(
            (dest, rule.get("conditions", []), rule.get("unless", []), rule.get("before", []))
        )
    return rules


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_the_machine_runs_exactly_the_expanded_rules(name: str) -> None:
    machine, states, rows = MACHINES[name]
    assert _as_built(machine, states) == _as_expanded(rows)


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_expanded_rules_name_one_state_and_one_trigger(name: str) -> None:
    _machine, states, rows = MACHINES[name]
    rules = expanded(rows)
    assert all(isinstance(r["source"], states) and isinstance(r["trigger"], str) for r in rules)
    assert all(r["dest"] is None or isinstance(r["dest"], states) for r in rules)
    # Grouped by state in declared order, so a reader finds a state's rules in one place.
    order = [list(states).index(r["source"]) for r in rules]
    assert order == sorted(order)


def test_a_reflexive_row_resolves_to_each_of_its_sources() -> None:
    S = turn.TurnState
    rows = [{"trigger": "go", "source": [S.RUNNING, S.RETRYING], "dest": "=", "before": ["x"]}]
    assert [(r["source"], r["dest"]) for r in expanded(rows)] == [
        (S.RUNNING, S.RUNNING),
        (S.RETRYING, S.RETRYING),
    ]


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_no_guard_or_callback_is_named_like_a_trigger(name: str) -> None:
    # Under `model_override=True` transitions replaces a model method named like a trigger
    # with that trigger: a guard so named would fire the trigger instead of answering.
    _machine, _states, rows = MACHINES[name]
    rules = expanded(rows)
    triggers = {str(r["trigger"]) for r in rules}
    named = {n for r in rules for k in ("conditions", "unless", "before") for n in r.get(k, [])}
    assert named & triggers == set()
