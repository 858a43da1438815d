"""The drawings and decision tables say what the tables say, rule for rule.

The Mermaid text is parsed back into arrows, `{(source, dest): [clause, ...]}`, and compared
with the expanded table (`fsm.machine.expanded`): every rule is exactly one clause on the arrow
from its state to its next state (an internal rule is a loop), nothing else is drawn, and no
arrow's label is longer than a reviewer can read. The Markdown table is parsed back the same
way, one line per rule in the order tried. The committed files are these texts, and the check
(`fsm.diagrams.__main__.main`, run here in process) names each file that is not; that the
command itself passes is `tests/e2e/test_diagrams.py`.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fsm.diagrams import MACHINES, MAX_LABEL, decision_table, label, render
from fsm.diagrams.__main__ import main as diagrams_main
from fsm.machine import expanded

ARROW = re.compile(r"^  (\w+) --> (\w+): (.+)$")


def _drawn(name: str) -> dict[tuple[str, str], Counter[str]]:
    arrows: dict[tuple[str, str], Counter[str]] = {}
    for line in render(name).splitlines():
        match = ARROW.match(line)
        if match:
            source, dest, text = match.groups()
            assert len(text) <= MAX_LABEL, line
            arrows.setdefault((source, dest), Counter()).update(text.split(" | "))
    return arrows


def _tabled(name: str) -> dict[tuple[str, str], Counter[str]]:
    _states, transitions, _initial = MACHINES[name]
    rules: dict[tuple[str, str], Counter[str]] = {}
    for rule in expanded(transitions):
        dest = rule["source"] if rule["dest"] is None else rule["dest"]
        rules.setdefault((rule["source"].name, dest.name), Counter())[label(rule)] += 1
    return rules


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_every_rule_is_one_clause_on_its_arrow(name: str) -> None:
    assert _drawn(name) == _tabled(name)


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_the_drawing_starts_in_the_initial_state(name: str) -> None:
    states, _transitions, initial = MACHINES[name]
    text = render(name)
    assert text.startswith(f"---\n{name} machine\n---\nstateDiagram-v2\n")
    assert f"  [*] --> {initial.name}\n" in text
    for state in states:
        assert f'  state "{state.name}" as {state.name}\n' in text


def _cells(line: str) -> list[str]:
    return [cell.strip().replace("`", "") for cell in line.strip().strip("|").split("|")]


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_the_decision_table_has_one_line_per_rule_in_order(name: str) -> None:
    _states, transitions, _initial = MACHINES[name]
    lines = [ln for ln in decision_table(name).splitlines() if re.match(r"^\| \d+ \|", ln)]
    wanted: list[list[Any]] = [
        [
            str(number),
            rule["source"].name,
            str(rule["trigger"]),
            ", ".join([*rule.get("conditions", []), *(f"!{u}" for u in rule.get("unless", []))]),
            ", ".join(rule.get("before", [])),
            "stays" if rule["dest"] is None else rule["dest"].name,
        ]
        for number, rule in enumerate(expanded(transitions), start=1)
    ]
    assert [_cells(line) for line in lines] == wanted


def test_long_arrows_are_split_one_rule_per_arrow() -> None:
    # The turn machine's busiest arrow (a working state's result settling it) would read as
    # one label of well over a thousand characters; it is drawn as several arrows instead.
    pairs = Counter((s, d) for s, d in (m.groups()[:2] for m in _matches(render("turn"))))
    assert pairs[("RUNNING", "IDLE")] > 1
    assert all(len(m.group(3)) <= MAX_LABEL for m in _matches(render("turn")))


def _matches(text: str) -> list[re.Match[str]]:
    return [m for m in map(ARROW.match, text.splitlines()) if m]


# --- the committed files and the check (`python -m fsm.diagrams`, in process) -------------

ROOT = Path(__file__).resolve().parents[2]


def _diagrams(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The check's exit code and what it said on stderr."""
    capsys.readouterr()
    code = diagrams_main(list(args))
    return code, capsys.readouterr().err


def test_the_committed_files_are_what_the_tables_draw() -> None:
    for name in MACHINES:
        assert (ROOT / "diagrams" / f"{name}.mmd").read_text(encoding="utf-8") == render(name)
        table = (ROOT / "diagrams" / f"{name}.md").read_text(encoding="utf-8")
        assert table == decision_table(name)


def test_check_fails_when_a_drawn_file_is_edited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Writing into a fresh folder produces one Mermaid file per machine, which then checks.
    written, said = _diagrams(capsys, "--out", str(tmp_path))
    assert written == 0, said
    assert sorted(p.name for p in tmp_path.glob("*.mmd")) == [f"{n}.mmd" for n in sorted(MACHINES)]
    assert sorted(p.name for p in tmp_path.glob("*.md")) == [f"{n}.md" for n in sorted(MACHINES)]
    assert _diagrams(capsys, "--check", "--out", str(tmp_path))[0] == 0
    # A hand edit makes the check fail and name the stale file.
    turn = tmp_path / "turn.mmd"
    turn.write_text(turn.read_text(encoding="utf-8") + "  IDLE --> FAILED: by_hand\n", "utf-8")
    code, stale = _diagrams(capsys, "--check", "--out", str(tmp_path))
    assert code == 1
    assert "turn.mmd" in stale
    assert "incident.mmd" not in stale


def test_check_fails_when_a_decision_table_is_edited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _diagrams(capsys, "--out", str(tmp_path))[0] == 0
    table = tmp_path / "incident.md"
    table.write_text(table.read_text(encoding="utf-8").replace("| stays |", "| REVISING |"))
    code, stale = _diagrams(capsys, "--check", "--out", str(tmp_path))
    assert code == 1
    assert "incident.md" in stale
    assert "turn.md" not in stale


def test_check_fails_when_a_file_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _diagrams(capsys, "--out", str(tmp_path))[0] == 0
    (tmp_path / "incident.mmd").unlink()
    code, missing = _diagrams(capsys, "--check", "--out", str(tmp_path))
    assert code == 1
    assert "incident.mmd" in missing
