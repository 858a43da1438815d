"""Diagrams drawn from the machines' own tables (never by hand).

Theory of operation: `render(engine)` builds a documentation-only `GraphMachine` per machine kind
from the same `TRANSITIONS` table and states the live machine uses, attaches one throwaway model
in the initial state, and returns the drawing as text. Each arrow is labelled as the row reads:
`trigger [guard, !unless] / callback, callback`, so every decision (which row wins, what it does)
is on the picture. It does no I/O; `__main__` writes files.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from transitions.extensions import GraphMachine

from fsm import incident, limits, turn

__all__ = ["MACHINES", "render"]

MACHINES: dict[str, tuple[type[Enum], list[dict[str, Any]], Enum]] = {
    "incident": (incident.IncidentState, incident.TRANSITIONS, incident.IncidentState.CREATED),
    "turn": (turn.TurnState, turn.TRANSITIONS, turn.TurnState.IDLE),
    "limit_window": (limits.WindowState, limits.TRANSITIONS, limits.WindowState.QUIET),
}


class _Drawing:
    """A model for one drawing; GraphMachine binds `get_graph` onto it."""


def label(row: dict[str, Any]) -> str:
    """How one row reads on its arrow."""
    text = str(row["trigger"])
    guards = [*row.get("conditions", []), *(f"!{g}" for g in row.get("unless", []))]
    if guards:
        text += f" [{', '.join(guards)}]"
    if row.get("before"):
        text += f" / {', '.join(row['before'])}"
    return text


def _graph_source(name: str, engine: Literal["graphviz", "mermaid"]) -> Any:
    states, transitions, initial = MACHINES[name]
    # Drawn rows carry their label and no callbacks: nothing runs in a drawing. An internal
    # row (`dest` None) is drawn as the loop it is.
    drawn = [
        {"trigger": r["trigger"], "source": source, "label": label(r)}
        | {"dest": source if r["dest"] is None else r["dest"]}
        for r in transitions
        for source in (r["source"] if isinstance(r["source"], list) else [r["source"]])
    ]
    machine = GraphMachine(
        model=None,
        states=states,
        transitions=drawn,
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
