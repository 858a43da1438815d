"""The committed diagrams and decision tables are the tables drawn (the house rule: drawings are
generated): `python -m fsm.diagrams --check` regenerates them in memory and fails when a committed
file differs. What the drawings say, rule for rule, is `tests/core/test_diagrams.py`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fsm.diagrams import MACHINES, decision_table, render

ROOT = Path(__file__).resolve().parents[2]


def _diagrams(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fsm.diagrams", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_committed_diagrams_are_fresh() -> None:
    checked = _diagrams("--check")
    assert (checked.returncode, checked.stderr) == (0, "")
    # The committed files are exactly what the tables draw.
    for name in MACHINES:
        assert (ROOT / "diagrams" / f"{name}.mmd").read_text(encoding="utf-8") == render(name)
        table = (ROOT / "diagrams" / f"{name}.md").read_text(encoding="utf-8")
        assert table == decision_table(name)


def test_check_fails_when_a_drawn_file_is_edited(tmp_path: Path) -> None:
    # Writing into a fresh folder produces one Mermaid file per machine, which then checks.
    written = _diagrams("--out", str(tmp_path))
    assert written.returncode == 0, written.stderr
    assert sorted(p.name for p in tmp_path.glob("*.mmd")) == [f"{n}.mmd" for n in sorted(MACHINES)]
    assert sorted(p.name for p in tmp_path.glob("*.md")) == [f"{n}.md" for n in sorted(MACHINES)]
    assert _diagrams("--check", "--out", str(tmp_path)).returncode == 0
    # A hand edit makes the check fail and name the stale file.
    turn = tmp_path / "turn.mmd"
    turn.write_text(turn.read_text(encoding="utf-8") + "  IDLE --> FAILED: by_hand\n", "utf-8")
    stale = _diagrams("--check", "--out", str(tmp_path))
    assert stale.returncode == 1
    assert "turn.mmd" in stale.stderr
    assert "incident.mmd" not in stale.stderr


def test_check_fails_when_a_decision_table_is_edited(tmp_path: Path) -> None:
    assert _diagrams("--out", str(tmp_path)).returncode == 0
    table = tmp_path / "incident.md"
    table.write_text(table.read_text(encoding="utf-8").replace("| stays |", "| REVISING |"))
    stale = _diagrams("--check", "--out", str(tmp_path))
    assert stale.returncode == 1
    assert "incident.md" in stale.stderr
    assert "turn.md" not in stale.stderr


def test_check_fails_when_a_file_is_missing(tmp_path: Path) -> None:
    assert _diagrams("--out", str(tmp_path)).returncode == 0
    (tmp_path / "incident.mmd").unlink()
    missing = _diagrams("--check", "--out", str(tmp_path))
    assert missing.returncode == 1
    assert "incident.mmd" in missing.stderr
