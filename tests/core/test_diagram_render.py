"""`fsm.diagrams.render` in process: each drawing starts from its machine's table. That the
committed files are these drawings, and that `--check` fails on a stale one, is checked through
the command in `tests/e2e/test_diagrams.py`."""

from __future__ import annotations

from fsm.diagrams import MACHINES, render


def test_render_starts_from_the_tables() -> None:
    # Each drawing is a Mermaid state diagram whose edges are the table's triggers.
    for name in MACHINES:
        text = render(name)
        assert "stateDiagram-v2" in text
        _states, transitions, initial = MACHINES[name]
        assert f"[*] --> {initial.name}" in text
        for row in transitions:
            assert str(row["trigger"]) in text
