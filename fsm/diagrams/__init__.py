"""Diagrams drawn from the machines' own tables (never by hand).

Theory of operation: `render(engine)` builds a documentation-only `GraphMachine` per machine kind
from the same `TRANSITIONS` table and states the live machine uses, attaches one throwaway model
in the initial state, and returns the drawing as text. It does no I/O; `__main__` writes files.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from transitions.extensions import GraphMachine

from fsm import incident, turn

__all__ = ["MACHINES", "render"]

MACHINES: dict[str, tuple[type[Enum], list[dict[str, Any]], Enum]] = {
    "incident": (incident.IncidentState, incident.TRANSITIONS, incident.IncidentState.CREATED),
    "turn": (turn.TurnState, turn.TRANSITIONS, turn.TurnState.IDLE),
}


class _Drawing:
    """A model for one drawing; GraphMachine binds `get_graph` onto it."""


def _graph_source(name: str, engine: Literal["graphviz", "mermaid"]) -> Any:
    states, transitions, initial = MACHINES[name]
    machine = GraphMachine(
        model=None,
        states=states,
        transitions=transitions,
        initial=initial,
        auto_transitions=False,
        graph_engine=engine,
        title=f"{name} machine",
    )
    drawing = _Drawing()
    machine.add_model(drawing)
    return drawing.get_graph()  # type: ignore[attr-defined]


def render(name: str) -> str:
    """The Mermaid `stateDiagram-v2` text for machine `name`."""
    text: str = _graph_source(name, "mermaid").draw(None)
    return text.rstrip() + "\n"


def render_dot(name: str) -> str:
    """The Graphviz DOT text for machine `name` (needs the `graphviz` Python package)."""
    source: str = _graph_source(name, "graphviz").source
    return source
