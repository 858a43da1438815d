"""`fsm.air.git_patch` against git itself: every patch applies with `git apply` and gives the new
text; headers, quoting and hunk ranges as git writes them."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from fsm import file_patch


def _applies(root: Path, relative: str, old: str | None, new: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if old is not None:
        path.write_bytes(old.encode())
    patch = file_patch("/" + relative, old, new)
    assert patch is not None
    done = subprocess.run(
        ["git", "apply", "--unsafe-paths", "-"],
        input=patch.text.encode(),
        cwd=root,
        check=False,
        capture_output=True,
    )
    assert done.returncode == 0, (done.stderr, patch.text)
    assert path.read_bytes() == new.encode()
    path.unlink()


def test_random_edits_apply_with_git(tmp_path: Path) -> None:
    rng = random.Random(7)
    for n in range(120):
        lines = [f"line {i}\n" for i in range(rng.randint(0, 60))]
        changed = list(lines)
        for _ in range(rng.randint(1, 5)):
            at = rng.randint(0, len(changed))
            match rng.choice("ida"):
                case "i":
                    changed.insert(at, f"new {n}\n")
                case "d" if changed:
                    changed.pop(min(at, len(changed) - 1))
                case _ if changed:
                    changed[min(at, len(changed) - 1)] = "changed\n"
        old, new = "".join(lines), "".join(changed)
        if n % 3 == 0:
            new = new.rstrip("\n")
        if n % 5 == 0:
            old = old.rstrip("\n")
        if old == new:
            assert file_patch("/x", old, new) is None
            continue
        _applies(tmp_path, "dir with space/f\u00e9.txt" if n % 2 else "src/app.py", old, new)
    _applies(tmp_path, "created.txt", None, "a\nb")


def test_headers_quoting_and_ranges() -> None:
    created = file_patch("/r/a b.txt", None, "x\n")
    assert created is not None and created.created and created.new_starts == (1,)
    assert created.text == (
        "diff --git a/r/a b.txt b/r/a b.txt\nnew file mode 100644\n--- /dev/null\n"
        "+++ b/r/a b.txt\t\n@@ -0,0 +1 @@\n+x\n"
    )
    quoted = file_patch('C:\\w\\"q"\u00e9\t.txt', "a\n", "b\n")
    assert quoted is not None
    assert quoted.text.splitlines()[0] == (
        'diff --git "a/C:/w/\\"q\\"\\303\\251\\t.txt" "b/C:/w/\\"q\\"\\303\\251\\t.txt"'
    )
    inserted = file_patch(
        "/f",
        "".join(f"{i}\n" for i in range(10)),
        "".join(f"{i}\n" + ("new\n" if i == 4 else "") for i in range(10)),
    )
    assert inserted is not None and "@@ -3,6 +3,7 @@" in inserted.text


@pytest.mark.parametrize("old", ["same\n", ""])
def test_nothing_changed_is_no_patch(old: str) -> None:
    assert file_patch("/f", old, old) is None
